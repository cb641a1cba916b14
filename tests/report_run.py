"""A recorded run for the report tests: scripted jurors a, b and c on cases that reach every
part of a report (a pass, a split jury, judges down, an answer that attacks the page, a
unanimous fail, a failed check that spares the judges)."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from conftest import case, panel_of, scores, scripted
from jury import Case, Jury, Panel
from jury.adapters import JudgeRequest, Rubric, TransientError
from jury.checks import CheckSuite
from jury.report._publish import print_published, publish
from jury.runs._records import Redactor, RunRecord, build_manifest, prompt_hashes

ATTACK = (
    '<script>window.__pwned = 1; document.title = "pwned"</script>'
    '<img src=x onerror="window.__pwned = 2">'
)


def _reply(juror: str) -> Any:
    def reply(request: JudgeRequest) -> Any:
        assert request.case is not None
        case_id = request.case.id
        if case_id.startswith("down") and juror != "a":
            return TransientError("503 overloaded")
        if case_id == "bad-answer":
            return scores(5 if juror == "a" else 2, reason=f"{juror}: the refund date is wrong")
        if case_id == "weak":
            return scores(3, reason=f"{juror}: vague about the date")
        return scores(5, reason=f"{juror}: fine\x01")

    return reply


#: The report's cases: a pass, a split jury (disagreement), two cases whose judges b and c are
#: down (inconclusive: one error for 2 jurors x 2 cases), an answer that attacks the page, a
#: unanimous fail, and a failed check that spares the judges.
CASES = [
    case("good", category="policy"),
    case("bad-answer", category="policy"),
    case("down", category="tools"),
    case("down-2", category="tools"),
    case("xss", category="tools", answer=ATTACK),
    case("weak", category="policy"),
    case("no-tool", category="tools", expected_tool="getOrderStatus"),
]


def record_run(
    path: Path,
    cases_file: Path,
    cases: Sequence[Case] = CASES,
    *,
    reply: Callable[[str], Any] = _reply,
    rubric: Rubric | None = None,
    stream: io.StringIO | None = None,
    judge_all: bool = False,
    panel: Panel | None = None,
) -> Path:
    """Judge `cases` with jurors a, b and c (`reply` makes each one's replies), or with
    `panel`'s, record the run in `path` and publish its reports (the terminal's into
    `stream`)."""
    jurors = [scripted(reply(name), name=f"scripted/{name}") for name in ("a", "b", "c")]
    # No cool-down: a juror that fails here is asked again at once (the second chance is
    # tests/engine/test_second_chance.py's), not after 30 real seconds.
    panel = panel or panel_of(*jurors, retry={"attempts": 1, "cool_down": 0})
    cases_file.write_text("".join(c.model_dump_json() + "\n" for c in cases))
    checks = CheckSuite.from_settings(panel.checks)
    jury = Jury(panel, checks=checks, rubric=rubric, judge_all=judge_all)
    manifest = build_manifest(
        run_id=path.name,
        panel=panel,
        rubric=jury.rubric,
        cases_path=cases_file,
        cases_count=len(cases),
        prompts=prompt_hashes(jury.rubric, cases),
        jury_file=None,
        cache=None,
        redact_patterns=(),
    )

    async def judge() -> None:
        with RunRecord.create(path, manifest, cases, Redactor()) as record:
            async with jury:
                async for verdict in jury.evaluate(cases):
                    record.append(verdict)

    asyncio.run(judge())
    published = publish(path, panel, jury.rubric.name, jurors=jury.jurors)
    print_published(published, stream or io.StringIO())
    return path
