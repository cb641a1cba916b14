"""The `jury` command: one module per subcommand, the options they share in `_options`.

Not a library: import `jury` for that. `main` is the console script's entry point.
"""

from types import FunctionType

from ._main import main

__all__ = ["main"]


# Each public name says where to import it from (jury.cli.X), not the private module that
# defines it: reprs, tracebacks and the API reference read the same door.
for _name in __all__:
    if isinstance(_value := globals()[_name], type | FunctionType):
        _value.__module__ = __name__
del _name, _value
