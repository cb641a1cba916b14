"""The package version, in one place (the CLI and the records read it)."""

__version__ = "0.1.0"
