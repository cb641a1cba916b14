"""The `jury` command: one module per subcommand, the options they share in `_options`.

Not a library: import `jury` for that. `main` is the console script's entry point.
"""

from ._main import main

__all__ = ["main"]
