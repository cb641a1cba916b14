"""What a check is: a named, staged function of a case (synchronous, or async for a check that
asks a model, such as moderation).

A check function returns a `Finding` (made with `passed`, `failed` or `not_applicable`), a
`CheckResult`, a bool (pass / fail) or None (not applicable). `Check` turns any of them into
a `CheckResult` carrying the check's name, stage and whether it is required, and it is the
one place every reason and evidence goes through: both are masked (`jury.checks._pii`) and the
evidence is truncated, so no check, built-in or not, can print a whole secret.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeAlias, cast, overload

from .._verdict import CheckOutcome, CheckResult
from ..cases._case import Case
from ._pii import scrub
from ._settings import Stage

__all__ = [
    "EVIDENCE_CHARS",
    "Check",
    "CheckFunction",
    "Finding",
    "check",
    "clip",
    "failed",
    "not_applicable",
    "passed",
    "unavailable",
]

#: Evidence is cut to this many characters: enough to see the value that decided.
EVIDENCE_CHARS = 120


class Finding(NamedTuple):
    """What a check found, before it is named: outcome, why, and the value that decided."""

    outcome: CheckOutcome
    reason: str = ""
    evidence: str | None = None


def passed(reason: str = "", evidence: str | None = None) -> Finding:
    return Finding(CheckOutcome.PASS, reason, evidence)


def failed(reason: str, evidence: str | None = None) -> Finding:
    return Finding(CheckOutcome.FAIL, reason, evidence)


def not_applicable(reason: str = "") -> Finding:
    return Finding(CheckOutcome.NOT_APPLICABLE, reason)


def unavailable(reason: str) -> Finding:
    """The check could not run (its model did not answer): neither a pass nor a fail."""
    return Finding(CheckOutcome.UNAVAILABLE, reason)


Found: TypeAlias = Finding | CheckResult | bool | None
CheckFunction: TypeAlias = Callable[[Case], Found] | Callable[[Case], Awaitable[Found]]


def clip(text: str, limit: int = EVIDENCE_CHARS) -> str:
    """`text` cut to `limit` characters, marking the cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _log_crash(name: str, case: Case) -> None:
    import structlog

    structlog.get_logger("jury").exception("check.error", check=name, case=case.id)


@dataclass(frozen=True, slots=True)
class Check:
    """A check, ready to run: ``check(case)`` returns its `CheckResult`.

    `categories` and `skip_categories` say which cases a `CheckSuite` runs it on; called
    directly, it runs on any case.
    """

    name: str
    function: CheckFunction
    stage: Stage = "generation"
    required: bool = True
    categories: frozenset[str] | None = None
    skip_categories: frozenset[str] = frozenset()

    def applies_to(self, case: Case) -> bool:
        if case.category in self.skip_categories:
            return False
        return self.categories is None or case.category in self.categories

    def replace(self, **changes: Any) -> Check:
        return dataclasses.replace(self, **changes)

    @property
    def is_async(self) -> bool:
        """An async check (one that asks a model) is run with ``await check.run(case)``."""
        return inspect.iscoroutinefunction(self.function)

    def __call__(self, case: Case) -> CheckResult:
        if self.is_async:
            raise TypeError(f"{self.name} is an async check: await check.run(case)")
        try:
            # Typed loosely: a user's function may break its annotation at run time.
            found = cast("object", self.function(case))
        except Exception as exc:
            found = self._crashed(case, exc)
        return self._result(found)

    async def run(self, case: Case) -> CheckResult:
        """The result, for an async check or a plain one."""
        if not self.is_async:
            return self(case)
        try:
            found = cast("object", await self.function(case))  # type: ignore[misc]
        except Exception as exc:
            found = self._crashed(case, exc)
        return self._result(found)

    def _crashed(self, case: Case, exc: Exception) -> Finding:
        # A check that crashes is a bug in the check, but reading it as "not applicable"
        # would let a gate pass unchecked: it fails, saying why.
        _log_crash(self.name, case)
        return failed(f"the check raised {type(exc).__name__}: {exc}")

    def _result(self, found: object) -> CheckResult:
        model, calls = None, None
        if isinstance(found, Finding):
            outcome, reason, evidence = found
        elif isinstance(found, CheckResult):
            outcome, reason, evidence = found.outcome, found.reason, found.evidence
            model, calls = found.model, found.calls
        elif found is None:
            outcome, reason, evidence = CheckOutcome.NOT_APPLICABLE, "", None
        elif isinstance(found, bool):
            outcome, reason, evidence = (
                CheckOutcome.PASS if found else CheckOutcome.FAIL,
                "",
                None,
            )
        else:
            outcome, reason, evidence = (
                CheckOutcome.FAIL,
                f"the check returned {type(found).__name__}, not a Finding, bool or None",
                None,
            )
        return CheckResult(
            name=self.name,
            outcome=outcome,
            reason=scrub(reason) if reason else "",
            evidence=clip(scrub(evidence)) if evidence else evidence,
            stage=self.stage,
            required=self.required,
            model=model,
            calls=calls,
        )


@overload
def check(function: CheckFunction, /) -> Check: ...


@overload
def check(
    *,
    name: str | None = None,
    stage: Stage = "generation",
    required: bool = True,
    categories: tuple[str, ...] | None = None,
    skip_categories: tuple[str, ...] = (),
) -> Callable[[CheckFunction], Check]: ...


def check(
    function: CheckFunction | None = None,
    /,
    *,
    name: str | None = None,
    stage: Stage = "generation",
    required: bool = True,
    categories: tuple[str, ...] | None = None,
    skip_categories: tuple[str, ...] = (),
) -> Check | Callable[[CheckFunction], Check]:
    """Make a function of a case into a `Check` (named after the function by default)::

        @check(stage="generation", required=False)
        def states_a_date(case: Case) -> bool:
            return bool(DATE.search(case.answer or ""))

    Pass the result to `CheckSuite.from_settings(extra=[...])`, or name it in the jury file
    (``[[checks.custom]] function = "my_checks:states_a_date"``).
    """

    def make(fn: CheckFunction) -> Check:
        return Check(
            name=name or str(getattr(fn, "__name__", type(fn).__name__)),
            function=fn,
            stage=stage,
            required=required,
            categories=frozenset(categories) if categories is not None else None,
            skip_categories=frozenset(skip_categories),
        )

    return make(function) if function is not None else make
