"""A metric every juror abstained on (it could not be measured) leaves the pass rule, and
the verdict says so; the case is decided on the metrics that were measured."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import METRICS, case, panel_of, scores, scripted
from jury import Juror, Jury, Panel, Verdict, load_panel
from jury.cli import main


async def test_a_metric_no_juror_scored_leaves_the_pass_rule_and_is_noted() -> None:
    reply = scores(
        5, correctness=None, helpfulness=None, not_measured=["correctness", "helpfulness"]
    )
    panel = panel_of(scripted([reply], name="s/a"), scripted([reply], name="s/b"))
    async with Jury(panel, checks=None) as jury:
        verdict = await jury.judge(case("c1", answer="Tom Hanks"))
    assert verdict.verdict is Verdict.PASS
    assert verdict.reasons == (
        "not measured by any juror, left out of the pass rule: correctness, helpfulness",
    )
    assert verdict.metrics["correctness"].votes == 0
    assert all("correctness" not in vote.scores for vote in verdict.votes)


async def test_a_metric_one_juror_scored_is_decided_by_that_juror() -> None:
    low = scripted([scores(5, correctness=2)], name="s/a")
    abstains = scripted([scores(5, correctness=None, not_measured=["correctness"])], name="s/b")
    async with Jury(panel_of(low, abstains), checks=None) as jury:
        verdict = await jury.judge(case("c1", answer="x"))
    assert verdict.verdict is Verdict.FAIL
    assert verdict.metrics["correctness"].votes == 1
    assert verdict.reasons[0] == "correctness 2 < 4"


async def test_a_reply_that_scores_nothing_is_invalid() -> None:
    empty = scores(dict.fromkeys(METRICS), not_measured=list(METRICS))
    judge = scripted([empty] * 3, name="s/a")
    panel = Panel(jurors=(Juror(model=judge),))
    async with Jury(panel, checks=None) as jury:
        verdict = await jury.judge(case("c1", answer="x"))
    assert verdict.verdict is Verdict.INCONCLUSIVE
    assert "not_measured: every metric" in (verdict.votes[0].error or "")


async def test_a_null_score_the_reply_does_not_explain_is_still_invalid() -> None:
    judge = scripted([scores(5, correctness=None)] * 3, name="s/a")
    async with Jury(panel_of(judge), checks=None) as jury:
        verdict = await jury.judge(case("c1", answer="x"))
    assert verdict.verdict is Verdict.INCONCLUSIVE
    assert "correctness" in (verdict.votes[0].error or "")


def test_offline_jurors_abstain_on_correctness_without_a_golden_answer(tmp_path: Path) -> None:
    # AlpacaEval's outputs have no reference: the reference juror cannot measure correctness
    # or helpfulness, and abstains on them instead of scoring a middle 3 that fails the case.
    cases = tmp_path / "outputs.jsonl"
    record = {"instruction": "Who is Larry Page?", "output": "The co-founder of Google.",
              "generator": "gpt4", "dataset": "helpful_base"}  # fmt: skip
    cases.write_text(json.dumps(record) + "\n", encoding="utf-8")
    jury_file = tmp_path / "jury.toml"
    jury_file.write_text(
        'rubric = "five-metric"\n[[jurors]]\nmodel = "offline/reference"\n', encoding="utf-8"
    )
    assert load_panel(jury_file).jurors[0].model == "offline/reference"
    main(["run", str(cases), "--jury", str(jury_file), "--out", str(tmp_path / "run"),
          "--progress", "none"])  # fmt: skip
    (line,) = (tmp_path / "run" / "verdicts.jsonl").read_text(encoding="utf-8").splitlines()
    verdict = json.loads(line)
    (vote,) = verdict["votes"]
    assert "correctness" not in vote["scores"]
    assert "helpfulness" not in vote["scores"]
    assert "correctness not measured: no golden answer to measure it against" in vote["reason"]
    assert (
        # "Google" cannot be checked with no evidence nor golden answer: the grounding
        # metrics are not measured either (test_offline_no_evidence.py).
        "not measured by any juror, left out of the pass rule: correctness, faithfulness, "
        "helpfulness, hallucinationFree" in verdict["reasons"]
    )
