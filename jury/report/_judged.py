"""The cases a run judged, held for its reports while they are in memory (`JudgedCases`)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from .._redact import Redactor
from .._verdict import CaseVerdict, Verdict
from ..cases._case import Case
from ._calibration import Tradeoff

__all__ = ["HTML_CASES", "JudgedCases"]

#: Passing cases the HTML report shows at most (by case ID); every failed and inconclusive
#: case is always shown. A page of tens of thousands of cases is too big for a browser.
HTML_CASES = 2000


class JudgedCases:
    """The cases judged by this process, handed to `publish` while they are still in memory
    (`jury run` adds each with its verdict), so that publishing need not read and parse the
    run's ``cases.jsonl`` again.

    Bounded memory: it keeps what the reports show and no more, as the records keep it
    (redacted). With a page (`page`), the failed and inconclusive cases (at most `limit` of
    them) and the `limit` passing cases first by ID; without one, only the failed and
    inconclusive conversations, whose turns the terminal shows (issue 36: a run without its
    page held up to 4,000 cases it never showed). And each case's label. When that is not
    every case the reports need (a resumed run: cases judged by an earlier process are only
    on disk; more than `limit` failed cases), `publish` reads the cases from the run
    directory instead.
    """

    def __init__(self, redactor: Redactor, limit: int = HTML_CASES, page: bool = True) -> None:
        self.redactor = redactor
        self.limit = limit
        self.page = page
        self.labels: dict[str, tuple[str, Any]] = {}
        self.failing: dict[str, Case] = {}
        self.passing: dict[str, Case] = {}
        self.count = 0
        self.overflow = False
        self._cut: str | None = None

    def add(self, case: Case, verdict: CaseVerdict) -> None:
        self.count += 1
        found = Tradeoff.label(case)
        if found is not None:
            self.labels[case.id] = found
        if verdict.verdict is not Verdict.PASS:
            if len(self.failing) >= self.limit:
                self.overflow = True
                self.failing.clear()
            if not self.overflow and (self.page or case.turns):
                self.failing[case.id] = self._recorded(case)
            return
        if self.page and (self._cut is None or case.id < self._cut):
            self.passing[case.id] = self._recorded(case)
            # Trimmed now and then, not on every case; with little slack, as the cases
            # held are a large page's peak memory (2 x limit was 3.5 MB more at 5,000).
            if len(self.passing) > self.limit + self.limit // 8:
                self._trim()

    def _trim(self) -> None:
        if len(self.passing) <= self.limit:
            return
        ids = sorted(self.passing)
        for case_id in ids[self.limit :]:
            del self.passing[case_id]
        # No case after the last one kept can be among the first `limit` any more.
        self._cut = ids[self.limit - 1]

    def _recorded(self, case: Case) -> Case:
        """The case as ``cases.jsonl`` keeps it: redacted (parsed again only when redaction
        changed something)."""
        data = case.model_dump(mode="json", exclude_unset=True)
        redacted = self.redactor.data(data)
        return case if redacted == data else Case.model_validate(redacted)

    def covers(self, verdicts: int, limit: int) -> bool:
        """Whether these are all the cases the reports of a run of `verdicts` need."""
        return not self.overflow and self.count == verdicts and self.limit >= limit

    def cases(self, ids: Collection[str]) -> dict[str, Case]:
        """Those of the cases `ids` that are held."""
        self._trim()
        held = (self.failing.get(case_id) or self.passing.get(case_id) for case_id in ids)
        return {case.id: case for case in held if case is not None}
