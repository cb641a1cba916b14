"""The project's error tree.

Every error aiojury raises or records is one of these::

    JuryError
    ├── ConfigError                  usage or configuration; the CLI exits 2
    │   ├── CaseFileError            a cases file with bad lines (every bad line listed)
    │   ├── JuryFileError            a jury file with bad keys (every bad key named)
    │   ├── RubricError              a rubric file or name that cannot be used
    │   ├── MissingCredentialError   a provider's key variable is not set (the variable named)
    │   ├── RunRecordError           a run directory that cannot be read (every bad line listed)
    │   ├── RunLockedError           another process is writing the run directory (who, since when)
    │   ├── LabelsFileError          a labels file with bad lines (every bad line named)
    │   ├── LabelsLockedError        another `jury label` is writing the labels file
    │   ├── MergeError               shards that are not one run cut in pieces (each problem listed)
    │   ├── AgentUnreachable         the system under test cannot be reached at all (refused, no
    │   │                            such host): raised per call; a run whose first calls all
    │   │                            get it stops (exit 2)
    │   └── JurorUnusable            a judge model failed for good before any call of it
    │                                worked (a model the server does not have, nothing
    │                                listening, a setting refused): the run stops (exit 2)
    ├── ProviderError                one judge call failed (`classify_error` maps foreign errors)
    │   ├── TransientError           connection, timeout, 408, 409, 5xx, overloaded: retried
    │   │   ├── RateLimitedError     429: retried after `retry_after` seconds when the server says,
    │   │   │                        within the call's own time budget for rate limits
    │   │   └── UnreachableError     no connection at all (refused, no such host, dropped)
    │   ├── InvalidRequestError      400, 404, 422: never retried; the vote is unavailable
    │   │   └── SettingRefusedError  the server named a setting of the request it refuses
    │   │                            (`response_format`, `logprobs`...), with the fix
    │   ├── AccountError             the account cannot serve any call: stops the run (exit 2)
    │   │   ├── AuthenticationError  401, 403: names the variable to check
    │   │   └── QuotaExhaustedError  a quota that no retry clears (no credit, a per-day quota)
    │   └── BatchFailedError         a request that failed in its provider batches as often as the
    │                                settings allow: its vote is unavailable
    ├── InvalidReply                 a reply that breaks the rubric's schema or rules; re-asked
    └── AgentError                   the system under test failed one case (answered nothing, in
                                     a shape that cannot be read, too late): the case FAILs at
                                     the stage "agent"

A judge model whose first calls fail for good (no call of it has worked yet in the run) is
a configuration that cannot work: the call layer raises `JurorUnusable` instead of an
unavailable vote, and the run stops before more is paid. Once a call of a model has worked,
its failures are the quorum's business again (unavailable votes, named in the report).

A provider error never becomes a FAIL: after retries and fallbacks it is an *unavailable*
vote, and a case short of valid votes is INCONCLUSIVE.

Two signals stay inside the engine and are not `JuryError` (no caller ever sees them):
`CallFailed`, a call that failed for good on one model after its retries (the vote layer
falls back or records an unavailable vote), and `OverBudget`, the run's budget is spent (no
call starts). A problem of one line of a user's file is a `jury.LineError` (not an
exception: `CaseFileError` carries a list of them), defined with the other problems.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from ._problems import LineError

if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError

__all__ = [
    "AccountError",
    "AgentError",
    "AgentUnreachable",
    "AuthenticationError",
    "BatchFailedError",
    "CallFailed",
    "CaseFileError",
    "ConfigError",
    "InvalidReply",
    "InvalidRequestError",
    "JurorUnusable",
    "JuryError",
    "JuryFileError",
    "LabelsFileError",
    "LabelsLockedError",
    "MergeError",
    "MissingCredentialError",
    "OverBudget",
    "ProviderError",
    "QuotaExhaustedError",
    "RateLimitedError",
    "RubricError",
    "RunLockedError",
    "RunRecordError",
    "SettingRefusedError",
    "TransientError",
    "UnreachableError",
]


class JuryError(Exception):
    """Base of every error aiojury raises."""


class ConfigError(JuryError):
    """A usage or configuration error: the CLI reports it and exits 2."""


class CaseFileError(ConfigError):
    """A cases file that cannot be used as a whole; `errors` lists every problem of every bad
    line (a line with three problems is one bad line). The message says each distinct problem
    once, with how many places have it and the first of them (a file of 805 items with the
    same three unknown fields is one line, not 2,415), then the ``--map`` line that keeps the
    unknown fields. `total` is the number of records read, when known ("on all 805 items")."""

    def __init__(self, path: str, errors: Sequence[LineError], total: int | None = None) -> None:
        self.path = path
        self.errors = tuple(errors)
        places = {(e.unit, e.line) for e in self.errors}
        units = {unit for unit, _ in places}
        unit = units.pop() if len(units) == 1 else "place"
        count = f"{len(places)} bad {unit}{'s' if len(places) != 1 else ''}"
        if len(self.errors) != len(places):
            count += f" ({len(self.errors)} problems)"
        lines = "\n".join(f"  {line}" for line in _grouped(self.errors, total))
        super().__init__(f"{path}: {count}; nothing was run\n{lines}")


#: The reason of an unknown field with no likely typo (`jury.cases`): such fields are listed
#: together, and the ``--map`` line that keeps them in metadata is given.
UNKNOWN_FIELD = "unknown field (put extra data under metadata"


def _grouped(errors: Sequence[LineError], total: int | None) -> list[str]:
    groups: dict[tuple[str, str, str], list[int]] = {}
    for error in errors:
        groups.setdefault((error.unit, error.field, error.reason), []).append(error.line)
    unknown: dict[tuple[str, tuple[int, ...]], list[str]] = {}
    out: list[tuple[str, str, list[int]]] = []  # (unit, text, lines)
    for (unit, field, reason), numbers in groups.items():
        if reason.startswith(UNKNOWN_FIELD) and field and "." not in field:
            fields = unknown.setdefault((unit, tuple(numbers)), [])
            if not fields:
                out.append((unit, "", numbers))  # its place in the order; filled below
            fields.append(field)
            continue
        out.append((unit, f"{field}: {reason}" if field else reason, numbers))
    lines = []
    for unit, given, numbers in out:
        text = given
        if not text:
            fields = unknown[(unit, tuple(numbers))]
            text = f"unknown field{'s' if len(fields) > 1 else ''} {', '.join(fields)}"
        lines.append(f"{_places(unit, numbers, total)}: {text}")
    kept = sorted({f for fields in unknown.values() for f in fields})
    if kept:
        maps = " ".join(f"--map metadata.{f}={f}" for f in kept)
        lines.append(f"to keep them in metadata, add: {maps} (or a [fields] entry each)")
    return lines


def _places(unit: str, numbers: list[int], total: int | None) -> str:
    if len(numbers) == 1:
        return f"{unit} {numbers[0]}"
    if total is not None and len(set(numbers)) == total:
        return f"on all {total} {unit}s"
    first = ", ".join(str(n) for n in numbers[:5])
    more = ", ..." if len(numbers) > 5 else ""
    return f"on {len(numbers)} {unit}s ({first}{more})"


class JuryFileError(ConfigError):
    """A jury file with bad keys: `problems` lists every (key, reason), the key as a dotted
    path such as ``jurors[1].weight`` (empty for the file as a whole); `key` and `reason` are
    the first's."""

    def __init__(self, path: str, key: str | Sequence[tuple[str, str]], reason: str = "") -> None:
        self.path = path
        self.problems = ((key, reason),) if isinstance(key, str) else tuple(key)
        self.key, self.reason = self.problems[0]
        if len(self.problems) == 1:
            super().__init__(f"{path}: {_keyed(self.key, self.reason)}")
        else:
            lines = "\n".join(f"  {_keyed(k, r)}" for k, r in self.problems)
            super().__init__(f"{path}: {len(self.problems)} bad keys\n{lines}")


