"""Claude models that think by default get room to think (issue 22, item 2), against the
strict fake, which refuses what each family refuses: each family is sent an effort it takes
(or thinking off where that is taken), room on top of the reply's budget, never ``disabled``
where it is a 400, never a prefill; the thinking a reply spent is read into the vote's calls,
a reply whose budget went on thinking says so, and a juror can set its own effort and
max_tokens. Both transports send the same body, and it validates against the SDK's types."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from extras import require, sdk
from provider_helpers import judge, model_id, panel
from pydantic import ValidationError

from jury import Juror, JuryFileError, VoteStatus, load_panel
from jury.testing import FakeProviderServer

#: Each family the adapter sends its own settings, and what it sends.
THINKERS = [
    "anthropic/claude-opus-5-5",
    "anthropic/claude-sonnet-5-5",
    "anthropic/claude-fable-5-1",
    "anthropic/claude-mythos-5-1",
    "anthropic/claude-opus-5",
    "anthropic/claude-sonnet-5",
]
HAIKU = "anthropic/claude-haiku-5-5"


def validate(body: dict[str, Any]) -> None:
    """The body as the SDK's request type reads it: a key or value it does not know fails."""
    require("anthropic")
    from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
    from pydantic import TypeAdapter

    adapter: TypeAdapter[Any] = TypeAdapter(MessageCreateParamsNonStreaming)
    adapter.validate_python(body)


async def both_transports(
    server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch, juror: str | Juror, **kw: Any
) -> dict[str, Any]:
    """The vote of `juror` through each transport; the bodies the fake received, which must be
    the same; the last vote."""
    spec = juror if isinstance(juror, str) else str(juror.model)
    require(sdk(spec))
    sent = {}
    votes = {}
    for transport in ("sdk", "direct"):
        monkeypatch.setenv("JURY_TRANSPORT", transport)
        server.clear()
        votes[transport] = (await judge(panel(juror, **kw))).votes[0]
        sent[transport] = [r.body for r in server.requests_for(model_id(spec))]
    assert sent["sdk"] == sent["direct"]
    return {"bodies": sent["direct"], "votes": votes}


@pytest.mark.parametrize("spec", THINKERS)
async def test_a_model_that_cannot_or_should_not_stop_thinking_is_asked_for_low_effort_with_room(
    server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch, spec: str
) -> None:
    seen = await both_transports(server, monkeypatch, spec)
    for vote in seen["votes"].values():
        assert vote.status is VoteStatus.VALID, vote.error
        # The thinking the reply spent is read from usage.output_tokens_details.
        assert 0 < vote.calls.thinking_tokens < vote.calls.output_tokens
    (body,) = seen["bodies"]
    validate(body)
    assert "thinking" not in body
    assert body["output_config"]["effort"] == "low"
    # The reply's own 1024 tokens, and room for thinking on top.
    assert body["max_tokens"] == 1024 + 2048
    assert body["messages"][-1]["role"] == "user"


