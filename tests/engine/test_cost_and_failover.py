"""Cost (known or unknown, never a guessed zero), the run budget, and family-aware failover."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import case, scores
from jury import ConfigError, Juror, Jury, Panel, RetrySettings, Verdict, VoteStatus, summarize
from jury.adapters import JudgeRequest, TransientError, Usage, price
from jury.testing import FakeClock, ScriptedModel


def good(_: JudgeRequest) -> dict[str, Any]:
    return scores(5)


def test_prices_come_from_the_table_and_unknown_stays_unknown() -> None:
    usage = Usage(input_tokens=1000, output_tokens=200, cached_tokens=100)
    # claude-3-5-haiku: $0.80 / MTok in, $0.08 cached, $4 out (genai-prices' table).
    assert price("anthropic", "claude-3-5-haiku-20241022", usage) == pytest.approx(0.001528)
    assert price("openai", "no-such-model-xyz", usage) is None


async def test_cost_adds_up_and_is_unknown_when_any_price_is() -> None:
    priced = ScriptedModel(good, name="scripted/priced", cost_per_call=0.01)
    unpriced = ScriptedModel(good, name="scripted/unpriced")
    async with Jury(Panel(jurors=(Juror(model=priced), Juror(model=unpriced)))) as jury:
        verdicts = [await jury.judge(case(f"c{i}")) for i in range(3)]
    summary = summarize(verdicts)
    assert summary.jurors["scripted/priced"].calls.cost == pytest.approx(0.03)
    assert summary.jurors["scripted/unpriced"].calls.cost is None
    assert summary.cost is None
    assert jury.spent == pytest.approx(0.03)


async def test_a_budget_stops_new_calls_and_leaves_cases_inconclusive() -> None:
    model = ScriptedModel(good, name="scripted/priced", cost_per_call=0.25)
    panel = Panel(jurors=(Juror(model=model),), concurrency=1)
    async with Jury(panel, max_cost=1.0) as jury:
        verdicts = [v async for v in jury.evaluate(case(f"c{i}") for i in range(10))]
    assert model.calls == 4
    assert [v.verdict for v in verdicts[:4]] == [Verdict.PASS] * 4
    left = verdicts[4:]
    assert len(left) == 6
    assert all(v.verdict is Verdict.INCONCLUSIVE for v in left)
    assert all("budget" in v.reasons[0] for v in left)


def test_a_budget_needs_known_prices() -> None:
    with pytest.raises(ConfigError, match="no price for scripted/judge"):
        Jury(Panel(jurors=(Juror(model=ScriptedModel(good)),)), max_cost=1.0)


async def test_cache_hits_are_not_paid_for() -> None:
    from jury.adapters import JudgeReply

    class Memory:
        def __init__(self) -> None:
            self.store: dict[str, JudgeReply] = {}

        async def get(self, key: str) -> JudgeReply | None:
            return self.store.get(key)

        async def put(self, key: str, model: str, request: JudgeRequest, reply: JudgeReply) -> None:
            self.store[key] = reply

    memory = Memory()
    model = ScriptedModel(good, name="scripted/priced", cost_per_call=0.5)
    panel = Panel(jurors=(Juror(model=model),))
    async with Jury(panel, cache=memory) as jury:
        first = await jury.judge(case())
        second = await jury.judge(case())
    assert model.calls == 1
    assert first.votes[0].calls.cost == 0.5
    assert second.votes[0].calls.cost == 0.0
    assert second.votes[0].calls.cache_hits == 1
    assert second.votes[0].calls.attempts == 0
    assert jury.spent == 0.5


def family_model(name: str, family: str, **options: Any) -> ScriptedModel:
    return ScriptedModel(options.pop("replies", good), name=name, family=family, **options)


async def test_failover_prefers_a_family_not_on_the_panel() -> None:
    down = family_model("a/down", "anthropic", replies=[TransientError("503")])
    twin = family_model("o/twin", "openai")
    fresh = family_model("g/fresh", "google")
    other = family_model("o/other", "openai")
    panel = Panel(
        jurors=(Juror(model=down, fallbacks=(twin, fresh)), Juror(model=other)),
        retry=RetrySettings(attempts=1),
    )
    async with Jury(panel, clock=FakeClock()) as jury:
        verdict = await jury.judge(case())
    served = {v.juror: v.served_by for v in verdict.votes}
    assert served["a/down"] == "g/fresh"  # listed second, tried first: google is new
    assert twin.calls == 0
    assert jury.warnings == []


async def test_failover_that_doubles_a_family_is_warned_about() -> None:
    down = family_model("a/down", "anthropic", replies=[TransientError("503")])
    twin = family_model("o/twin", "openai")
    other = family_model("o/other", "openai")
    panel = Panel(
        jurors=(Juror(model=down, fallbacks=(twin,)), Juror(model=other)),
        retry=RetrySettings(attempts=1),
    )
    async with Jury(panel, clock=FakeClock()) as jury:
        verdict = await jury.judge(case())
        await jury.judge(case("c2"))
    assert {v.status for v in verdict.votes} == {VoteStatus.VALID}
    assert len(jury.warnings) == 1
    assert "a/down was served by o/twin, of the openai family like o/other" in jury.warnings[0]


async def test_listed_order_when_asked() -> None:
    down = family_model("a/down", "anthropic", replies=[TransientError("503")])
    twin = family_model("o/twin", "openai")
    fresh = family_model("g/fresh", "google")
    other = family_model("o/other", "openai")
    panel = Panel(
        jurors=(Juror(model=down, fallbacks=(twin, fresh)), Juror(model=other)),
        retry=RetrySettings(attempts=1),
        fallback_order="listed",
    )
    async with Jury(panel, clock=FakeClock()) as jury:
        verdict = await jury.judge(case())
    assert {v.juror: v.served_by for v in verdict.votes}["a/down"] == "o/twin"
