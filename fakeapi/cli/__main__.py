"""`python -m fakeapi.cli`: the `fakeapi` command."""

from .main import main

main()