async def test_claude_haiku_5_5_is_still_told_not_to_think(
    server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = await both_transports(server, monkeypatch, HAIKU)
    (body,) = seen["bodies"]
    validate(body)
    # Haiku 5.5 takes "disabled" at its default effort: the verdict keeps its whole budget.
    assert body["thinking"] == {"type": "disabled"}
    assert "effort" not in body["output_config"]
    assert body["max_tokens"] == 1024
    assert all(v.calls.thinking_tokens == 0 for v in seen["votes"].values())


@pytest.mark.parametrize("spec", THINKERS)
async def test_a_reask_of_a_thinking_model_ends_with_a_user_turn_not_a_prefill(
    server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch, spec: str
) -> None:
    from jury.testing import Fault

    monkeypatch.setenv("JURY_TRANSPORT", "direct")
    # A score past the scale: the reply is asked again, after the judge's own turn.
    server.inject(Fault.out_of_range(), model=model_id(spec))
    vote = (await judge(panel(spec))).votes[0]
    assert vote.status is VoteStatus.VALID, vote.error
    assert vote.calls.reasks == 1
    assert [r.status for r in server.requests] == [200, 200]
    roles = [m["role"] for m in server.requests[1].body["messages"]]
    assert roles == ["user", "assistant", "user"]


async def test_a_reply_whose_budget_went_on_thinking_is_an_invalid_vote_that_says_so(
    server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Asked to think hard (4096 tokens of thinking in the fake) with 1024 + 2048 tokens.
    juror = Juror(model="anthropic/claude-opus-5-5", effort="high")
    seen = await both_transports(server, monkeypatch, juror, reasks=1)
    for vote in seen["votes"].values():
        assert vote.status is VoteStatus.INVALID
        error = vote.error or ""
        assert "cut off at the output limit" in error
        assert "3072 of the 3072 output tokens spent thinking" in error
        assert "the budget went on thinking" in error
        # Cut before it wrote a word: asking again would be cut again.
        assert vote.calls.reasks == 0
        assert vote.calls.thinking_tokens == 3072
    (body,) = seen["bodies"]
    assert body["output_config"]["effort"] == "high"


async def test_a_jurors_effort_and_max_tokens_reach_the_request(
    server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    juror = Juror(model="anthropic/claude-sonnet-5-5", effort="medium", max_tokens=600)
    seen = await both_transports(server, monkeypatch, juror)
    (body,) = seen["bodies"]
    validate(body)
    assert body["output_config"]["effort"] == "medium"
    assert body["max_tokens"] == 600 + 2048
    assert all(v.status is VoteStatus.VALID for v in seen["votes"].values())


async def test_haiku_asked_for_an_effort_thinks_at_it_instead_of_being_turned_off(
    server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Haiku 5.5 refuses "disabled" at xhigh and max: an effort set by the juror turns
    # thinking on, with room.
    juror = Juror(model=HAIKU, effort="max", max_tokens=19000)
    seen = await both_transports(server, monkeypatch, juror)
    (body,) = seen["bodies"]
    assert "thinking" not in body
    assert body["output_config"]["effort"] == "max"
    assert body["max_tokens"] == 19000 + 2048
    for vote in seen["votes"].values():
        assert vote.status is VoteStatus.VALID, vote.error
        assert vote.calls.thinking_tokens > 8192


async def test_an_openai_reasoning_juror_is_sent_its_own_effort(
    server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    juror = Juror(model="openai/gpt-5.4-mini-2026-03-17", effort="medium", max_tokens=700)
    seen = await both_transports(server, monkeypatch, juror)
    (body,) = seen["bodies"]
    assert body["reasoning_effort"] == "medium"
    assert body["max_completion_tokens"] == 700 + 2048


def test_an_effort_claude_does_not_take_is_refused_when_the_juror_is_made() -> None:
    with pytest.raises(ValidationError, match="effort 'minimal' is not taken by anthropic/"):
        Juror(model="anthropic/claude-opus-5-5", effort="minimal")


async def test_a_budget_the_sdk_would_not_send_without_streaming_is_refused_on_both_transports(
    server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    juror = Juror(model="anthropic/claude-opus-5-5", max_tokens=20000)
    for transport in ("sdk", "direct"):
        monkeypatch.setenv("JURY_TRANSPORT", transport)
        vote = (await judge(panel(juror))).votes[0]
        assert vote.status is VoteStatus.UNAVAILABLE
        assert "above the 21,333 a request without streaming may ask for" in (vote.error or "")
    assert server.requests == []


def test_a_jury_file_sets_a_jurors_effort_and_max_tokens_and_names_a_bad_one(
    tmp_path: Path,
) -> None:
    good = tmp_path / "jury.toml"
    good.write_text(
        '[[juror]]\nmodel = "anthropic/claude-opus-5-5"\neffort = "medium"\nmax_tokens = 512\n'
    )
    (juror,) = load_panel(good).jurors
    assert (juror.effort, juror.max_tokens) == ("medium", 512)
    bad = tmp_path / "bad.toml"
    bad.write_text('[[juror]]\nmodel = "anthropic/claude-opus-5-5"\neffort = "huge"\n')
    with pytest.raises(JuryFileError) as caught:
        load_panel(bad)
    assert "effort" in str(caught.value)


def test_the_thinking_tokens_of_a_reply_are_read_from_its_usage() -> None:
    from jury.providers.anthropic import AnthropicWire

    wire = AnthropicWire("http://127.0.0.1:9", "k")
    reply = wire.parse(
        "claude-opus-5-5",
        {
            "content": [{"type": "thinking", "thinking": "", "signature": "s"}],
            "stop_reason": "max_tokens",
            "usage": {
                "input_tokens": 900,
                "output_tokens": 3072,
                "output_tokens_details": {"thinking_tokens": 3072},
            },
        },
    )
    assert reply.finish == "length"
    assert reply.text == ""
    assert reply.usage.thinking_tokens == reply.usage.output_tokens == 3072
