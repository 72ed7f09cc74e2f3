"""The `fakeapi` command line: one module per command."""
