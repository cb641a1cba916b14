"""Which case a labeller sees next (split jurors, then low confidence, then the categories
with the fewest labels), what they may write, and undo."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conftest import case
from jury import CaseVerdict, ConfigError, Verdict, Vote, VoteStatus, load_rubric
from jury.runs._label_queue import LabelQueue, confidence, split
from jury.runs._labels import LabelWriter, current_labels, read_labels

RUBRIC = load_rubric("five-metric")
FULL = {"pass": True, **dict.fromkeys(("relevance", "correctness", "faithfulness"), 4)}
FULL |= {"helpfulness": 4, "hallucinationFree": 5}


def _verdict(case_id: str, *said: Verdict, panel: Verdict = Verdict.PASS) -> CaseVerdict:
    votes = tuple(
        Vote(juror=f"j{n}", status=VoteStatus.VALID, verdict=v) for n, v in enumerate(said)
    )
    return CaseVerdict(case_id=case_id, verdict=panel, votes=votes)


def _queue(tmp_path: Path, cases: list[Any], verdicts: dict[str, CaseVerdict], **kw: Any) -> Any:
    writer = LabelWriter(tmp_path / "labels.jsonl")
    return LabelQueue(cases, verdicts, RUBRIC, "ana", read_labels(writer.path), writer, **kw)


P, F = Verdict.PASS, Verdict.FAIL


def test_split_and_confidence_read_the_votes() -> None:
    assert split(_verdict("a", P, P, F))
    assert not split(_verdict("a", P, P, P))
    assert confidence(_verdict("a", P, P, F)) == 2 / 3
    assert confidence(_verdict("a", F, F, F, panel=F)) == 1.0
    assert confidence(None) == 0.0


def test_split_cases_come_first_then_the_least_sure_then_the_rarest_category(
    tmp_path: Path,
) -> None:
    cases = [
        case("sure-a", category="a"),
        case("sure-b", category="b"),
        case("unsure", category="a"),
        case("split", category="a"),
        case("sure-a2", category="a"),
    ]
    verdicts = {
        "sure-a": _verdict("sure-a", P, P, P),
        "sure-b": _verdict("sure-b", P, P, P),
        "sure-a2": _verdict("sure-a2", P, P, P),
        # The panel's verdict with one juror of three against it (no split flag: the
        # juror abstained from the verdict by an invalid vote).
        "unsure": CaseVerdict(
            case_id="unsure",
            verdict=P,
            votes=(
                Vote(juror="j0", status=VoteStatus.VALID, verdict=P),
                Vote(juror="j1", status=VoteStatus.INVALID),
            ),
            confidence=0.4,
        ),
        "split": _verdict("split", P, F, P),
    }
    queue = _queue(tmp_path, cases, verdicts)
    order = []
    while (next_id := queue.next_case()) is not None:
        order.append(next_id)
        assert queue.label(next_id, FULL, None) is None
    # After split and unsure (both category a), category b has fewer labels than a.
    assert order == ["split", "unsure", "sure-b", "sure-a", "sure-a2"]
    assert queue.progress() == {
        "labelled": 5,
        "left": 0,
        "categories": {"a": {"labelled": 4, "left": 0}, "b": {"labelled": 1, "left": 0}},
    }


def test_random_order_is_a_shuffle_fixed_by_the_seed(tmp_path: Path) -> None:
    cases = [case(f"c{n}") for n in range(12)]

    def order(seed: int, where: Path) -> list[str]:
        where.mkdir()
        queue = _queue(where, cases, {}, order="random", seed=seed)
        seen = []
        while (next_id := queue.next_case()) is not None:
            seen.append(next_id)
            queue.label(next_id, FULL, None)
        queue.writer.close()
        return seen

    first, again, other = (order(s, tmp_path / d) for s, d in ((1, "a"), (1, "b"), (2, "c")))
    assert first == again
    assert sorted(first) == sorted(c.id for c in cases)
    assert first != other
    assert first != [c.id for c in cases]


def test_the_page_refuses_a_value_the_rubric_does_not_allow_and_writes_nothing(
    tmp_path: Path,
) -> None:
    queue = _queue(tmp_path, [case("c1")], {})
    assert queue.label("c1", {**FULL, "correctness": 9}, None) == (
        "labels.correctness: 9 is not on the rubric's scale (1, 2, 3, 4, 5)"
    )
    assert queue.label("c1", {"pass": True}, None) == (
        "labels: relevance, correctness, faithfulness, helpfulness, hallucinationFree missing"
    )
    assert queue.label("c9", FULL, None) == "case_id: no case with the ID 'c9' is being labelled"
    assert (tmp_path / "labels.jsonl").read_text() == ""


def test_undo_withdraws_the_latest_label_even_after_a_restart(tmp_path: Path) -> None:
    cases = [case("c1"), case("c2")]
    queue = _queue(tmp_path, cases, {})
    queue.label("c1", FULL, "first")
    queue.label("c2", FULL, None)
    queue.writer.close()
    again = _queue(tmp_path, cases, {})
    assert set(again.mine()) == {"c1", "c2"}
    assert again.undo() == "c2"
    assert again.next_case() == "c2"
    assert again.undo() == "c1"
    assert again.undo() is None
    lines = read_labels(tmp_path / "labels.jsonl")
    assert len(lines) == 4
    assert current_labels(lines) == {}
    assert lines[0].note == "first"


def test_a_case_changed_since_its_label_is_back_in_the_queue(tmp_path: Path) -> None:
    queue = _queue(tmp_path, [case("c1")], {})
    queue.label("c1", FULL, None)
    queue.writer.close()
    changed = _queue(tmp_path, [case("c1", answer="Something else")], {})
    assert changed.stale("c1")
    assert changed.next_case() == "c1"


def test_a_pass_fail_only_page_asks_pass_alone_and_its_lines_say_so(tmp_path: Path) -> None:
    cases = [case("a"), case("b")]
    queue = _queue(tmp_path, cases, {}, only=["pass"])
    assert [field["name"] for field in queue.fields("a")] == ["pass"]
    assert queue.asking() == ", asking pass/fail only"
    # A metric is not asked here, so it is refused rather than written.
    assert queue.label("a", {"pass": True, "relevance": 4}, None) is not None
    assert queue.label("a", {"pass": True}, None) is None
    assert queue.next_case() == "b"
    assert queue.progress()["labelled"] == 1
    (line,) = read_labels(tmp_path / "labels.jsonl")
    assert line.labels == {"pass": True}
    assert line.asked == ("pass",)


def test_a_subset_of_metrics_keeps_the_labellers_earlier_values_of_the_others(
    tmp_path: Path,
) -> None:
    cases = [case("a")]
    first = _queue(tmp_path, cases, {}, only=["pass"])
    assert first.label("a", {"pass": False}, None) is None
    first.writer.close()
    # A later page asks for two metrics: the case labelled pass/fail only is not done yet.
    second = _queue(tmp_path, cases, {}, only=["correctness", "relevance"])
    assert [field["name"] for field in second.fields("a")] == ["relevance", "correctness"]
    assert second.next_case() == "a"
    assert second.done() == {}
    assert second.label("a", {"relevance": 5, "correctness": 2}, None) is None
    assert second.next_case() is None
    lines = read_labels(tmp_path / "labels.jsonl")
    assert lines[-1].labels == {"pass": False, "relevance": 5, "correctness": 2}
    assert lines[-1].asked == ("relevance", "correctness")
    (in_force,) = current_labels(lines).values()
    assert in_force.labels == {"pass": False, "relevance": 5, "correctness": 2}


def test_a_field_the_rubric_does_not_have_is_refused_naming_the_ones_it_has(
    tmp_path: Path,
) -> None:
    with pytest.raises(ConfigError) as raised:
        _queue(tmp_path, [case("a")], {}, only=["pass", "relevanse"])
    assert str(raised.value) == (
        "--only: relevanse is not a label of five-metric (it has pass, relevance, correctness, "
        "faithfulness, helpfulness, hallucinationFree)"
    )
