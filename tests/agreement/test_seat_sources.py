"""Each seat is its own source, whatever model it shares: in the learned jury (weights, stacking,
Dawid-Skene), in agreement, in `calibrate --select`; and the effective number of judges knows
which seats share a model."""

from __future__ import annotations

import numpy as np
import pytest

from jury import Case, CaseVerdict, Juror, Panel, Verdict, Vote, VoteStatus
from jury.agreement import summarize_agreement
from jury.agreement._evidence import effective, labelled_table
from jury.agreement._fitting import fit_jury, fit_unsupervised
from jury.agreement._seats import Seats
from jury.agreement._select import select
from jury.rubrics._criterion import CriterionFile, CriterionRubric

RUBRIC = CriterionRubric(CriterionFile(kind="criterion", name="c", criterion="is right"))
MINI = "openai/gpt-5.4-mini-2026-03-17"
#: Two seats of one model (named as strategies will name them), and a seat of another.
SEATS = ("gpt-5.4-mini+plain", "gpt-5.4-mini+metrics", "claude-haiku")
PANEL = Panel(
    jurors=(
        Juror(model=MINI, name=SEATS[0]),
        Juror(model=MINI, name=SEATS[1]),
        Juror(model="anthropic/claude-haiku-4-5-20251001", name=SEATS[2]),
    )
)


def verdicts(count: int = 240, seed: int = 0) -> tuple[list[Case], list[CaseVerdict]]:
    """The two seats of one model copy one coin when wrong, at different accuracies."""
    rng = np.random.default_rng(seed)
    cases, out = [], []
    for i in range(count):
        truth = bool(rng.random() < 0.5)
        shared = rng.random()
        said = {
            SEATS[0]: truth if shared < 0.85 else not truth,
            SEATS[1]: truth if shared < 0.65 else not truth,
            SEATS[2]: truth if rng.random() < 0.75 else not truth,
        }
        votes = tuple(
            Vote(
                juror=name,
                status=VoteStatus.VALID,
                scores={"pass": value},
                verdict=Verdict.PASS if value else Verdict.FAIL,
            )
            for name, value in said.items()
        )
        cases.append(Case(id=f"c{i:03d}", answer="a", labels={"pass": truth}))
        out.append(CaseVerdict(case_id=f"c{i:03d}", verdict=Verdict.PASS, votes=votes))
    return cases, out


@pytest.mark.parametrize("model", ["weights", "stacked"])
def test_two_seats_of_one_model_are_two_sources_of_a_fitted_jury(model: str) -> None:
    cases, found = verdicts()
    table = labelled_table(cases, found, RUBRIC, "pass")
    result = fit_jury(table, dict.fromkeys(SEATS, 1), RUBRIC, model=model)  # type: ignore[arg-type]
    assert result.fit is not None
    stage = result.fit.stage[0]
    assert sorted(s.juror for s in stage.source) == sorted(SEATS)
    assert set(stage.jurors) == set(SEATS)
    if model == "weights":
        accuracy = {s.juror: s.accuracy for s in stage.source}
        # Each seat's own record, never the pooled record of its model.
        first, second = accuracy[SEATS[0]], accuracy[SEATS[1]]
        assert first is not None
        assert second is not None
        assert first > second + 0.1
    names = {m.name for m in result.stages[0].methods}
    assert set(SEATS) <= names


def test_dawid_skene_keeps_a_confusion_table_per_seat() -> None:
    cases, found = verdicts()
    table = labelled_table(cases, found, RUBRIC, "pass")
    result = fit_unsupervised(table, list(SEATS), RUBRIC)
    assert result.fit is not None
    assert sorted(s.juror for s in result.fit.stage[0].source) == sorted(SEATS)


def test_select_ranks_each_seat_of_a_model_as_a_candidate_of_its_own() -> None:
    cases, found = verdicts()
    table = labelled_table(cases, found, RUBRIC, "pass")
    ranked = select(table, list(SEATS), dict.fromkeys(SEATS), model="weights", penalty=None)
    subsets = {s.jurors for s in ranked}
    assert (SEATS[0],) in subsets
    assert (SEATS[1],) in subsets
    assert tuple(sorted(SEATS[:2])) in subsets
    assert len(subsets) == 7
    alone = {s.jurors[0]: s.accuracy for s in ranked if len(s.jurors) == 1}
    assert alone[SEATS[0]] > alone[SEATS[1]]


def test_agreement_keeps_each_seat_as_a_rater_and_knows_which_share_a_model() -> None:
    cases, found = verdicts()
    labels = {case.id: case.labels for case in cases}
    seats = Seats.of_panel(PANEL)
    summary = summarize_agreement(found, (), labels=labels, bootstrap=0, seats=seats)
    assert set(summary.jurors) == set(SEATS)
    cell = summary.verdict.pairwise.get(SEATS[0], SEATS[1])
    assert cell.value is not None
    against = summary.verdict.labels
    assert against is not None
    assert set(against.accuracy) == set(SEATS)
    worth = against.effective
    assert (worth.jurors, worth.models, worth.families) == (3, 2, 2)
    assert against.errors is not None
    same = [p for p in against.errors.pairs if p.same_model]
    assert [(p.a, p.b) for p in same] == [tuple(sorted(SEATS[:2]))]


def test_the_effective_number_splits_the_error_correlation_within_and_between_models() -> None:
    cases, found = verdicts()
    table = labelled_table(cases, found, RUBRIC, "pass")
    worth = effective(table, list(SEATS), Seats.of_panel(PANEL))
    labels = np.array([table.labels[i] for i in range(len(cases))])
    errors = {
        name: np.array([table.jurors[i][name] != table.keys[labels[i]] for i in range(len(cases))])
        for name in SEATS
    }

    def r(a: str, b: str) -> float:
        return float(np.corrcoef(errors[a].astype(float), errors[b].astype(float))[0, 1])

    assert worth.same_model is not None
    assert worth.other_models is not None
    assert worth.same_model.value == pytest.approx(r(SEATS[0], SEATS[1]))
    between = (r(SEATS[0], SEATS[2]) + r(SEATS[1], SEATS[2])) / 2
    assert worth.other_models.value == pytest.approx(between)
    # Two seats copying one coin: their errors correlate far more than across models, and
    # three seats are worth fewer than three independent judges.
    within, across = worth.same_model.value, worth.other_models.value
    assert within is not None
    assert across is not None
    assert within > across + 0.3
    assert worth.effective.value is not None
    assert worth.effective.value < 3


def test_without_seats_of_one_model_the_split_says_why_it_is_undefined() -> None:
    cases, found = verdicts()
    table = labelled_table(cases, found, RUBRIC, "pass")
    alone = Seats.of_panel(
        Panel(
            jurors=tuple(
                Juror(model=f"openai/m{i}-2025-01-01", name=s) for i, s in enumerate(SEATS)
            )
        )
    )
    worth = effective(table, list(SEATS), alone)
    assert worth.models == 3
    assert worth.same_model is not None
    assert worth.same_model.value is None
    assert worth.same_model.reason == "no two seats share a model"
