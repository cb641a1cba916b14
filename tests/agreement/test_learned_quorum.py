"""A case with fewer readable votes than the quorum is undecided by the learned jury in
`jury calibrate`, as it is in a run: it is not decided from the intercept, not fitted on, and
the fitted jury is compared with its jurors on the same cases (a new user's trial: ten
vote-less cases read "87.5 % of 100.0 % decided" and "beats its best juror by 37.5 points")."""

from __future__ import annotations

import io

import pytest

from jury import Case, CaseVerdict, ConfigError, Verdict, Vote, VoteStatus
from jury.agreement._evidence import labelled_table
from jury.agreement._fitting import fit_jury
from jury.report._calibration import print_fit
from jury.rubrics._criterion import CriterionFile, CriterionRubric

RUBRIC = CriterionRubric(CriterionFile(kind="criterion", name="c", criterion="is right"))
JURORS = ("a", "b", "c")


def vote(juror: str, value: bool) -> Vote:
    verdict = Verdict.PASS if value else Verdict.FAIL
    return Vote(juror=juror, status=VoteStatus.VALID, scores={"pass": value}, verdict=verdict)


def cases(heard: int = 24, spared: int = 10) -> tuple[list[Case], list[CaseVerdict]]:
    """`heard` cases every juror voted on (juror "c" wrong on two), then `spared` cases no
    juror saw (their checks failed first), all labelled FAIL."""
    found, out = [], []
    for i in range(heard):
        truth = i % 2 == 0
        votes = tuple(vote(j, truth if (j != "c" or i > 1) else not truth) for j in JURORS)
        found.append(Case(id=f"h{i:02d}", answer="x", labels={"pass": truth}))
        out.append(CaseVerdict(case_id=f"h{i:02d}", verdict=Verdict.PASS, votes=votes))
    for i in range(spared):
        found.append(Case(id=f"s{i:02d}", answer="x", labels={"pass": False}))
        out.append(CaseVerdict(case_id=f"s{i:02d}", verdict=Verdict.FAIL, votes=()))
    return found, out


def test_vote_less_cases_are_undecided_by_the_learned_jury_and_not_fitted_on() -> None:
    found, verdicts = cases()
    table = labelled_table(found, verdicts, RUBRIC, "pass")
    result = fit_jury(table, dict.fromkeys(JURORS, 1), RUBRIC, model="weights")
    stage = result.stages[0]
    learned, juror = stage.method("weights"), stage.method("a")
    assert (learned.decided, learned.cases) == (24, 34)  # not 34 of 34 from the intercept
    assert learned.accuracy_all <= juror.accuracy_all  # compared on the same cases
    assert result.below_quorum == 10
    # The fit is the one the 24 heard cases give: the spared cases teach the intercept nothing.
    only = cases(spared=0)
    alone = fit_jury(
        labelled_table(*only, RUBRIC, "pass"), dict.fromkeys(JURORS, 1), RUBRIC, model="weights"
    )
    assert result.fit is not None
    assert alone.fit is not None
    assert result.fit.stage[0].intercept == alone.fit.stage[0].intercept
    out = io.StringIO()
    print_fit(result, {}, None, out)
    text = out.getvalue()
    assert "fitted on 24 of 34" in text
    assert "the other 10 have fewer readable votes than the quorum" in text
    assert "beats its best juror" not in text.replace("does NOT beat", "")


def test_an_explicit_quorum_of_one_decides_a_case_one_juror_voted_on() -> None:
    found, verdicts = cases(spared=0)
    # Two jurors lost on one case: a majority quorum (2 of 3) leaves it undecided, quorum 1 not.
    first = verdicts[0]
    verdicts[0] = first.model_copy(update={"votes": first.votes[:1]})
    table = labelled_table(found, verdicts, RUBRIC, "pass")
    tiers = dict.fromkeys(JURORS, 1)
    assert fit_jury(table, tiers, RUBRIC, model="weights").below_quorum == 1
    assert fit_jury(table, tiers, RUBRIC, model="weights", quorum=1).below_quorum == 0


def test_the_fewest_labelled_cases_are_counted_among_those_with_votes() -> None:
    # 19 cases with the quorum's votes and 10 without: 29 labelled, but a fit could learn from
    # 19 only, under the minimum of 20: refused, with both counts named.
    found, verdicts = cases(heard=19)
    table = labelled_table(found, verdicts, RUBRIC, "pass")
    with pytest.raises(ConfigError) as refused:
        fit_jury(table, dict.fromkeys(JURORS, 1), RUBRIC, model="weights")
    assert str(refused.value) == (
        "pass: 19 of the 29 labelled case(s) have the quorum's readable votes (a fit needs at "
        "least 20); the others were spared the judges or lost their votes"
    )
    # One more case with votes: enough.
    found, verdicts = cases(heard=20)
    fitted = fit_jury(
        labelled_table(found, verdicts, RUBRIC, "pass"), dict.fromkeys(JURORS, 1), RUBRIC
    )
    assert fitted.below_quorum == 10
