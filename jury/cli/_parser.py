"""The command line's parser: no abbreviated flags, a subcommand's own usage on its errors,
and the closest spelling suggested for a mistyped flag, command or choice."""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from typing import Any, NoReturn

from .._problems import closest, suggest

__all__ = ["CommandParser", "JuryParser"]

_CHOICE = re.compile(r"argument (\S+): invalid choice: '([^']*)' \(choose from (.*)\)$")


#: `jury rescore`'s flags for the rules that decide a verdict, as a jury file sets them. Given
#: to another command (`jury run --quorum 2`), they are no typo of its flags: the closest
#: spelling ("did you mean '--resume'?") would send the user the wrong way.
_RULES = {
    "--quorum": ("quorum = N", " N"),
    "--aggregation": ('aggregation = "NAME"', " NAME"),
    "--calibration": ('aggregation = "learned" and calibration = "FIT"', " FIT"),
    "--ties": ('ties = "POLICY"', " POLICY"),
    "--threshold": ("thresholds = T", " T"),
    "--min-pass-rate": ("min_pass_rate = P under [gate]", " P"),
    "--require-every-juror": ("require_every_juror = true under [gate]", ""),
    "--gate-on": ('on = "lower_bound" under [gate]', " lower_bound"),
    "--interval": ('interval = "NAME" under [gate]', " NAME"),
    "--level": ("level = L under [gate]", " L"),
}


class JuryParser(argparse.ArgumentParser):
    """An `ArgumentParser` that never takes ``--thr`` for ``--threshold`` (an abbreviation
    changes meaning when a flag is added) and says "did you mean" on a near miss."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        super().error(message + self._hint(message))

    def _hint(self, message: str) -> str:
        if message.startswith("unrecognized arguments: "):
            flags = [a.split("=")[0] for a in message.split(": ", 1)[1].split() if a[:1] == "-"]
            # A rule flag this command lacks is a candidate too: `jury run --quorm` meant
            # --quorum (a jury file's setting), not the --format that is spelled nearest.
            rules = [rule for rule in _RULES if rule not in self._option_string_actions]
            for flag in flags:
                meant = closest(flag, [*self._option_string_actions, *rules])
                if meant in rules:
                    setting, value = _RULES[meant]
                    said = flag if meant == flag else f"{flag}: did you mean {meant}? It"
                    return (
                        f" ({said} is not a flag of {self.prog}: set {setting} in the jury "
                        f"file (--jury FILE); `jury rescore RUN {meant}{value}` decides a "
                        "recorded run again by it, calling no judge)"
                    )
                if meant is not None:
                    return f" ({flag}: did you mean {meant!r}?)"
            return ""
        found = _CHOICE.match(message)
        if found is not None:
            choices = [c.strip(" '") for c in found.group(3).split(",")]
            return suggest(found.group(2), choices)
        return ""


class CommandParser(JuryParser):
    """A subcommand's parser: an unknown flag is its error, shown with its own usage, not
    left to the top-level parser (whose usage says nothing about the subcommand's flags)."""

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras
