"""A juror's `effort` reaches each provider as that provider takes it, and an effort a model
does not take is refused when the jury file loads (exit 2, every bad juror named), never
ignored on every call or failed call by call: Gemini 3 thinks at the juror's level
(``thinkingConfig.thinkingLevel``), Gemini 2.5 takes a budget and no level, OpenAI's
non-reasoning models take no effort, Claude takes low to max."""

from __future__ import annotations

from pathlib import Path

import pytest
from extras import needs
from provider_helpers import judge, model_id, panel

from jury import Juror, JuryFileError, VoteStatus, load_panel
from jury.testing import FakeProviderServer

JURY = """
rubric = "pairwise-preference"
[[jurors]]
model = "anthropic/claude-opus-5-5"
effort = "minimal"
[[jurors]]
model = "openai/gpt-4.1-mini-2025-04-14"
effort = "low"
[[jurors]]
model = "google/gemini-3.5-flash-lite"
effort = "high"
[[jurors]]
model = "google/gemini-2.5-pro"
effort = "high"
[[jurors]]
model = "google/gemini-3.8-flash"
effort = "minimal"
[[jurors]]
model = "openai/gpt-5.4-mini-2026-03-17"
fallbacks = ["openai/gpt-4.1-mini-2025-04-14"]
effort = "medium"
"""


def test_every_juror_with_an_effort_its_model_does_not_take_is_named(tmp_path: Path) -> None:
    path = tmp_path / "jury.toml"
    path.write_text(JURY, encoding="utf-8")
    with pytest.raises(JuryFileError) as caught:
        load_panel(path)
    said = str(caught.value)
    assert "jurors[0]: effort 'minimal' is not taken by anthropic/claude-opus-5-5: Claude" in said
    assert "jurors[1]: effort 'low' is not taken by openai/gpt-4.1-mini" in said
    assert "it is not a reasoning model" in said
    assert "jurors[2]" not in said  # Gemini 3 thinks at a level: "high" is one
    assert "jurors[3]: effort 'high' is not taken by google/gemini-2.5-pro" in said
    assert "jurors[4]: effort 'minimal' is not taken by google/gemini-3.8-flash" in said
    assert "it thinks at low, medium, high" in said
    # A fallback is asked with the juror's effort too.
    assert "jurors[5]: effort 'medium' is not taken by openai/gpt-4.1-mini" in said


@pytest.mark.parametrize(
    ("spec", "effort", "level"),
    [
        ("google/gemini-3.5-flash-lite", "high", "HIGH"),
        ("google/gemini-3.8-flash", "medium", "MEDIUM"),
        ("google/gemini-3.5-flash-lite", "minimal", "MINIMAL"),
    ],
)
@needs("google")
async def test_a_gemini_3_juror_thinks_at_its_own_effort_on_both_transports(
    server: FakeProviderServer,
    monkeypatch: pytest.MonkeyPatch,
    spec: str,
    effort: str,
    level: str,
) -> None:
    sent = {}
    for transport in ("sdk", "direct"):
        monkeypatch.setenv("JURY_TRANSPORT", transport)
        server.clear()
        # Room for the thinking asked for: the fake thinks 4096 tokens at "high".
        juror = Juror(model=spec, effort=effort, max_tokens=6000)
        vote = (await judge(panel(juror, allow_retired=True))).votes[0]
        assert vote.status is VoteStatus.VALID, vote.error
        sent[transport] = [r.body for r in server.requests_for(model_id(spec))]
    assert sent["sdk"] == sent["direct"]
    (body,) = sent["direct"]
    thinking = body["generationConfig"]["thinkingConfig"]
    assert {key.replace("_", "").lower(): value for key, value in thinking.items()} == {
        "thinkinglevel": level
    }


async def test_a_gemini_3_juror_without_an_effort_keeps_its_familys_level(
    server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JURY_TRANSPORT", "direct")
    spec = "google/gemini-3.8-flash"
    vote = (await judge(panel(Juror(model=spec), allow_retired=True))).votes[0]
    assert vote.status is VoteStatus.VALID, vote.error
    (logged,) = server.requests_for(model_id(spec))
    thinking = logged.body["generationConfig"]["thinkingConfig"]
    assert list(thinking.values()) == ["LOW"]
