"""A conversation in the reports: the HTML case card shows every turn in order (role, content,
tool calls with arguments and results, errors marked), which turn each per-turn vote judged,
folds a long conversation, and keeps a turn's text inert; the terminal's failure list says it
in one line. Checked in the page's markup and in a real browser at phone width."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from browser import browser_page, chromium
from extras import needs
from report_run import record_run

from conftest import scores
from jury import Case, load_rubric
from jury.adapters import JudgeRequest

ROOT = Path(__file__).parents[2]

#: Text in a turn that tries to close the card and run a script.
INJECTION = (
    "</pre></li></ol></details></article><script>window.__pwned = 3</script>"
    '<img src=x onerror="window.__pwned = 4">'
)


CHAT = Case.model_validate(
    {
        "id": "chat",
        "category": "booking",
        "golden_answer": "Booked for Friday at 8pm.",
        "messages": [
            {"role": "system", "content": "You are Lume's booking agent."},
            {"role": "user", "content": "Book a table for 2 on Friday. " + INJECTION},
            {"role": "assistant", "content": "Which time on Friday?"},
            {"role": "user", "content": "8pm, a very long note: " + "x" * 400},
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "name": "check_availability",
                        "arguments": {"day": "Fri", "note": "<b>8pm</b>"},
                        "result": {"available": True},
                    },
                    {"name": "book_table", "arguments": {"day": "Fri"}, "error": "fully booked"},
                ],
            },
            {"role": "assistant", "content": "Booked for Friday at 8pm."},
        ],
    }
)
LONG = Case.model_validate(
    {
        "id": "long",
        "category": "booking",
        "messages": [
            {"role": role, "content": f"{role} {n}"}
            for n in range(1, 8)
            for role in ("user", "assistant")
        ],
    }
)
PLAIN = Case.model_validate({"id": "plain", "question": "Open on Sunday?", "answer": "Yes."})


def _reply(juror: str) -> Any:
    """Jurors who find turn 3 of the chat and turn 12 of the long one irrelevant."""

    def reply(request: JudgeRequest) -> Any:
        assert request.case is not None
        low = {"chat": "turn3", "long": "turn12"}.get(request.case.id)
        head = request.prompt.split("/")[0]
        if head == low:
            return scores(5, relevance=2, reason=f"{juror}: asks instead of booking")
        return scores(5, reason=f"{juror}: fine for {head}")

    return reply


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    tmp = tmp_path_factory.mktemp("conversation")
    text = (ROOT / "rubrics" / "builtin" / "five-metric.toml").read_text()
    rubric = tmp / "five-metric-turn.toml"
    rubric.write_text(f'scope = "turn"\n{text}')
    out = io.StringIO()
    run = record_run(
        tmp / "run",
        tmp / "cases.jsonl",
        [CHAT, LONG, PLAIN],
        reply=_reply,
        rubric=load_rubric(str(rubric)),
        stream=out,
        judge_all=True,  # the chat's failed tool call would spare the judges
    )
    return run, out.getvalue()


def _card(html: str, case_id: str) -> str:
    start = html.index(f'<article class="case" id="case-{case_id}"')
    return html[start : html.index("</article>", start)]


def _turn(card: str, number: int) -> str:
    start = card.index(f'data-turn="{number}"')
    return card[start : card.index("</li>\n", start)]


def test_the_card_shows_every_turn_in_order_with_its_tools(recorded: tuple[Path, str]) -> None:
    html = (recorded[0] / "report.html").read_text(encoding="utf-8")
    card = _card(html, "chat")
    roles = re.findall(r'<li class="turn (\w+)[^"]*" data-turn="(\d+)">', card)
    assert roles == [
        ("system", "1"), ("user", "2"), ("assistant", "3"),
        ("user", "4"), ("assistant", "5"), ("assistant", "6"),
    ]  # fmt: skip
    # After the question and answer, before the votes; open (a short conversation).
    assert card.index('class="text answer"') < card.index('class="conversation"')
    assert card.index('class="conversation"') < card.index("<h3>Votes</h3>")
    assert card.index("<h3>Votes</h3>") < card.index('<div class="checks">')
    assert '<details class="conversation" open>' in card
    assert "6 turns, 2 tool calls" in card
    tools = _turn(card, 5)
    assert "→ check_availability" in tools
    assert unescape(tools).count('{"day": "Fri", "note": "<b>8pm</b>"}') == 1
    assert '<div class="tool-result">← <code>{&#34;available&#34;: true}</code>' in tools
    # The failed tool call is marked, and makes its turn a failing one.
    assert '<div class="tool-call errored"><span class="tool-name">→ book_table' in tools
    assert "✗ error: <code>fully booked</code>" in tools
    assert '<li class="turn assistant failed" data-turn="5">' in card
    assert "x" * 400 in _turn(card, 4)  # said in full (the box scrolls)
    # A case that is not a conversation has no such block.
    assert 'class="conversation"' not in _card(html, "plain")


def test_each_per_turn_vote_shows_the_turn_it_judged(recorded: tuple[Path, str]) -> None:
    card = _card((recorded[0] / "report.html").read_text(encoding="utf-8"), "chat")
    assert "judged turns 3, 6" in card
    assert "failing turns 3, 5" in card
    asked = _turn(card, 3)
    assert '<span class="tag cat">judged</span>' in asked
    assert '<span class="chip-fail">relevance 2</span>' in asked
    for juror in "abc":
        assert f'scripted/{juror}</span> <span class="chips">relevance 2 · ' in asked
        assert f"{juror}: asks instead of booking" in asked
    last = _turn(card, 6)
    assert '<span class="">relevance 5</span>' in last
    assert "a: fine for turn6" in last
    assert "asks instead of booking" not in last
    # Turns nobody judged (the user's, the tool-only step) carry no votes.
    assert "turn-judged" not in _turn(card, 2) + _turn(card, 5)


def test_a_turn_cannot_inject_markup(recorded: tuple[Path, str]) -> None:
    html = (recorded[0] / "report.html").read_text(encoding="utf-8")
    assert "<script>window.__pwned" not in html
    assert 'onerror="window' not in html
    turn = _turn(_card(html, "chat"), 2)
    assert "&lt;/pre&gt;&lt;/li&gt;&lt;/ol&gt;&lt;/details&gt;&lt;/article&gt;&lt;script" in turn
    assert "&lt;b&gt;8pm&lt;/b&gt;" in _turn(_card(html, "chat"), 5)


def test_a_long_conversation_opens_folded_and_says_what_it_holds(
    recorded: tuple[Path, str],
) -> None:
    card = _card((recorded[0] / "report.html").read_text(encoding="utf-8"), "long")
    assert '<details class="conversation">' in card
    assert "14 turns · judged turns 2, 4, 6, 8, 10, 12, 14" in card
    assert "failing turn 12</span>" in card
    # Seven judged turns of five metrics each: the heading names the one that failed.
    heading = card[: card.index("</summary>")]
    assert '<span class="chip-fail">turn12.relevance 2</span> · 34 more metrics not failed' in (
        heading
    )
    assert "turn2.relevance" not in heading


def test_the_terminal_failure_list_says_it_in_one_line(recorded: tuple[Path, str]) -> None:
    out = recorded[1]
    failed = out[out.index("Failed (2)") :]
    assert (
        "  chat [booking]  (failed at tool argument)\n"
        "      conversation: 6 turns, 2 tool calls (1 errored); failing turns 3, 5\n"
    ) in failed
    assert "conversation: 14 turns; failing turn 12\n" in failed
    assert "      turn 12: relevance 2 < 4" in failed
    assert "plain" not in failed.split("Disagreement")[0]


@needs("test")  # websockets drives the browser
@pytest.mark.skipif(chromium() is None, reason="chromium is not installed")
async def test_the_turns_are_shown_in_a_browser_and_fit_a_phone(
    recorded: tuple[Path, str], record_property: Callable[[str, object], None]
) -> None:
    async def shown(case_id: str) -> list[str]:
        numbers = await page.evaluate(
            f"[...document.querySelectorAll('#case-{case_id} li.turn')]"
            ".filter(t => t.checkVisibility()).map(t => t.dataset.turn)"
        )
        return list(numbers)

    async with browser_page(recorded[0] / "report.html") as page:
        await page.viewport(390)
        assert await shown("chat") == ["1", "2", "3", "4", "5", "6"]
        assert await page.evaluate(
            "document.querySelector('#case-chat li[data-turn=\"2\"] pre').textContent"
        ) == ("Book a table for 2 on Friday. " + INJECTION)
        assert await page.evaluate("typeof window.__pwned") == "undefined"
        # The long conversation is folded until its summary is clicked.
        assert await shown("long") == []
        await page.click("#case-long details.conversation > summary")
        assert len(await shown("long")) == 14
        # Nothing is wider than a phone's screen, even the 400-character word and the tools.
        assert await page.evaluate("document.documentElement.scrollWidth") <= 390
        wide = await page.evaluate(
            "[...document.querySelectorAll('li.turn, li.turn *')]"
            ".filter(e => e.getBoundingClientRect().right > 390).length"
        )
        assert wide == 0
        assert page.errors == []
        # For a person to look at (the path is in the test report).
        await page.click("#case-long details.conversation > summary")
        shot = await page.screenshot(recorded[0].parent / "conversation-390.png", 390)
        record_property("screenshot-390", str(shot))
