"""Gemini 4 is a family of its own: it thinks at a level (low by default for a judge, a
juror's effort low, medium or high), is never sent a budget or a temperature, is given room
for its thinking, and a juror asking it for an effort it does not take is refused when the
jury file loads."""

from __future__ import annotations

from pathlib import Path

import pytest
from provider_helpers import judge, model_id, panel

from jury import Juror, JuryFileError, VoteStatus, load_panel
from jury.adapters import family_of
from jury.adapters._registry import output_room
from jury.testing import FakeProviderServer

MODELS = ("google/gemini-4-argon", "google/gemini-4-hydrogen")


@pytest.mark.parametrize("spec", MODELS)
@pytest.mark.parametrize(
    ("effort", "level"), [(None, "LOW"), ("medium", "MEDIUM"), ("high", "HIGH")]
)
async def test_a_gemini_4_juror_thinks_at_a_level_on_both_transports(
    server: FakeProviderServer,
    monkeypatch: pytest.MonkeyPatch,
    spec: str,
    effort: str | None,
    level: str,
) -> None:
    sent = {}
    for transport in ("sdk", "direct"):
        monkeypatch.setenv("JURY_TRANSPORT", transport)
        server.clear()
        juror = Juror(model=spec, effort=effort, temperature=0.3, max_tokens=6000)
        vote = (await judge(panel(juror))).votes[0]
        assert vote.status is VoteStatus.VALID, vote.error
        sent[transport] = [r.body["generationConfig"] for r in server.requests_for(model_id(spec))]
    assert sent["sdk"] == sent["direct"]
    (config,) = sent["direct"]
    thinking = {k.replace("_", "").lower(): v for k, v in config["thinkingConfig"].items()}
    assert thinking == {"thinkinglevel": level}
    assert "temperature" not in config
    assert config["maxOutputTokens"] == 6000 + output_room(spec, effort)


def test_gemini_4_is_given_room_to_think_and_is_of_googles_family() -> None:
    assert output_room("google/gemini-4-argon") == 2048
    assert family_of("google/gemini-4-hydrogen") == "google"


def test_an_effort_gemini_4_does_not_take_is_refused_when_the_jury_file_loads(
    tmp_path: Path,
) -> None:
    path = tmp_path / "jury.toml"
    path.write_text('[[jurors]]\nmodel = "google/gemini-4-argon"\neffort = "minimal"\n', "utf-8")
    with pytest.raises(JuryFileError) as caught:
        load_panel(path)
    said = str(caught.value)
    assert (
        "effort 'minimal' is not taken by google/gemini-4-argon: it thinks at low, medium, high"
        in said
    )
