"""Offline reference jurors: deterministic, explained, labelled, and different in method."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jury import Jury, default_panel, load_cases, load_rubric
from jury.adapters import JudgeRequest, Message
from jury.providers.offline import OfflineJuror

EXAMPLE = Path(__file__).parents[2] / "examples" / "shopnest" / "cases.jsonl"
CASES = {c.id: c for c in load_cases(EXAMPLE)}
RUBRIC = load_rubric("five-metric")


async def reply(method: str, case_id: str, rubric: str = "five-metric") -> dict[str, object]:
    rubric_obj = load_rubric(rubric)
    case = CASES[case_id]
    prompt = rubric_obj.prompts(case)[0]
    request = JudgeRequest(
        system=prompt.system,
        messages=(Message("user", prompt.user),),
        schema=prompt.schema,
        case=case,
        rubric=rubric_obj,
        prompt=prompt.key,
    )
    answer = await OfflineJuror(method).complete(request)
    data: dict[str, object] = json.loads(answer.text)
    return data


@pytest.mark.parametrize("method", ["reference", "evidence", "facts"])
async def test_deterministic_and_explained(method: str) -> None:
    first = await reply(method, "combined-return-01")
    second = await reply(method, "combined-return-01")
    assert first == second
    reason = str(first["reason"])
    assert reason.startswith(f"[offline {method}]")
    for metric in ("relevance", "correctness", "faithfulness", "helpfulness", "hallucinationFree"):
        assert f"{metric} {first[metric]}:" in reason


async def test_methods_differ_on_a_wrong_answer_grounded_in_the_wrong_evidence() -> None:
    # ORD-999 was looked up instead of ORD-101: the answer matches its (wrong) evidence.
    evidence = await reply("evidence", "tool-status-02")
    reference = await reply("reference", "tool-status-02")
    assert evidence["faithfulness"] == 4
    assert int(reference["correctness"]) <= 2  # type: ignore[call-overload]
    assert int(evidence["correctness"]) > int(reference["correctness"])  # type: ignore[call-overload]


async def test_the_day_30_boundary_contradiction_is_caught() -> None:
    for method in ("reference", "facts"):
        data = await reply(method, "edge-return-day30")
        assert int(data["correctness"]) <= 2  # type: ignore[call-overload]
        assert "opposite side" in str(data["reason"]) or "contradicts" in str(data["reason"])


async def test_invented_specifics_are_named() -> None:
    data = await reply("evidence", "adversarial-override-02")
    assert "$120" in str(data["reason"])
    assert int(data["hallucinationFree"]) <= 2  # type: ignore[call-overload]


async def test_a_refusal_without_redirect_is_half_helpful() -> None:
    without = await reply("facts", "edge-out-of-scope-02")
    with_ = await reply("facts", "edge-out-of-scope-01")
    assert without["correctness"] == 5
    assert without["helpfulness"] == 2
    assert with_["helpfulness"] == 5


async def test_they_fill_any_integer_scale_by_metric_name(tmp_path: Path) -> None:
    path = tmp_path / "ten.toml"
    levels = ", ".join(f'"{i}"' for i in range(1, 11))
    path.write_text(
        'kind = "scale"\nname = "ten"\nscale = [1, 10]\nthreshold = 7\n'
        f'[[metrics]]\nname = "accuracy"\ndescription = "d"\nlevels = [{levels}]\n'
        f'[[metrics]]\nname = "tone"\ndescription = "d"\nlevels = [{levels}]\n'
    )
    data = await reply("reference", "combined-return-01", str(path))
    assert data["accuracy"] == 10
    assert 1 <= int(data["tone"]) <= 10  # type: ignore[call-overload]


async def test_the_default_panel_is_offline_and_labelled(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    async with Jury(default_panel()) as jury:
        verdict = await jury.judge(CASES["policy-return-01"])
    assert verdict.offline
    assert all(vote.offline for vote in verdict.votes)
    assert len({vote.juror for vote in verdict.votes}) == 3
