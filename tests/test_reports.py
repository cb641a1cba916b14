"""The HTML and JUnit reports of a recorded run: content, escaping, schema, and a real browser."""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import xmlschema
from browser import chromium, open_page

from conftest import case, panel_of, scores, scripted
from jury import JudgeRequest, Jury, TransientError
from jury._records import Redactor, RunRecord, build_manifest, read_verdicts
from jury.report._publish import publish

XSD = Path(__file__).parent / "junit" / "junit.xsd"
ATTACK = (
    '<script>window.__pwned = 1; document.title = "pwned"</script>'
    '<img src=x onerror="window.__pwned = 2">'
)


def _reply(juror: str) -> Any:
    def reply(request: JudgeRequest) -> Any:
        assert request.case is not None
        case_id = request.case.id
        if case_id == "down" and juror != "a":
            return TransientError("503 overloaded")
        if case_id == "bad-answer":
            return scores(5 if juror == "a" else 2, reason=f"{juror}: the refund date is wrong")
        return scores(5, reason=f"{juror}: fine\x01")

    return reply


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    jurors = [scripted(_reply(name), name=f"scripted/{name}") for name in ("a", "b", "c")]
    panel = panel_of(*jurors, retry={"attempts": 1})
    cases = [
        case("good", category="policy"),
        case("bad-answer", category="policy"),
        case("down", category="tools"),
        case("xss", category="tools", answer=ATTACK),
    ]
    cases_file = tmp_path / "cases.jsonl"
    cases_file.write_text("".join(c.model_dump_json() + "\n" for c in cases))
    jury = Jury(panel)
    manifest = build_manifest(
        run_id="r",
        panel=panel,
        rubric=jury.rubric,
        cases_path=cases_file,
        cases_count=len(cases),
        prompts={},
        jury_file=None,
        cache=None,
        redact_patterns=(),
    )
    path = tmp_path / "run"

    async def judge() -> None:
        with RunRecord.create(path, manifest, cases, Redactor()) as record:
            async with jury:
                async for verdict in jury.evaluate(cases):
                    record.append(verdict)

    import asyncio

    asyncio.run(judge())
    publish(path, panel, jury.rubric.name, jurors=jury.jurors, stream=io.StringIO())
    return path


def test_junit_validates_and_maps_verdicts(run_dir: Path) -> None:
    text = (run_dir / "junit.xml").read_text(encoding="utf-8")
    xmlschema.XMLSchema(XSD).validate(text)  # raises on any violation
    root = ET.fromstring(text)
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("4", "1", "1")
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert set(cases) == {"good", "bad-answer", "down", "xss"}
    failure = cases["bad-answer"].find("failure")
    assert failure is not None
    assert "correctness 2 < 4" in (failure.get("message") or "")
    assert "b: the refund date is wrong" in (failure.text or "")
    error = cases["down"].find("error")
    assert error is not None
    assert error.get("type") == "INCONCLUSIVE"
    assert "quorum not met" in (error.get("message") or "")
    assert cases["good"].find("failure") is None
    properties = {p.get("name"): p.get("value") for p in cases["bad-answer"].iter("property")}
    assert properties["verdict"] == "FAIL"
    assert properties["juror.scripted/a"] == "PASS"
    assert properties["juror.scripted/b"] == "FAIL"
    assert properties["juror.scripted/b.correctness"] == "2"
    assert properties["metric.correctness"] == "2"
    # The control character a judge put in its reason cannot break the XML.
    assert "\x01" not in text


def test_junit_schema_rejects_a_broken_file() -> None:
    # The schema is strict enough to catch what a CI parser would choke on.
    schema = xmlschema.XMLSchema(XSD)
    assert not schema.is_valid('<testsuites><testsuite name="x"/></testsuites>')
    assert not schema.is_valid(
        '<testsuites><testsuite name="x" tests="1" failures="0" errors="0">'
        '<testcase classname="c"/></testsuite></testsuites>'
    )


def test_html_escapes_case_text_and_is_self_contained(run_dir: Path) -> None:
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    assert "<script" not in html
    assert "&lt;script&gt;window.__pwned" in html
    assert "onerror=" not in html.replace("onerror=&#34;", "")
    # No external asset: nothing is fetched from anywhere.
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "url(" not in html
    assert "default-src 'none'" in html
    for text in ("Gate FAILED", "bad-answer", "b: the refund date is wrong", "quorum not met"):
        assert text in html
    # Disagreement on bad-answer, with the dissenting reasons.
    assert "jurors split" in html
    assert "Cohen's kappa between each pair of jurors" in html


def test_report_agreement_is_jury_agreement_on_valid_votes_only(run_dir: Path) -> None:
    from jury.agreement import VERDICT, Ratings, cohen_kappa

    html = (run_dir / "report.html").read_text(encoding="utf-8")
    verdicts = read_verdicts(run_dir)
    ratings = Ratings.from_verdicts(verdicts, VERDICT)
    # "down": b and c unavailable there, so only good, bad-answer and xss are rated by both.
    for a, b in (("scripted/a", "scripted/b"), ("scripted/b", "scripted/c")):
        kappa = cohen_kappa(ratings.select([a, b]))
        assert kappa.units == 3
        cell = "undefined" if kappa.value is None else f"{kappa.value:.2f}"
        assert re.search(rf'title="(n = 3 cases|[^"]*)">{re.escape(cell)}</td>', html), cell


@pytest.mark.skipif(
    chromium() is None,
    reason="chromium is not installed (.ci/run installs Debian's chromium when run as root)",
)
def test_report_in_headless_chromium(run_dir: Path) -> None:
    page = open_page(
        run_dir / "report.html",
        [
            "typeof window.__pwned",
            "document.title",
            "document.querySelectorAll('script').length",
            "document.querySelector('#case-xss .answer').textContent",
            "document.querySelector('#gate').textContent",
            "document.querySelector('#failed').parentElement.innerText.includes('bad-answer')",
            "getComputedStyle(document.querySelector('#case-bad-answer')).display",
        ],
    )
    assert page.errors == []
    values = page.values
    assert values["typeof window.__pwned"] == "undefined"
    assert "pwned" not in values["document.title"]
    assert values["document.querySelectorAll('script').length"] == 0
    assert values["document.querySelector('#case-xss .answer').textContent"] == ATTACK
    assert "Gate FAILED" in values["document.querySelector('#gate').textContent"]
    assert values[
        "document.querySelector('#failed').parentElement.innerText.includes('bad-answer')"
    ]
    assert values["getComputedStyle(document.querySelector('#case-bad-answer')).display"] != "none"
