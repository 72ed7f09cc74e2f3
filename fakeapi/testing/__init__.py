"""Helpers for testing against fakeapi: a ``fakeapi serve`` process and its control API, and
the pieces of the pytest plugin (``fakeapi.testing.plugin``) a test suite may name in hints."""

from .eventually import eventually
from .resources import ApiError
from .server_process import ServerProcess

__all__ = ["ApiError", "FakeAPI", "ServerProcess", "eventually"]


def __getattr__(name: str) -> object:
    # FakeAPI pulls in the whole server; import it only when asked for.
    if name == "FakeAPI":
        from .client import FakeAPI

        return FakeAPI
    raise AttributeError(name)
