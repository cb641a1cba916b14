"""The labelling page in a real browser (headless Chromium over the DevTools protocol): ten
cases labelled with the keyboard alone, the server killed in the middle and restarted, the
votes hidden until a label is chosen, and the labels file read by calibration."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from browser import Page, browser_page, chromium
from extras import needs
from labelling import label_server, recorded_run

from jury.cli import main

pytestmark = [
    needs("test"),  # websockets drives the browser
    pytest.mark.skipif(
        chromium() is None,
        reason="chromium is not installed (.ci/run installs Debian's chromium when run as root)",
    ),
]

SHOWN = "!document.getElementById('case').hidden && document.getElementById('case-id').textContent"
JURY_SHOWN = (
    "!document.getElementById('jury').hidden && document.querySelectorAll('#votes li').length"
)


def _png_width(path: Path) -> int:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big")


async def _label_one(page: Page, scores: str = "4") -> str:
    """Label the case shown, by keyboard only; its ID."""
    case_id = str(await page.wait_for(SHOWN))
    # The votes are not on the page, not merely hidden, until the label is saved.
    assert await page.evaluate("document.getElementById('jury').hidden")
    assert await page.evaluate("document.querySelectorAll('#votes li').length") == 0
    assert "offline/" not in await page.evaluate("document.body.innerText")
    odd = int(case_id[1:]) % 2 == 1
    await page.press("p" if odd else "f")
    for _ in range(5):  # the five metrics, each digit moving on to the next metric
        await page.press(scores)
    chosen = await page.evaluate("document.querySelectorAll('#fields button.chosen').length")
    assert chosen == 6
    await page.press("Enter")  # save
    assert await page.wait_for(JURY_SHOWN) == 3
    return case_id


async def _next(page: Page, after: str) -> None:
    await page.press("Enter")
    await page.wait_for(
        f"document.getElementById('case-id').textContent !== {json.dumps(after)}"
        " || !document.getElementById('done').hidden"
    )


async def test_ten_cases_are_labelled_by_keyboard_across_a_killed_server(
    tmp_path: Path,
    record_property: Callable[[str, object], None],
    capsys: pytest.CaptureFixture[str],
) -> None:
    run = await asyncio.to_thread(recorded_run, tmp_path)  # `jury run` has its own loop
    labels = tmp_path / "labels.jsonl"
    args = ("--labeller", "ana", "--labels", str(labels))
    seen: list[str] = []
    with label_server(run, *args) as server:
        async with browser_page(server.url) as page:
            for n in range(5):
                seen.append(await _label_one(page))
                if n < 4:
                    await _next(page, seen[-1])
            # Votes shown beside the label just saved: the screenshots to look at.
            wide = await page.screenshot(tmp_path / "label-1400.png", 1400)
            narrow = await page.screenshot(tmp_path / "label-390.png", 390)
            overflow = await page.evaluate("document.documentElement.scrollWidth")
            assert overflow <= 390
            await page.viewport(1400)
            await _next(page, seen[-1])
            sixth = await page.wait_for(SHOWN)
            server.kill()
            # The label being typed when the server died is all that is lost, and it says so.
            await page.press("p")
            for _ in range(5):
                await page.press("3")
            await page.press("Enter")
            error = await page.wait_for(
                "!document.getElementById('error').hidden"
                " && document.getElementById('error').textContent"
            )
            assert error
            assert len(labels.read_text(encoding="utf-8").splitlines()) == 5
            with label_server(run, *args) as again:
                assert "(5 labelled, 5 left)" in again.banner
                await page.navigate(again.url)
                assert await page.wait_for(SHOWN) == sixth
                progress = await page.evaluate("document.getElementById('progress').textContent")
                assert progress.startswith("5 labelled · 5 left")
                for _ in range(5):
                    seen.append(await _label_one(page))
                    await _next(page, seen[-1])
                assert await page.evaluate("!document.getElementById('done').hidden")
            # The one error is the save the dead server refused; no script error and no
            # Content-Security-Policy violation.
            refused = [e for e in page.errors if "ERR_CONNECTION_REFUSED" in e]
            assert len(refused) == 1
            assert [e for e in page.errors if e not in refused] == []
    assert _png_width(wide) == 1400
    assert _png_width(narrow) == 390
    record_property("screenshots", f"{wide} {narrow}")

    lines = [json.loads(line) for line in labels.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 10
    assert sorted(line["case_id"] for line in lines) == sorted(f"c{n}" for n in range(10))
    assert [line["case_id"] for line in lines] == seen
    assert {line["labeller"] for line in lines} == {"ana"}
    assert all(len(line["case_hash"]) == 16 for line in lines)
    assert all(line["labels"]["pass"] is (int(line["case_id"][1:]) % 2 == 1) for line in lines)

    calibrate = ["calibrate", str(run / "cases.jsonl"), "--labels", str(labels)]
    assert await asyncio.to_thread(main, calibrate) in (0, 1)
    out = capsys.readouterr().out
    assert "offline/facts · pass: accuracy" in out
    assert "10/10 rated" in out


async def test_undo_and_back_by_keyboard_reopen_a_case_with_its_votes_hidden_again(
    tmp_path: Path,
) -> None:
    run = await asyncio.to_thread(recorded_run, tmp_path, 3)
    labels = tmp_path / "labels.jsonl"
    with label_server(run, "--labeller", "ana", "--labels", str(labels)) as server:
        async with browser_page(server.url) as page:
            first = await _label_one(page)
            await _next(page, first)
            second = await _label_one(page, "2")
            await _next(page, second)
            await page.wait_for(SHOWN)
            await page.press("ArrowLeft")  # back to the case just labelled: its label shown
            await page.wait_for(f"document.getElementById('case-id').textContent === '{second}'")
            assert await page.wait_for(JURY_SHOWN) == 3
            assert await page.evaluate("document.querySelectorAll('#fields .chosen').length") == 6
            await page.press("u")  # undo the latest label: that case, unlabelled, votes gone
            await page.wait_for("document.getElementById('jury').hidden")
            assert await page.evaluate("document.getElementById('case-id').textContent") == second
            assert await page.evaluate("document.querySelectorAll('#fields .chosen').length") == 0
            progress = await page.evaluate("document.getElementById('progress').textContent")
            assert progress.startswith("1 labelled · 2 left")
            assert page.errors == []
    lines = [json.loads(line) for line in labels.read_text(encoding="utf-8").splitlines()]
    assert [(line["case_id"], "withdrawn" in line) for line in lines] == [
        (first, False),
        (second, False),
        (second, True),
    ]


FIELDS = "[...document.querySelectorAll('#fields .field')].map((f) => f.dataset.field).join(',')"


async def _label_fields(page: Page, shown: str, keys: Callable[[str], str]) -> list[str]:
    """Label every case a page asks for, one key each (the only field shown), then Enter
    to save and Enter to go on; the cases in the order labelled."""
    seen: list[str] = []
    while True:
        case_id = await page.wait_for(f"!document.getElementById('done').hidden || ({SHOWN})")
        if case_id is True:  # the done message
            return seen
        assert await page.evaluate(FIELDS) == shown
        assert await page.evaluate("document.getElementById('jury').hidden")
        await page.press(keys(str(case_id)))
        await page.press("Enter")  # save: the votes come with the reply
        assert await page.wait_for(JURY_SHOWN) == 3
        seen.append(str(case_id))
        await _next(page, str(case_id))


async def test_a_pass_fail_only_page_then_a_metric_page_label_one_field_each_and_say_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = await asyncio.to_thread(recorded_run, tmp_path, 3)
    labels = tmp_path / "labels.jsonl"
    args = ("--labeller", "ana", "--labels", str(labels))
    with label_server(run, *args, "--only", "pass") as server:
        assert "asking pass/fail only (0 labelled, 3 left)" in server.banner
        async with browser_page(server.url) as page:
            await page.wait_for(SHOWN)
            who = await page.evaluate("document.getElementById('who').textContent")
            assert who.endswith("· asking pass/fail only")
            odd = {case_id: int(case_id[1:]) % 2 == 1 for case_id in ("c0", "c1", "c2")}
            first = await _label_fields(page, "pass", lambda c: "p" if odd[c] else "f")
            assert page.errors == []
    with label_server(run, *args, "--only", "correctness") as server:
        # Labelled pass/fail only, so not yet done for a page that asks for correctness.
        assert "asking correctness only (0 labelled, 3 left)" in server.banner
        async with browser_page(server.url) as page:
            second = await _label_fields(page, "correctness", lambda c: "2")
            assert page.errors == []
    assert sorted(first) == sorted(second) == ["c0", "c1", "c2"]
    lines = [json.loads(line) for line in labels.read_text(encoding="utf-8").splitlines()]
    assert [line["asked"] for line in lines] == [["pass"]] * 3 + [["correctness"]] * 3
    assert [line["labels"] for line in lines[:3]] == [{"pass": odd[c]} for c in first]
    # The metric page's lines carry each case's pass/fail label on: nothing is lost.
    assert [line["labels"] for line in lines[3:]] == [
        {"pass": odd[c], "correctness": 2} for c in second
    ]
    calibrate = ["calibrate", str(run / "cases.jsonl"), "--labels", str(labels)]
    assert await asyncio.to_thread(main, calibrate) in (0, 1)
    out = capsys.readouterr().out
    assert "offline/facts · pass: accuracy" in out
    assert "offline/facts · correctness: accuracy" in out
