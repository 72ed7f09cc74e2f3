"""The composition root: a server assembled from its parts, and its HTTP app."""

from .config import CONTROLLERS, ServerConfig
from .server import Server, create_app

__all__ = ["CONTROLLERS", "Server", "ServerConfig", "create_app"]
