"""Helpers for testing against fakeapi: a ``fakeapi serve`` process and its control API."""

from .server_process import ServerProcess

__all__ = ["ServerProcess"]
