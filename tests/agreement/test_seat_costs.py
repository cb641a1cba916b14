"""`calibrate --select --budget` costs each seat from the price tables (issue 21, item 4: "Cost
from the price tables the project already uses, per seat"): the tokens its votes recorded
priced by its model's table, not the USD they stored; where they recorded none (replayed
jurors, imported verdicts), `jury estimate`'s figure for its model and strategy on those cases;
"price unknown" only for a model in no price table. Each seat says where its cost came from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from learned_helpers import scenario

from jury import CallStats, CaseVerdict, Juror, Panel, Verdict, Vote, VoteStatus, load_cases
from jury.adapters import Usage, batch_price, price
from jury.agreement._seats import Seats
from jury.agreement._select import ESTIMATED, MEASURED, seat_costs
from jury.cli import main
from jury.runs._estimate import estimate

MINI = "gpt-4.1-mini-2025-04-14"
NANO = "gpt-4.1-nano-2025-04-14"
KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY")


@pytest.fixture(autouse=True)
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in KEYS:
        monkeypatch.delenv(name, raising=False)


def name_models(folder: Path, models: dict[str, str]) -> None:
    """Write into each seat's replay records the model that served them."""
    for seat, model in models.items():
        path = folder / f"{seat}.jsonl"
        records = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
        path.write_text("".join(json.dumps({**r, "model": model}) + "\n" for r in records))


def test_replayed_seats_cost_the_estimate_for_the_model_their_records_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases, jury, _ = scenario(tmp_path, cases=80)
    name_models(tmp_path, {"strong": MINI, "weak-a": NANO, "weak-b": "llama-2-70b-chat"})
    code = main(["calibrate", str(cases), "--jury", str(jury), "--select", "--budget", "5"])
    out = capsys.readouterr().out
    assert code == 0
    # What `jury estimate` says those models would cost on these cases, a case.
    for seat, model in (("strong", MINI), ("weak-a", NANO)):
        panel = Panel(jurors=(f"openai/{model}",), rubric="grounded-answer", reasks=0)
        expected = estimate(panel, load_cases(cases))
        (row,) = expected.jurors
        assert row.cost is not None
        per_1000 = 1000 * row.cost / expected.judged
        assert f"  {seat}: ${per_1000:.4f}, estimated ({model})" in out
    # A model in no price table is the only price unknown.
    assert "  weak-b: price unknown (llama-2-70b-chat)" in out
    assert "price unknown for weak-b" in out
    assert "Seat sets within $5 per 1000 cases, by held-out accuracy (3 within" in out


def vote(seat: str, calls: CallStats) -> Vote:
    return Vote(juror=seat, status=VoteStatus.VALID, verdict=Verdict.PASS, calls=calls)


def verdicts(votes: list[list[Vote]]) -> list[CaseVerdict]:
    return [
        CaseVerdict(case_id=f"c{i}", verdict=Verdict.PASS, votes=tuple(row))
        for i, row in enumerate(votes)
    ]


def test_recorded_tokens_are_priced_by_the_seats_model_not_by_the_usd_the_votes_stored() -> None:
    panel = Panel(
        jurors=(f"openai/{MINI}", Juror(model=f"openai/{MINI}", strategy="cot")),
        rubric="five-metric",
    )
    plain, cot = (juror.id for juror in panel.jurors)
    usages = [Usage(900, 80, 300), Usage(1200, 140, 0)]
    # The stored USD is wrong on purpose: the table, not it, is the seat's cost.
    recorded = verdicts(
        [
            [
                vote(
                    plain,
                    CallStats(
                        attempts=1,
                        input_tokens=u.input_tokens,
                        cost=99.0,
                        output_tokens=u.output_tokens,
                        cached_tokens=u.cached_tokens,
                    ),
                ),
                vote(
                    cot,
                    CallStats(
                        attempts=1,
                        input_tokens=2 * u.input_tokens,
                        cost=None,
                        output_tokens=3 * u.output_tokens,
                    ),
                ),
            ]
            for u in usages
        ]
    )
    found = seat_costs(panel, [], recorded, Seats.of_panel(panel, recorded))
    by_table = [price("openai", MINI, u) or 0.0 for u in usages]
    assert found[plain].source == MEASURED
    assert found[plain].cost == pytest.approx(sum(by_table) / 2)
    assert found[cot].source == MEASURED  # its stored cost was unknown; its tokens are not
    cot_tokens = [Usage(2 * u.input_tokens, 3 * u.output_tokens) for u in usages]
    assert found[cot].cost == pytest.approx(
        sum(price("openai", MINI, u) or 0.0 for u in cot_tokens) / 2
    )


def test_tokens_that_came_through_a_batch_are_priced_at_the_batch_rate() -> None:
    panel = Panel(jurors=(f"openai/{MINI}",), rubric="five-metric")
    usage = Usage(2000, 100)
    calls = CallStats(attempts=2, batched=2, input_tokens=2000, output_tokens=100)
    found = seat_costs(panel, [], verdicts([[vote(panel.jurors[0].id, calls)]]), Seats())
    online = price("openai", MINI, usage)
    assert online is not None
    batched = batch_price("openai", MINI, usage) or online * 0.5
    assert found[panel.jurors[0].id].cost == pytest.approx(batched)
    assert batched < online


def test_a_seat_without_recorded_tokens_is_estimated_with_its_own_strategy(tmp_path: Path) -> None:
    panel = Panel(
        jurors=(f"openai/{MINI}", Juror(model=f"openai/{MINI}", strategy="metrics_reference")),
        rubric="five-metric",
    )
    cases = load_cases(Path(__file__).parents[1] / "golden" / "cases.jsonl")
    empty = verdicts([[vote(j.id, CallStats(attempts=1)) for j in panel.jurors] for _ in cases])
    found = seat_costs(panel, cases, empty, Seats.of_panel(panel, empty))
    plain, strategic = (found[j.id] for j in panel.jurors)
    assert plain.source == strategic.source == ESTIMATED
    rows = estimate(panel, cases)
    for row, got in zip(rows.jurors, (plain, strategic), strict=True):
        assert row.cost is not None
        assert got.cost == pytest.approx(row.cost / rows.judged)
    assert plain.cost is not None
    assert strategic.cost is not None
    assert strategic.cost > plain.cost  # its instructions and what it writes first


def test_a_recorded_model_of_a_provider_this_process_does_not_know_is_priced_by_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases, jury, _ = scenario(tmp_path, cases=40)
    name_models(tmp_path, {"strong": "acme/judge-v1"})
    code = main(["calibrate", str(cases), "--jury", str(jury), "--select", "--budget", "5"])
    assert code == 0
    out = capsys.readouterr().out
    assert "  strong: price unknown (acme/judge-v1)" in out
    assert "  weak-a: price unknown (replay/" in out
    assert "its records name no model)" in out
