"""The HTML and JUnit reports of a recorded run: content, escaping, schema, and a real browser."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from html import unescape
from pathlib import Path

import pytest
from browser import browser_page, chromium
from extras import needs
from report_run import ATTACK, CASES, record_run

from jury.cli import main

XSD = Path(__file__).parents[1] / "junit" / "junit.xsd"


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    return record_run(tmp_path / "run", tmp_path / "cases.jsonl")


@needs("test")
def test_junit_validates_and_maps_verdicts(run_dir: Path) -> None:
    import xmlschema

    text = (run_dir / "junit.xml").read_text(encoding="utf-8")
    xmlschema.XMLSchema(XSD).validate(text)  # raises on any violation
    root = ET.fromstring(text)
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("7", "3", "2")
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert set(cases) == {c.id for c in CASES}
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


@needs("test")
def test_junit_schema_rejects_a_broken_file() -> None:
    import xmlschema

    # The schema is strict enough to catch what a CI parser would choke on.
    schema = xmlschema.XMLSchema(XSD)
    assert not schema.is_valid('<testsuites><testsuite name="x"/></testsuites>')
    assert not schema.is_valid(
        '<testsuites><testsuite name="x" tests="1" failures="0" errors="0">'
        '<testcase classname="c"/></testsuite></testsuites>'
    )


def _card(html: str, case_id: str) -> str:
    """The HTML of one case's card."""
    start = html.index(f'<article class="case" id="case-{case_id}"')
    return html[start : html.index("</article>", start)]


def test_html_escapes_case_text_and_allows_only_its_own_script(run_dir: Path) -> None:
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    # One script and one style sheet, the page's own, each allowed by its hash and nothing else.
    scripts = re.findall(r"<script>(.*?)</script>", html, re.S)
    styles = re.findall(r"<style>(.*?)</style>", html, re.S)
    assert len(scripts) == 1
    assert len(styles) == 1
    assert html.count("<script") == 1
    found = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', html)
    assert found is not None
    policy = unescape(found.group(1))
    for kind, text in (("script", scripts[0]), ("style", styles[0])):
        digest = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
        assert f"{kind}-src 'sha256-{digest}';" in policy
    assert "default-src 'none'" in policy
    assert "unsafe-inline" not in policy
    assert " style=" not in html  # an inline style attribute would be refused by the policy
    # The attack is text.
    assert "&lt;script&gt;window.__pwned" in html
    assert "onerror=" not in html.replace("onerror=&#34;", "")
    # No external asset: nothing is fetched from anywhere.
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "url(" not in html
    for text in ("Gate FAILED", "bad-answer", "b: the refund date is wrong", "quorum not met"):
        assert text in html
    assert "jurors split" in html
    assert "Cohen's kappa between each pair of jurors" in html


def test_repeated_judge_errors_are_listed_once(run_dir: Path) -> None:
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    errors = html[html.index('id="errors"') : html.index('<section id="cases">')]
    # Jurors b and c were down on two cases: one error, counted, not four copies of it.
    assert "2 jurors × 2 cases (unavailable)" in errors
    assert html.count("503 overloaded") == 1
    # Each of those votes, and the verdict's reasons that name them, point at the listing.
    for case_id in ("down", "down-2"):
        card = _card(html, case_id)
        assert card.count('href="#error-1">judge error 1</a>') == 2 + 2
        assert "scripted/b unavailable: <a" in card


def test_a_card_shows_the_texts_and_reasons_before_the_checks(run_dir: Path) -> None:
    card = _card((run_dir / "report.html").read_text(encoding="utf-8"), "no-tool")
    reasons, answer = card.index('class="reasons"'), card.index('class="text answer"')
    checks = card.index('class="checks"')
    assert reasons < answer < checks
    # The failed check in full; the passed ones by name; those that did not apply folded away.
    failed = card[card.index('class="failed-checks"') : card.index("</table>", checks)]
    assert "tool_choice" in failed
    assert "answer_present" not in failed
    assert "✓ passed: " in card
    folded = card[card.index('<details class="na">') :]
    assert "not applicable" in folded
    assert "source" in folded


