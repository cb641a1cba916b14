"""The replay provider: recorded replies served again through the engine's validation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import case, scores
from jury import ConfigError, Juror, Jury, Panel, Verdict, VoteStatus, load_rubric
from jury.adapters._registry import resolve_model
from jury.providers.replay import Record, ReplayModel, load_records, write_records


def record_file(path: Path, *records: dict[str, Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


async def judge_with(*models: ReplayModel, rubric: str = "five-metric", **settings: Any) -> Any:
    panel = Panel(jurors=tuple(Juror(model=m) for m in models), rubric=rubric, **settings)
    async with Jury(panel) as jury:
        return await jury.judge(case("c1"))


async def test_a_recorded_reply_becomes_the_same_vote(tmp_path: Path) -> None:
    path = record_file(
        tmp_path / "judge.jsonl",
        {"case": "c1", "reply": scores(4, reason="recorded"), "model": "gpt-4o-2024-08-06"},
    )
    model = resolve_model(f"replay/{path}")
    assert isinstance(model, ReplayModel)
    assert model.offline
    assert model.family == "openai"  # from the recorded model's name
    result = await judge_with(model, quorum=1)
    (vote,) = result.votes
    assert vote.status is VoteStatus.VALID
    assert vote.scores == dict.fromkeys(
        ("relevance", "correctness", "faithfulness", "helpfulness", "hallucinationFree"), 4
    )
    assert vote.reason == "recorded"
    assert vote.served_by == "gpt-4o-2024-08-06"
    assert vote.offline
    assert result.offline
    assert result.verdict is Verdict.PASS


async def test_an_unparseable_recorded_verdict_is_an_invalid_vote_never_a_default() -> None:
    model = ReplayModel("replay/x", [Record(case="c1", reply="None")])
    result = await judge_with(model, quorum=1, reasks=2)
    (vote,) = result.votes
    assert vote.status is VoteStatus.INVALID
    assert vote.raw == "None"
    assert vote.scores == {}
    assert vote.calls.reasks == 2  # the recorded judge said nothing else when asked again
    assert "not a JSON object" in (vote.error or "")
    assert result.verdict is Verdict.INCONCLUSIVE


async def test_a_recorded_reask_is_served_on_the_reask() -> None:
    model = ReplayModel(
        "replay/x",
        [
            Record(case="c1", reply='{"reason": "r", "relevance": 9}'),
            Record(case="c1", reply=json.dumps(scores(5)), turn=1),
        ],
    )
    result = await judge_with(model, quorum=1)
    (vote,) = result.votes
    assert vote.status is VoteStatus.VALID
    assert vote.calls.reasks == 1


async def test_a_case_without_a_record_makes_the_vote_unavailable() -> None:
    model = ReplayModel("replay/x", [Record(case="another", reply=json.dumps(scores(5)))])
    result = await judge_with(model, quorum=1)
    (vote,) = result.votes
    assert vote.status is VoteStatus.UNAVAILABLE
    assert "no recorded reply for case 'c1', prompt 'answer', sample 0" in (vote.error or "")
    assert result.verdict is Verdict.INCONCLUSIVE


async def test_pairwise_records_per_order_reproduce_an_abstention() -> None:
    first = json.dumps({"reason": "first", "winner": "1"})
    model = ReplayModel(
        "replay/x", [Record(case="c1", prompt="AB", reply=first), Record("c1", first, "BA")]
    )
    panel = Panel(jurors=(Juror(model=model),), rubric="pairwise-preference", quorum=1)
    async with Jury(panel) as jury:
        result = await jury.judge(case("c1", answer_b="Another answer."))
    (vote,) = result.votes
    assert vote.status is VoteStatus.ABSTAINED
    assert vote.details["ballots"] == {"AB": {"winner": "A"}, "BA": {"winner": "B"}}


async def test_samples_are_looked_up_by_index() -> None:
    model = ReplayModel(
        "replay/x",
        [
            Record("c1", json.dumps(scores(5)), sample=0),
            Record("c1", json.dumps(scores(2)), sample=1),
            Record("c1", json.dumps(scores(2)), sample=2),
        ],
    )
    result = await judge_with(model, quorum=1, samples=3)
    (vote,) = result.votes
    assert vote.scores["relevance"] == 2
    assert [b.scores["relevance"] for b in vote.samples] == [5, 2, 2]


def test_records_round_trip_through_a_file(tmp_path: Path) -> None:
    records = [
        Record("c1", "None", "AB", 0, 0, "judge-1"),
        Record("c1", '{"winner": "2"}', "BA", 1, 2),
    ]
    write_records(tmp_path / "r.jsonl", records)
    assert load_records(tmp_path / "r.jsonl") == records


def test_the_file_is_found_with_or_without_suffix_and_in_the_replay_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record_file(tmp_path / "gpt.jsonl", {"case": "c1", "reply": "x"})
    monkeypatch.chdir(tmp_path)
    assert len(resolve_model("replay/gpt")) == 1  # type: ignore[arg-type]
    assert len(resolve_model("replay/gpt.jsonl")) == 1  # type: ignore[arg-type]
    monkeypatch.chdir(tmp_path.parent)
    monkeypatch.setenv("JURY_REPLAY_DIR", str(tmp_path))
    assert resolve_model("replay/gpt").name == "replay/gpt"
    with pytest.raises(ConfigError, match=r"no record file missing or missing\.jsonl"):
        resolve_model("replay/missing")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"case": "c1"}', "line 2: reply: missing"),
        ('{"reply": "x"}', "line 2: case: missing"),
        ('{"case": "c1", "reply": "x", "smaple": 1}', "line 2: smaple: unknown field"),
        ('{"case": "c1", "reply": "x", "sample": -1}', "line 2: sample: must be a whole number"),
        ('{"case": "c1", "reply": "x", "turn": "1"}', "line 2: turn: must be a whole number"),
        ('{"case": "c1", "reply": 5}', "line 2: reply: must be the reply's text or a JSON"),
        ('{"case": "c1", "reply": "x"', "line 2: not valid JSON"),
        ('["c1", "x"]', "line 2: a record must be a JSON object"),
    ],
)
def test_a_bad_record_names_its_line_and_field(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"case": "c0", "reply": "ok"}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_records(path)


def test_two_records_for_one_call_are_refused() -> None:
    with pytest.raises(ConfigError, match="two records for case 'c1'"):
        ReplayModel("replay/x", [Record("c1", "a"), Record("c1", "b")])


@pytest.mark.parametrize("rubric", ["five-metric", "grounded-answer", "shopnest-points"])
def test_single_prompt_kinds_ask_under_the_records_default_prompt_key(rubric: str) -> None:
    points = [{"id": "p1", "says": "Says yes."}]
    (prompt,) = load_rubric(rubric).prompts(case("c1", points=points))
    assert prompt.key == Record("c1", "x").prompt == "answer"
