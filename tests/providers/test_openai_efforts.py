"""Each OpenAI reasoning model is sent only an effort it takes: a juror's effort the model does
not take is refused when the jury file loads (never a 400 on every call), "max" loads where
the model takes it, and a juror without one is sent the least of "low" and above its model
takes. Checked against the fake, whose per-model rules carry their sources."""

from __future__ import annotations

from pathlib import Path

import pytest
from provider_helpers import judge, model_id, panel

from jury import Juror, JuryFileError, VoteStatus, load_panel
from jury.providers.openai import effort_refusal
from jury.testing import FakeProviderServer

#: Reasoning models of the openai SDK's ChatModel list (3.60), one of each kind.
MODELS = (
    "o3-mini",
    "gpt-5-mini",
    "gpt-5.1",
    "gpt-5.4-mini",
    "gpt-5.6-luna",
    "gpt-6-luna",
    "gpt-6-astra",
    "gpt-6-sol",
    "gpt-6.2-sol",
    "gpt-6.2-astra",
)
EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max")


async def test_the_adapter_refuses_at_load_exactly_what_the_fake_refuses_on_the_wire(
    server: FakeProviderServer,
) -> None:
    disagreements = []
    for model in MODELS:
        for effort in EFFORTS:
            loads = effort_refusal(model, effort) is None
            if not loads:
                continue  # never sent: the jury file is refused first
            server.clear()
            # Room for the reasoning the fake spends at "max".
            juror = Juror(model=f"openai/{model}", effort=effort, max_tokens=20000)
            vote = (await judge(panel(juror, allow_retired=True))).votes[0]
            if vote.status is not VoteStatus.VALID:
                disagreements.append((model, effort, vote.error))
    assert disagreements == []


@pytest.mark.parametrize(
    ("model", "effort", "loads"),
    [
        ("gpt-6-luna", "max", True),
        ("gpt-6-astra", "max", True),
        ("gpt-6.2-sol", "max", True),
        ("gpt-6-sol", "max", False),
        ("gpt-6.2-astra", "none", False),
        ("gpt-5.1", "minimal", False),
        ("gpt-5-mini", "none", False),
        ("o3-mini", "xhigh", False),
    ],
)
def test_a_jury_file_with_an_effort_its_model_does_not_take_is_refused_at_load(
    tmp_path: Path, model: str, effort: str, loads: bool
) -> None:
    path = tmp_path / "jury.toml"
    path.write_text(f'[[jurors]]\nmodel = "openai/{model}"\neffort = "{effort}"\n', "utf-8")
    if loads:
        assert load_panel(path).jurors[0].effort == effort
        return
    with pytest.raises(JuryFileError) as caught:
        load_panel(path)
    assert f"effort '{effort}' is not taken by openai/{model}: {model} takes " in str(caught.value)


@pytest.mark.parametrize(("model", "sent"), [("gpt-6.2-astra", "low"), ("o3-mini", "low")])
async def test_a_juror_without_an_effort_is_sent_one_its_model_takes(
    server: FakeProviderServer, model: str, sent: str
) -> None:
    spec = f"openai/{model}"
    vote = (await judge(panel(Juror(model=spec), allow_retired=True))).votes[0]
    assert vote.status is VoteStatus.VALID, vote.error
    (logged,) = server.requests_for(model_id(spec))
    assert logged.body["reasoning_effort"] == sent
    assert "max_tokens" not in logged.body  # reasoning models take max_completion_tokens
    assert "tools" not in logged.body  # refused beside an effort on gpt-5.4, 5.6 and 6


def test_a_model_that_takes_no_low_effort_is_sent_the_least_above_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from jury.providers import _openai_efforts

    # gpt-5.2-pro, as reported, takes medium, high and xhigh only (not in the table today).
    table = (("gpt-5.2-pro*", ("medium", "high", "xhigh")), *_openai_efforts._BY_MODEL)
    monkeypatch.setattr(_openai_efforts, "_BY_MODEL", table)
    assert _openai_efforts.default_effort("gpt-5.2-pro") == "medium"
    assert _openai_efforts.default_effort("gpt-5.2") == "low"