def _keyed(key: str, reason: str) -> str:
    return f"{key}: {reason}" if key else reason


class RubricError(ConfigError):
    """A rubric name, file or key that cannot be used."""

    @classmethod
    def from_validation(cls, source: str, exc: ValidationError, model: type[BaseModel]) -> Self:
        """Every bad key of a rubric file that failed `model`'s validation, named."""
        from ._problems import problems

        found = problems(exc, model)
        if len(found) == 1:
            return cls(f"{source}: {_keyed(*found[0])}")
        lines = "\n".join(f"  {_keyed(k, r)}" for k, r in found)
        return cls(f"{source}: {len(found)} bad keys\n{lines}")


class MissingCredentialError(ConfigError):
    """A provider's credential variable is not set."""

    def __init__(self, provider: str, variable: str) -> None:
        self.provider = provider
        self.variable = variable
        super().__init__(f"{provider}: set {variable} to use this provider")


class RunRecordError(ConfigError):
    """A run directory that cannot be read; `errors` lists every bad line."""

    def __init__(self, path: str, reason: str, errors: tuple[LineError, ...] = ()) -> None:
        self.path = path
        self.errors = errors
        lines = "".join(f"\n  {e}" for e in errors)
        super().__init__(f"{path}: {reason}{lines}")


class RunLockedError(ConfigError):
    """Another process is writing the run directory; `holder` says who, when it could tell."""

    def __init__(self, run: Path, holder: dict[str, Any]) -> None:
        self.run = run
        self.holder = holder
        who = "another jury run"
        if holder.get("pid"):
            who += f" (pid {holder['pid']} on {holder.get('host', '?')}"
            who += f", since {holder.get('started', '?')}"
            who += f": {holder['command']})" if holder.get("command") else ")"
        else:
            who += " (it has not yet written which process it is)"
        super().__init__(
            f"{run}: {who} is writing this run; wait for it to end, or choose another --out"
        )


