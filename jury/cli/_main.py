"""The `jury` command. Each subcommand lives in its own module and registers itself here.

Exit codes (docs/architecture.md): 0 the gate passed, 1 it failed, 2 usage or configuration error,
3 inconclusive (judges unavailable). A definite failure outranks inconclusive.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence

from .._errors import AccountError, ConfigError
from ..runs import Interrupted

__all__ = ["main"]

#: Modules that define a subcommand: each has ``register(subparsers)`` which sets
#: ``handler`` (a function of the parsed arguments returning the exit code).
COMMANDS = (
    "jury.cli._run",
    "jury.cli._estimate",
    "jury.cli._agreement",
    "jury.cli._compare",
    "jury.cli._rescore",
    "jury.cli._prompts",
    "jury.cli._calibrate",
    "jury.cli._export",
    "jury.cli._report",
    "jury.cli._check_quotes",
    "jury.cli._doctor",
    "jury.cli._merge",
    "jury.cli._label",
    "jury.cli._plan",
)

EXIT_USAGE = 2


def build_parser() -> argparse.ArgumentParser:
    from .._version import __version__
    from ._parser import CommandParser, JuryParser

    parser = JuryParser(
        prog="jury",
        description="Judge AI outputs with a panel of LLM judges from different families.",
    )
    parser.add_argument("--version", action="version", version=f"aiojury {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=CommandParser)
    for name in COMMANDS:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Callable[[argparse.Namespace], int] | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return EXIT_USAGE
    from ._streams import closed_pipe_is_quiet

    try:
        with closed_pipe_is_quiet():
            return handler(args)
    except AccountError as exc:
        # A rejected key or a quota no retry clears: no case can be judged on this account.
        variable = getattr(exc, "variable", None)
        hint = f" (check {variable})" if variable else ""
        print(f"jury: {exc.cause}{hint}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ConfigError as exc:
        print(f"jury: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except Interrupted as stop:  # a command that has no more to say than this
        print(f"jury: interrupted ({stop.name})", file=sys.stderr)
        return stop.exit_code
    except KeyboardInterrupt:
        print("jury: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
