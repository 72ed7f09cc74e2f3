"""The HTTP surface: routing of /api and /apis, discovery, streaming watches, Status errors and
control endpoints, on Starlette served by uvicorn."""

from .app import Server, ServerConfig, create_app

__all__ = ["Server", "ServerConfig", "create_app"]