class LabelsFileError(ConfigError):
    """A labels file that cannot be used; `problems` names every bad line ("FILE:LINE: ...")."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = tuple(problems)
        super().__init__("bad labels file:\n  " + "\n  ".join(self.problems))


class LabelsLockedError(ConfigError):
    """Another `jury label` holds the labels file: one writer per file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        super().__init__(
            f"{path}: another `jury label` is writing this labels file; close it first, "
            "or give this one another --labels FILE"
        )


class MergeError(ConfigError):
    """Shards that are not one run cut in pieces; every problem is listed."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = tuple(problems)
        lines = "".join(f"\n  {p}" for p in problems)
        super().__init__(
            f"cannot merge: {len(problems)} problem{'s' * (len(problems) != 1)}{lines}"
        )


class ProviderError(JuryError):
    """One judge call failed. Subclasses say whether the engine may try again."""

    #: HTTP status when the failure came from one.
    status: int | None

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class TransientError(ProviderError):
    """Worth another attempt: connection, timeout, 408, 409, 5xx, overloaded."""


class RateLimitedError(TransientError):
    """429. `retry_after` is the server's requested delay in seconds, when it gave one;
    `rate_limits` the rate-limit headers that came with it (the account limiter learns the
    account's rate from them)."""

    def __init__(
        self,
        message: str,
        *,
        retry_after: float | None = None,
        status: int | None = 429,
        rate_limits: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message, status=status)
        self.retry_after = retry_after
        self.rate_limits = rate_limits


class UnreachableError(TransientError):
    """No connection to the server at all: refused, a host that does not resolve, a connection
    dropped before any reply. Retried like any transient error; a model whose first calls all
    end so is `JurorUnusable`."""


class InvalidRequestError(ProviderError):
    """The provider refused the request itself (400, 404, 422): trying again cannot help."""


class SettingRefusedError(InvalidRequestError):
    """The server refused a setting of the request and named it (OpenAI's ``param``, a
    validation error's location, the field in its message), whatever the status: the same
    request is refused every time, so it is never retried. `setting` is the request field;
    `fix` what to change so that the server takes it, when the adapter knows."""

    def __init__(
        self, message: str, *, setting: str, fix: str | None = None, status: int | None = None
    ) -> None:
        super().__init__(message, status=status)
        self.setting = setting
        self.fix = fix


class AccountError(ProviderError):
    """Every call on this account would fail the same way, so the run stops (exit 2) and
    says why: its `cause` in a few words, for the CLI's message."""

    cause = "the provider account cannot serve"


class AuthenticationError(AccountError):
    """401 or 403: the key is missing its rights or wrong; `variable` names where it is set."""

    cause = "authentication failed"

    def __init__(self, message: str, *, variable: str | None = None, status: int | None = None):
        super().__init__(message, status=status)
        self.variable = variable


class QuotaExhaustedError(AccountError):
    """A quota that retrying cannot clear: no credit left (OpenAI ``insufficient_quota``), a
    spend limit reached, a per-day quota used up (a Gemini ``QuotaFailure`` per day)."""

    cause = "the account's quota is used up"


class BatchFailedError(ProviderError):
    """A request that errored or expired in its batches as often as the settings allow: its
    vote is unavailable (never a fail), with what happened to it. `sends`: how many times it
    was sent (each batch it went in is an attempt), which its message says and the call's
    attempts count."""

    def __init__(self, message: str, *, sends: int = 1) -> None:
        super().__init__(message)
        self.sends = sends


class InvalidReply(JuryError):
    """A judge reply that breaks the rubric's reply schema or its rules."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class AgentUnreachable(ConfigError):
    """The agent cannot be reached at all (an HTTP endpoint refusing connections, a host that
    does not resolve). Raised per call, like `AgentError`; when the first calls of a run all
    raise it the run stops with exit 2 naming it, since no case can be answered. A
    `ConfigError`, so code that calls one agent outside a run also sees exit 2."""


class JurorUnusable(ConfigError):
    """A judge model failed for good before any call of it worked in this run: a model name
    the server does not have (404), nothing listening at its base URL, a path the server does
    not serve, a setting it refuses by name, or the same internal error (HTTP 500) on every
    attempt. The
    run stops (exit 2) before it pays for the other cases: no case could have this juror's
    vote, and a jury that silently loses a family is not the jury that was configured.

    `model` is the juror's model, `endpoint` where its calls went, `error` the server's own
    words (the last `ProviderError`), `fix` what to change."""

    def __init__(
        self, model: str, endpoint: str, error: ProviderError, fix: str, *, attempts: int = 1
    ) -> None:
        self.model = model
        self.endpoint = endpoint
        self.error = error
        self.fix = fix
        self.attempts = attempts
        tried = f" (the same on all {attempts} attempts)" if attempts > 1 else ""
        super().__init__(
            f"{model} cannot work, so the run stopped before judging more: its first "
            f"call failed for good\n  {endpoint}: {error}{tried}\n  fix: {fix}\n  "
            "(`jury doctor --jury FILE` asks each juror once and shows its reply)"
        )


class AgentError(JuryError):
    """The agent failed one case: it answered nothing, replied in a shape that cannot be read,
    or too late (the message says which). The system under test broke, unlike a judge: its
    case FAILs at the stage "agent", with this message kept and shown."""


class CallFailed(Exception):
    """A call that failed for good on one model: its last error and the attempts it took."""

    def __init__(self, model: str, error: ProviderError, attempts: int) -> None:
        said = f" (after {attempts} attempt{'s' * (attempts != 1)})"
        if isinstance(error, BatchFailedError):
            said = ""  # it says itself how often it was sent (its attempts): not said twice
        super().__init__(f"{model}: {error}{said}")
        self.error = error
        self.attempts = attempts


class OverBudget(Exception):
    """The run's budget is spent: no new call may start."""