def test_each_vote_links_to_the_exact_prompt_its_juror_saw(run_dir: Path) -> None:
    from jury import load_rubric

    html = (run_dir / "report.html").read_text(encoding="utf-8")
    rubric = load_rubric("five-metric")
    for case_ in CASES:
        if case_.id == "no-tool":  # judges spared: no vote, no link
            continue
        card = _card(html, case_.id)
        assert card.count(f'href="#prompt-{case_.id}"') == 3
        start = html.index(f'<details class="prompt" id="prompt-{case_.id}">')
        block = html[start : html.index("</details>", start)]
        shown = re.findall(r'<pre class="text">(.*?)</pre>', block, re.S)
        assert [unescape(text) for text in shown] == [p.user for p in rubric.prompts(case_)]
        # The system text, shared by every case, is shown once, as sent.
        link = re.search(r'system text <a href="#(system-[0-9a-f]+)">', block)
        assert link is not None
        start = html.index(f'<details class="prompt" id="{link.group(1)}">')
        text = re.search(r'<pre class="text">(.*?)</pre>', html[start:], re.S)
        assert text is not None
        assert unescape(text.group(1)) == rubric.prompts(case_)[0].system


def test_report_agreement_is_what_jury_agreement_prints(
    run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["agreement", str(run_dir), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    table = html[
        html.index('id="agreement-metrics"') : html.index(
            "</table>", html.index('id="agreement-metrics"')
        )
    ]
    rows = {
        cells[0]: cells
        for cells in (re.findall(r"<td[^>]*>(.*?)</td>", row) for row in table.split("<tr>")[2:])
    }
    for name, result in (*data["metrics"].items(), ("verdict", data["verdict"])):
        alpha = result["alpha"]
        text = "undefined"
        if alpha["value"] is not None:
            text = f"{alpha['value']:.3f} [{alpha['low']:.2f}, {alpha['high']:.2f}]"
            assert alpha["resamples"] == 1000
        assert rows[name][2] == text
        assert rows[name][6] == str(alpha["units"])
        # The page computes them without NumPy (issue 36): the same figures all the same.
        for column, key in ((3, "fleiss_kappa"), (4, "gwet_ac1")):
            value = result[key]["value"]
            assert rows[name][column] == ("undefined" if value is None else f"{value:.3f}")
        percent = result["percent_agreement"]["value"]
        assert unescape(rows[name][5]) == ("-" if percent is None else f"{percent:.1%}")
    matrix = html[html.index("</table>", html.index('id="agreement-metrics"')) :]
    cells = data["verdict"]["pairwise"]["cells"]
    for a, row in cells.items():
        for b, kappa in row.items():
            shown = "undefined" if kappa["value"] is None else f"{kappa['value']:.3f}"
            title = kappa["reason"] or f"n = {kappa['units']} cases"
            assert f'title="{title}">{shown}<' in unescape(matrix), (a, b)


pytestmark_browser = pytest.mark.skipif(
    chromium() is None,
    reason="chromium is not installed (.ci/run installs Debian's chromium when run as root)",
)


def _png_width(path: Path) -> int:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big")


@needs("test")  # websockets drives the browser
@pytestmark_browser
async def test_the_report_is_explored_in_a_real_browser(
    run_dir: Path, tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    async def visible() -> list[str]:
        ids = await page.evaluate(
            "[...document.querySelectorAll('#case-list > article')]"
            ".filter(a => !a.hidden && a.offsetHeight > 0).map(a => a.dataset.sId)"
        )
        return list(ids)

    async with browser_page(run_dir / "report.html") as page:
        # Failures first, then inconclusive, then passed.
        assert await visible() == [
            "bad-answer", "no-tool", "weak", "down", "down-2", "good", "xss"
        ]  # fmt: skip
        assert await page.evaluate("document.getElementById('shown').textContent") == (
            "Showing 7 of 7 cases"
        )
        # The pass rate is shown with its interval, the run's and each category's.
        gate = await page.evaluate("document.getElementById('gate').innerText")
        assert "(95% Wilson " in gate
        bands = await page.evaluate(
            "[...document.querySelectorAll('#categories td.interval')]"
            ".filter(td => td.offsetWidth > 0).map(td => td.textContent)"
        )
        assert bands
        assert all(re.fullmatch(r"\d+\.\d–\d+\.\d%", band) for band in bands)
        await page.click("[data-group=verdict] button[value=INCONCLUSIVE]")
        assert await visible() == ["down", "down-2"]
        await page.click("[data-group=verdict] button[value=FAIL]")
        assert await visible() == ["bad-answer", "no-tool", "weak"]
        assert (
            await page.evaluate(
                "document.querySelector('[data-group=verdict] button[value=FAIL]')"
                ".getAttribute('aria-pressed')"
            )
            == "true"
        )
        await page.click("#f-disagreement")
        assert await visible() == ["bad-answer"]
        await page.click("#f-reset")
        assert len(await visible()) == 7
        await page.select("#f-category", "tools")
        assert await visible() == ["no-tool", "down", "down-2", "xss"]
        await page.click("#f-reset")
        # A juror's vote: where b was unavailable; where b dissented.
        await page.select("#f-juror", "scripted/b")
        await page.select("#f-vote", "unavailable")
        assert await visible() == ["down", "down-2"]
        await page.select("#f-vote", "dissent")
        assert await visible() == []
        assert not await page.evaluate("document.getElementById('none').hidden")
        await page.select("#f-juror", "scripted/a")
        assert await visible() == ["bad-answer"]
        await page.click("#f-reset")
        await page.type("#f-search", "refund DATE")
        assert await visible() == ["bad-answer"]
        await page.type("#f-search", "")
        await page.select("#f-sort", "id")
        assert await visible() == sorted(c.id for c in CASES)
        await page.select("#f-sort", "order")
        # The summary's tiles are shortcuts to the filters.
        await page.click("a.tile[data-set='verdict=INCONCLUSIVE']")
        assert await visible() == ["down", "down-2"]
        # A vote's prompt link opens the prompt, even under a filter that hides its case.
        await page.click("#f-reset")
        await page.click("#case-bad-answer .prompt-link")
        assert await page.evaluate("document.getElementById('prompt-bad-answer').open")
        assert (
            await page.evaluate(
                "document.getElementById('prompt-bad-answer').getBoundingClientRect().top"
            )
            < 900
        )
        await page.click("#case-down .vote-reason a")
        assert await page.evaluate("location.hash") == "#error-1"
        # The attack is inert text, and the policy refuses any script but the page's own.
        assert await page.evaluate("typeof window.__pwned") == "undefined"
        assert "pwned" not in await page.evaluate("document.title")
        answer = await page.evaluate("document.querySelector('#case-xss .answer').textContent")
        assert answer == ATTACK
        assert page.errors == []
        # Screenshots, for a person to look at (their paths are in the test report).
        await page.navigate((run_dir / "report.html").as_uri())
        for width in (1400, 390):
            shot = await page.screenshot(tmp_path / f"report-{width}.png", width)
            assert _png_width(shot) == width
            record_property(f"screenshot-{width}", str(shot))
            # Nothing is wider than the screen: no sideways scrolling of the page.
            assert await page.evaluate("document.documentElement.scrollWidth") <= width
        assert page.errors == []


@needs("test")  # websockets drives the browser
@pytestmark_browser
async def test_the_page_policy_refuses_a_script_that_slipped_in(run_dir: Path) -> None:
    # Were the escaping ever broken, the policy would still refuse the script: simulate it.
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    broken = run_dir / "broken.html"
    broken.write_text(html.replace("</header>", ATTACK + "</header>", 1), encoding="utf-8")
    async with browser_page(broken) as page:
        assert await page.evaluate("typeof window.__pwned") == "undefined"
        assert any("Content Security Policy" in error for error in page.errors)
        # The page's own script still ran.
        assert not await page.evaluate("document.getElementById('controls').hidden")
