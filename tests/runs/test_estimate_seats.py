"""`jury estimate` prices a seat as what it sends and gets (issue 21, item 4's leftovers; issue
22's): its strategy's instructions in the input, what the strategy writes before its verdict in
the output, the juror's own max_tokens, and the room an adapter adds for thinking, so that the
most is what the adapter could really be billed."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import case, scores
from jury import Juror, Panel, load_rubric
from jury.adapters import JudgeRequest, Message, Usage, price
from jury.cli import main
from jury.providers.anthropic import AnthropicWire
from jury.providers.google import GeminiWire
from jury.providers.openai import OpenAIWire
from jury.runs._estimate import GENERATED_TOKENS, REASK_TOKENS, estimate
from jury.testing import ScriptedModel

KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY")
MINI = "openai/gpt-4.1-mini-2025-04-14"


@pytest.fixture(autouse=True)
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in KEYS:
        monkeypatch.delenv(name, raising=False)


def sent_tokens(request: JudgeRequest) -> int:
    """What the estimate counts of a request: its system and user text, 4 characters a token."""
    return (len(request.system) + sum(len(m.content) for m in request.messages)) // 4


async def test_a_strategy_seat_is_counted_on_the_prompts_the_engine_really_sends_it() -> None:
    from jury import Jury

    written = {
        "plain": {},
        "metrics_reference": {"questions": "q?", "own_answer": "a"},
        "cot": {"reasoning": "so"},
    }
    judges = {
        strategy: ScriptedModel([scores(5, **fields)], name=f"scripted/{strategy}")
        for strategy, fields in written.items()
    }
    panel = Panel(
        jurors=tuple(Juror(model=m, strategy=s) for s, m in judges.items()),
        rubric="five-metric",
        reasks=0,
    )
    cases = [case(f"c{i}", question=f"question {'x' * 40 * i}") for i in range(3)]
    async with Jury(panel, checks=None) as jury:
        for one in cases:
            await jury.judge(one)
    rows = {row.strategy: row for row in estimate(panel, cases).jurors}
    for strategy, model in judges.items():
        assert rows[strategy].calls == len(model.requests) == 3
        assert rows[strategy].input_tokens == sum(sent_tokens(r) for r in model.requests)
    # What a strategy adds is its instructions, counted per call; plain adds nothing.
    assert rows["plain"].strategy_input_tokens == 0
    for strategy in ("metrics_reference", "cot"):
        added = rows[strategy].input_tokens - rows["plain"].input_tokens
        assert added == rows[strategy].strategy_input_tokens > 3 * 50


def test_what_a_strategy_writes_first_is_in_the_expected_output_and_within_max_tokens_at_most() -> (
    None
):
    panel = Panel(
        jurors=(MINI, Juror(model=MINI, strategy="metrics_reference")), max_tokens=400, reasks=1
    )
    cases = [case(f"c{i}") for i in range(5)]
    plain, strategic = estimate(panel, cases).jurors
    fields = GENERATED_TOKENS["questions"] + GENERATED_TOKENS["own_answer"]
    assert strategic.generated == ("questions", "own_answer")
    assert strategic.output_tokens == plain.output_tokens + 5 * fields
    assert strategic.strategy_output_tokens == 5 * fields
    # The fields are part of the reply: the most is the same max_tokens for both seats.
    assert strategic.max_output_tokens == plain.max_output_tokens == 5 * 400 * 2
    assert plain.cost is not None
    assert strategic.cost is not None
    assert strategic.cost > plain.cost


def test_a_jurors_own_max_tokens_bounds_its_most() -> None:
    panel = Panel(jurors=(MINI, Juror(model=MINI, name="short", max_tokens=120)), max_tokens=900)
    cases = [case(f"c{i}") for i in range(4)]
    wide, short = estimate(panel, cases).jurors
    rounds = 1 + panel.reasks
    assert wide.max_output_tokens == 4 * 900 * rounds
    assert short.max_output_tokens == 4 * 120 * rounds
    assert short.max_tokens == 120
    assert short.max_cost is not None
    assert wide.max_cost is not None
    assert short.max_cost < wide.max_cost


def test_every_re_ask_carries_the_bad_replies_before_it() -> None:
    panel = Panel(jurors=(MINI,), max_tokens=300, reasks=2)
    one = case("c1")
    (row,) = estimate(panel, [one]).jurors
    prompt = load_rubric(panel.rubric).prompts(one)[0]
    tokens = (len(prompt.system) + len(prompt.user)) // 4
    # The first ask, the second with one bad reply, the third with two.
    assert row.max_input_tokens == 3 * tokens + (1 + 2) * (300 + REASK_TOKENS)
    calls = [Usage(tokens + k * (300 + REASK_TOKENS), 300) for k in range(3)]
    assert row.max_cost == pytest.approx(
        sum(price("openai", MINI.partition("/")[2], u) or 0.0 for u in calls)
    )


def _request(max_tokens: int, effort: str | None) -> JudgeRequest:
    return JudgeRequest(
        system="judge",
        messages=(Message("user", "case"),),
        schema={"type": "object", "properties": {"reason": {"type": "string"}}},
        max_tokens=max_tokens,
        effort=effort,
    )


def _asked(spec: str, max_tokens: int, effort: str | None) -> int:
    """The output limit the adapter of `spec` really sends for a juror's max_tokens."""
    provider, _, model = spec.partition("/")
    request = _request(max_tokens, effort)
    if provider == "anthropic":
        return int(AnthropicWire("http://127.0.0.1:9", "k").body(model, request)["max_tokens"])
    if provider == "openai":
        base = "http://127.0.0.1:9"
        wire = OpenAIWire(provider="openai", base_url=base, key="k", key_variable="K")
        return int(wire.body(model, request)["max_completion_tokens"])
    body = GeminiWire("http://127.0.0.1:9", "k", "K").body(model, request)
    return int(body["generationConfig"]["maxOutputTokens"])


