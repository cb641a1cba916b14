"""Acceptance: a jury file seating one model twice, with two strategies, run by `jury run`
against the strict fake provider server. The two seats send different pinned prompts, the
family warning names one family, and what the strategy seat wrote before its verdict is in
the records, the tokens and the HTML card."""

from __future__ import annotations

import asyncio
import html
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import browser_page, chromium
from extras import needs

from jury.cli import main
from jury.testing import LoggedRequest, valid_reply
from served import ServerThread

MODEL = "gpt-4.1-mini-2025-04-14"
GOLDEN = Path(__file__).parent.parent / "golden"
JURY = f"""\
rubric = "five-metric"

[[jurors]]
model = "openai/{MODEL}"

[[jurors]]
model = "openai/{MODEL}"
strategy = "metrics_reference"
"""
QUESTIONS = "Does it say ORD-102 can be returned?\nDoes it give the 30-day window?"
OWN_ANSWER = "Yes: delivered 20 days ago, inside the 30-day window."


def judge(request: LoggedRequest) -> dict[str, Any]:
    reply = valid_reply(request.schema)
    if "questions" in reply:
        reply["questions"] = QUESTIONS
        reply["own_answer"] = OWN_ANSWER
    return reply


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[ServerThread]:
    thread = ServerThread()
    thread.server.script(MODEL, judge)
    for name, value in thread.server.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("JURY_CACHE_DIR", str(tmp_path / "cache"))
    golden = (GOLDEN / "cases.jsonl").read_text(encoding="utf-8").splitlines()[0]
    (tmp_path / "cases.jsonl").write_text(golden + "\n", encoding="utf-8")
    (tmp_path / "jury.toml").write_text(JURY, encoding="utf-8")
    yield thread
    thread.stop()


def pinned_system(path: Path) -> str:
    """The system text of a golden prompt file (its length is in its header)."""
    text = path.read_text(encoding="utf-8")
    head, rest = text.split("· system (", 1)[1].split("\n", 1)
    return rest[: int(head.split(" ", 1)[0])]


def strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


