"""Redaction: no credential is ever stored, logged or reported, and the user's own patterns
are removed from every text a run stores."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel

from ._errors import ConfigError
from ._verdict import CaseVerdict

#: A case (`jury.Case`), or any model whose fields are kept as they were given.
M = TypeVar("M", bound=BaseModel)

__all__ = ["Redactor", "redact", "secret_values"]

# Shapes of provider keys, for values that reach a log without being a known variable.
_KEY_SHAPES = re.compile(
    r"sk-ant-[A-Za-z0-9_-]{8,}|sk-(?:proj-)?[A-Za-z0-9_-]{16,}|AIza[0-9A-Za-z_-]{30,}|"
    r"AKIA[0-9A-Z]{16}|(?i:bearer)\s+[A-Za-z0-9._~+/-]{16,}"
)
_SECRET_NAMES = re.compile(r"(?:API_KEY|_KEY|_TOKEN|_SECRET|PASSWORD)$")


def secret_values(env: Mapping[str, str]) -> tuple[str, ...]:
    """Values of variables named like credentials (``*_API_KEY``, ``*_TOKEN``...)."""
    return tuple(v for k, v in env.items() if _SECRET_NAMES.search(k) and len(v) >= 8)


def redact(text: str, secrets: tuple[str, ...] = ()) -> str:
    """Replace credential values and anything shaped like a provider key."""
    for secret in secrets:
        text = text.replace(secret, "[redacted]")
    return _KEY_SHAPES.sub("[redacted]", text)


# Fields whose values are identifiers or categories, not free text: redaction leaves them
# alone so that a pattern can never change a score, a verdict or a case's identity.
_KEEP = frozenset(
    {"id", "case_id", "category", "juror", "status", "verdict", "scores", "name", "served_by"}
)


class Redactor:
    """Removes what must not be stored: credentials always, and the user's `--redact` patterns.

    Applied to every text a run stores (cases, judges' reasons and replies, cached requests);
    identifiers and scores (`_KEEP`) are left as they are.
    """

    def __init__(self, patterns: Sequence[str] = (), env: Mapping[str, str] | None = None) -> None:
        self.patterns = tuple(patterns)
        try:
            self._compiled = tuple(re.compile(p) for p in self.patterns)
        except re.error as exc:
            raise ConfigError(f"--redact {exc.pattern!r}: not a valid pattern: {exc}") from None
        self._secrets = secret_values(os.environ if env is None else env)

    def text(self, text: str) -> str:
        for pattern in self._compiled:
            text = pattern.sub("[redacted]", text)
        return redact(text, self._secrets)

    def data(self, value: Any) -> Any:
        """A copy of JSON-like data with every free-text string redacted."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {k: v if k in _KEEP else self.data(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.data(v) for v in value]
        return value

    def _case_data(self, case: BaseModel) -> Any:
        # A case keeps the fields it was given (an explicit null `expected_tool` means "no
        # tool").
        return self.data(case.model_dump(mode="json", exclude_unset=True))

    def case(self, case: M) -> M:
        """The case as a run's records keep it."""
        return type(case).model_validate(self._case_data(case))

    def json_line(self, model: BaseModel) -> bytes:
        """A case or a verdict as one line of a run's records."""
        if isinstance(model, CaseVerdict):  # a verdict drops its defaults, restored on reading
            data = self.data(model.model_dump(mode="json", exclude_defaults=True))
        else:
            data = self._case_data(model)
        return (json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