@pytest.mark.parametrize(
    ("spec", "effort", "room"),
    [
        ("anthropic/claude-opus-5-5", None, 2048),  # thinks always: effort low, room on top
        ("anthropic/claude-sonnet-5-5", None, 2048),
        ("anthropic/claude-haiku-5-5", None, 0),  # told not to think
        ("anthropic/claude-haiku-5-5", "low", 2048),  # a juror's effort asks it to think
        ("anthropic/claude-haiku-4-5-20251001", None, 0),
        ("openai/gpt-5-mini", None, 2048),  # a reasoning model
        ("openai/gpt-4.1-mini-2025-04-14", None, 0),
        ("google/gemini-2.5-pro", None, 128),  # cannot stop thinking: 128 least
        ("google/gemini-2.5-flash", None, 0),
        ("google/gemini-3-flash-preview", None, 2048),
    ],
)
def test_the_most_a_call_may_write_is_what_its_adapter_asks_for(
    spec: str, effort: str | None, room: int
) -> None:
    panel = Panel(jurors=(Juror(model=spec, max_tokens=500, effort=effort),), reasks=0)
    (row,) = estimate(panel, [case("c1"), case("c2")]).jurors
    assert row.thinking_room == room
    assert row.max_output_tokens // row.max_calls == 500 + room == _asked(spec, 500, effort)


def test_the_thinking_room_is_priced_as_output_in_the_most() -> None:
    spec = "anthropic/claude-opus-5-5"
    panel = Panel(jurors=(Juror(model=spec, max_tokens=300),), reasks=0)
    one = case("c1")
    (row,) = estimate(panel, [one]).jurors
    tokens = row.input_tokens
    assert row.max_cost == pytest.approx(price("anthropic", "claude-opus-5-5", Usage(tokens, 2348)))
    assert row.cost == pytest.approx(price("anthropic", "claude-opus-5-5", Usage(tokens, 90)))


def test_a_pairwise_seat_is_counted_in_both_orders_and_every_sample() -> None:
    panel = Panel(
        jurors=(Juror(model=MINI, samples=3, strategy="rules"),),
        rubric="pairwise-preference",
        reasks=0,
    )
    cases = [case(f"c{i}", answer_b="another answer") for i in range(2)]
    (row,) = estimate(panel, cases).jurors
    assert row.calls == 2 * 2 * 3
    assert row.strategy_input_tokens > 0


def test_the_printed_estimate_names_each_seat_and_says_what_its_strategy_and_thinking_add(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = tmp_path / "cases.jsonl"
    cases.write_text('{"id": "c1", "question": "q", "answer": "a"}\n', encoding="utf-8")
    jury = tmp_path / "jury.toml"
    jury.write_text(
        'rubric = "five-metric"\nmax_tokens = 512\n'
        f'[[jurors]]\nmodel = "{MINI}"\n'
        f'[[jurors]]\nmodel = "{MINI}"\nstrategy = "metrics"\n'
        '[[jurors]]\nmodel = "anthropic/claude-opus-5-5"\nmax_tokens = 300\nname = "opus"\n',
        encoding="utf-8",
    )
    assert main(["estimate", str(cases), "--jury", str(jury), "--no-checks"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert f"{MINI}+metrics: its strategy (metrics) adds its instructions, about" in out
    assert "and writes questions before its verdict, about 80 output tokens a call" in out
    assert (
        "opus (anthropic/claude-opus-5-5): max_tokens 300 a call plus 2,048 its adapter adds "
        "for thinking: at most 2,348 output tokens a call, thinking billed as output" in out
    )
    # The plain seat with the panel's max_tokens has nothing to add.
    assert f"{MINI}: " not in out.replace(f"{MINI}: OPENAI_API_KEY", "")