def test_two_seats_of_one_model_send_their_pinned_prompts_and_record_what_they_wrote(
    served: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    served.server.mark = False  # priced as a real server's replies (the fake's cost $0)
    assert main(["run", "cases.jsonl", "--jury", "jury.toml", "--out", "run"]) == 0
    err = capsys.readouterr().err
    # One family, named once: the two seats are one model.
    family = [line for line in err.splitlines() if "family" in line]
    assert len(family) == 1
    assert (
        f"jurors openai/{MODEL}, openai/{MODEL}+metrics_reference (seats of one model, "
        f"openai/{MODEL}) are all of the openai family" in family[0]
    )

    asked = [r for r in served.requests if r.model == MODEL]
    assert len(asked) == 2
    systems = [next(s for s in strings(r.body) if s.startswith("You are one judge")) for r in asked]
    assert systems[0] != systems[1]
    folder = "five-metric/return-ord-102"
    plain = pinned_system(next((GOLDEN / "prompts" / folder).glob("*.txt")))
    strategic = pinned_system(
        next((GOLDEN / "strategy-prompts" / folder).glob("*metrics_reference*.txt"))
    )
    assert sorted(systems) == sorted([plain, strategic])
    # The schema the strategy seat asked for puts its fields first, in the protocol's request.
    schemas = [r.schema or {} for r in asked]
    firsts = sorted(list(s["properties"])[:2] for s in schemas)
    assert ["questions", "own_answer"] in firsts

    (line,) = (tmp_path / "run" / "verdicts.jsonl").read_text(encoding="utf-8").splitlines()
    votes = {vote["juror"]: vote for vote in json.loads(line)["votes"]}
    seat = votes[f"openai/{MODEL}+metrics_reference"]
    assert seat["generated"] == {"questions": QUESTIONS, "own_answer": OWN_ANSWER}
    assert "generated" not in votes[f"openai/{MODEL}"]
    assert seat["calls"]["output_tokens"] > votes[f"openai/{MODEL}"]["calls"]["output_tokens"]
    assert seat["calls"]["cost"] > votes[f"openai/{MODEL}"]["calls"]["cost"]

    assert main(["report", "run", "--html", "report.html"]) == 0
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "what it wrote before its verdict" in page
    assert html.escape(OWN_ANSWER) in page
    assert html.escape(QUESTIONS.splitlines()[1]) in page
    # The strategy seat's prompt link names its strategy and leads to its own prompts.
    assert "the prompt it saw (strategy metrics_reference)</a>" in page
    # `jury report` renders them again from the manifest, strategies and all.
    assert "Seats with strategy" in page
    assert "only the rubric" not in page


def snapshot_sections(text: str) -> dict[str, str]:
    """A `jury prompts` file's sections ("answer · system", "answer · user", "answer ·
    schema"), each read by the length its header gives."""
    sections, at = {}, 0
    header = re.compile(r"=== prompt (\S+) · (system|user|schema)[^(]*\((\d+) characters\)\n")
    while (found := header.search(text, at)) is not None:
        start = found.end()
        sections[f"{found.group(1)} · {found.group(2)}"] = text[start : start + int(found.group(3))]
        at = start + int(found.group(3))
    return sections


def shown_text(page: str, key: str) -> str:
    """The text of one of the prompt page's shared texts (a system text, a reply schema)."""
    start = page.index(f'<details class="prompt" id="{key}">')
    found = re.search(r'<pre class="text">(.*?)</pre>', page[start:], re.S)
    assert found is not None
    return html.unescape(found.group(1))


def test_the_prompt_page_shows_each_seat_the_texts_jury_prompts_pins_for_it(
    served: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "cases.jsonl", "--jury", "jury.toml", "--out", "run"]) == 0
    args = ["cases.jsonl", "--jury", "jury.toml", "--snapshot", "pinned"]
    assert main(["prompts", *args]) == 0
    capsys.readouterr()
    page = (tmp_path / "run" / "report.html").read_text(encoding="utf-8")
    seat = f"openai/{MODEL}+metrics_reference"
    pinned = {
        "metrics_reference" in path.name: snapshot_sections(path.read_text("utf-8"))
        for path in (tmp_path / "pinned" / "five-metric").rglob("*.txt")
    }
    # Each vote links to the prompts its seat was sent: the plain seat to the rubric's, the
    # strategy seat to its strategy's, inside the case's prompts.
    links = dict(
        re.findall(r'data-juror="([^"]+)".*?class="prompt-link" href="#([^"]+)"', page, re.S)
    )
    start = page.index(f'id="{links[seat]}"')
    block = page[start : page.index("</div>", start)]
    assert "Seats with strategy" in block
    assert seat in block
    keys = re.findall(
        r'system text <a href="#(system-[0-9a-f]+)">.*?<a href="#(schema-[0-9a-f]+)">', block
    )
    assert len(keys) == 1
    system, schema = keys[0]
    # The very texts `jury prompts --snapshot` pinned for that seat: instructions and fields.
    assert shown_text(page, system) == pinned[True]["answer · system"]
    assert shown_text(page, schema) == pinned[True]["answer · schema"]
    assert shown_text(page, system) != pinned[False]["answer · system"]
    assert links[f"openai/{MODEL}"] == "prompt-return-ord-102"
    # The strategy itself: its source, its instructions and fields, its seat.
    start = page.index('<details class="prompt strategy" id="strategy-metrics_reference">')
    card = html.unescape(page[start : page.index("</details>", start)])
    assert "Source: Zeng et al., " in card
    assert seat in card
    assert "<code>questions</code>" in card
    assert "<code>own_answer</code>" in card


@needs("test")  # websockets drives the browser
@pytest.mark.skipif(chromium() is None, reason="chromium is not installed")
async def test_a_strategy_seats_prompt_link_opens_its_own_texts_in_a_browser(
    served: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The commands run their own event loop: in a thread, beside the test's.
    run = ["run", "cases.jsonl", "--jury", "jury.toml", "--out", "run"]
    assert await asyncio.to_thread(main, run) == 0
    pin = ["prompts", "cases.jsonl", "--jury", "jury.toml", "--snapshot", "pinned"]
    assert await asyncio.to_thread(main, pin) == 0
    capsys.readouterr()
    (path,) = (tmp_path / "pinned").rglob("*metrics_reference*.txt")
    pinned = snapshot_sections(path.read_text("utf-8"))
    seat = f"openai/{MODEL}+metrics_reference"
    async with browser_page(tmp_path / "run" / "report.html") as page:
        await page.click("#case-return-ord-102 summary")  # a passed case opens folded
        await page.click(f'.vote[data-juror="{seat}"] .prompt-link')
        target = await page.evaluate("decodeURIComponent(location.hash.slice(1))")
        assert target.startswith("seat-prompt-return-ord-102")
        # The seat's texts are inside the case's prompts, opened and in view.
        opened = await page.evaluate(
            f"[document.getElementById('{target}').closest('details').open,"
            f" document.getElementById('{target}').getBoundingClientRect().top]"
        )
        assert opened[0] is True
        assert -1 < opened[1] < 900  # scrolled to the top of the view, to the sub-pixel
        await page.click(f"#{target} a[href^='#system-']")
        system = await page.evaluate(
            "document.getElementById(location.hash.slice(1)).querySelector('pre').textContent"
        )
        assert system == pinned["answer · system"]
        assert page.errors == []
