"""The HTTP surface: routing of /api and /apis, discovery, streaming watches, Status errors and
control endpoints, on Starlette served by uvicorn. The server behind it is assembled in
``fakeapi.server``."""
