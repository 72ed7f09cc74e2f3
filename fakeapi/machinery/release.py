"""The Kubernetes release fakeapi emulates: its API surface (catalogue), schemas and ``/version``."""

TARGET_RELEASE = "1.35"
