"""Each rubric kind writes the reply a reference juror gives, from what the juror measures
(`Rubric.reference_reply`): the reply passes the kind's own `read`, and carries exactly the
juror's measures, whatever the case."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from jury import Case, load_cases, load_rubric
from jury.adapters import Judgement, Preference, Rating, Rubric
from jury.rubrics._criterion import from_toml as criterion_from_toml

EXAMPLES = Path(__file__).parents[2] / "examples" / "shopnest"


class FixedJudge:
    """A reference judge that measures nothing: it answers what it is told, and logs the
    questions, so that a test sees exactly what a rubric asked."""

    name = "fixed"

    def __init__(
        self,
        rating: int = 4,
        verdict: Judgement | None = None,
        winner: Preference | None = None,
    ) -> None:
        self.rating = rating
        self.verdict = verdict or Judgement("yes", "it says so", None)
        self.winner = winner or Preference("1", "the first is better")
        self.asked: list[tuple[Any, ...]] = []

    def rate(self, text: str, aspects: Sequence[str]) -> Mapping[str, Rating]:
        self.asked.append(("rate", text, tuple(aspects)))
        return {aspect: Rating(self.rating, f"{aspect} looks fine") for aspect in aspects}

    def states(self, statement: str, text: str) -> Judgement:
        self.asked.append(("states", statement, text))
        if self.verdict.verdict == "yes":
            return Judgement("yes", self.verdict.why, text.split(".", maxsplit=1)[0])
        return self.verdict

    def meets(self, criterion: str, text: str) -> Judgement:
        self.asked.append(("meets", criterion, text))
        return self.verdict

    def about(self, case: Case) -> FixedJudge:
        self.asked.append(("about", case.question, case.answer))
        return self

    def prefer(self, first: str, second: str) -> Preference:
        self.asked.append(("prefer", first, second))
        return self.winner


def replies(rubric: Rubric, case: Case, judge: FixedJudge) -> list[Any]:
    """The reference reply to each of the case's prompts, each read back by the rubric."""
    ballots = []
    for prompt in rubric.prompts(case):
        reply = rubric.reference_reply(case, prompt, judge)
        ballots.append(rubric.read(case, prompt, reply))
    return ballots


@pytest.mark.parametrize(
    ("rubric", "cases"),
    [
        ("five-metric", "cases.jsonl"),
        ("grounded-answer", "cases.jsonl"),
        ("shopnest-points", "points.jsonl"),
        ("pairwise-preference", "pairwise.jsonl"),
    ],
)
def test_every_builtin_kind_writes_a_reply_its_own_read_accepts(rubric: str, cases: str) -> None:
    loaded = load_rubric(rubric)
    for case in load_cases(EXAMPLES / cases):
        for ballot in replies(loaded, case, FixedJudge()):
            assert "[fixed] " in ballot.reason  # signed by the judge that measured
            assert "downgraded" not in ballot.details  # a points quote occurs in the answer


def test_the_scale_kind_rates_each_metric_by_name_on_its_own_scale(tmp_path: Path) -> None:
    levels = ", ".join(f'"{i}"' for i in range(0, 11))
    path = tmp_path / "ten.toml"
    path.write_text(
        'kind = "scale"\nname = "ten"\nscale = [0, 10]\n'
        f'[[metrics]]\nname = "accuracy"\ndescription = "d"\nlevels = [{levels}]\n'
        f'[[metrics]]\nname = "tone"\ndescription = "d"\nlevels = [{levels}]\n'
    )
    judge = FixedJudge(rating=4)
    case = Case(id="c", question="Q?", answer="The answer.")
    (ballot,) = replies(load_rubric(str(path)), case, judge)
    # 4 on the judge's 1-5 is three quarters of the way up: 7.5, rounded to even.
    assert ballot.scores == {"accuracy": 8, "tone": 8}
    assert judge.asked == [("rate", "The answer.", ("accuracy", "tone"))]
    assert ballot.reason == "[fixed] accuracy 8: accuracy looks fine; tone 8: tone looks fine"


def test_the_points_kind_asks_each_point_and_penalty_and_quotes_the_judge() -> None:
    case = next(c for c in load_cases(EXAMPLES / "points.jsonl") if c.penalties)
    rubric = load_rubric("shopnest-points")
    judge = FixedJudge()
    (ballot,) = replies(rubric, case, judge)
    asked = [statement for kind, statement, _ in judge.asked if kind == "states"]
    points = [m.name for m in rubric.metrics(case)]
    assert len(asked) == len(points) == len(ballot.scores)
    assert set(ballot.scores.values()) == {"yes"}
    assert all(p["quotes"] for p in ballot.details["points"].values())


@pytest.mark.parametrize(("refute", "passes"), [(False, True), (True, False)])
def test_the_criterion_kind_reports_whether_the_criterion_holds(refute: bool, passes: bool) -> None:
    spec = {"kind": "criterion", "name": "grounded", "criterion": "Grounded.", "refute": refute}
    rubric = criterion_from_toml(spec, "test")
    case = Case(id="c", question="Q?", answer="A.")
    judge = FixedJudge(verdict=Judgement("yes", "grounded"))
    (ballot,) = replies(rubric, case, judge)
    # The reply says whether the criterion holds; `refute` is applied when it is read.
    assert ballot.details["criterion_met"] is True
    assert ballot.scores == {"pass": passes}
    assert judge.asked == [("meets", "Grounded.", "A.")]


def test_a_criterion_the_judge_cannot_tell_is_no_vote_not_a_default() -> None:
    rubric = load_rubric("grounded-answer")
    case = Case(id="c", question="Q?", answer="A.")
    (prompt,) = rubric.prompts(case)
    with pytest.raises(ValueError, match="cannot tell whether the answer meets the criterion"):
        rubric.reference_reply(case, prompt, FixedJudge(verdict=Judgement("cant_tell", "vague")))


def test_the_pairwise_kind_asks_in_the_order_each_prompt_shows() -> None:
    rubric = load_rubric("pairwise-preference")
    case = Case(id="c", question="Q?", answer="Answer A.", answer_b="Answer B.")
    judge = FixedJudge(winner=Preference("1", "the first is better"))
    first, second = replies(rubric, case, judge)
    assert [a[1:] for a in judge.asked] == [
        ("Answer A.", "Answer B."),
        ("Answer B.", "Answer A."),
    ]
    # Always preferring the answer shown first is a position bias: the orders disagree.
    assert (first.scores, second.scores) == ({"winner": "A"}, {"winner": "B"})
    assert rubric.combine(case, list(zip(rubric.prompts(case), (first, second), strict=True)))


def test_a_pairwise_tie_where_ties_are_not_allowed_names_the_answer_shown_first(
    tmp_path: Path,
) -> None:
    path = tmp_path / "strict.toml"
    path.write_text('kind = "pairwise"\nname = "strict"\nallow_tie = false\npass_when = ["A"]\n')
    rubric = load_rubric(str(path))
    case = Case(id="c", question="Q?", answer="Same.", answer_b="Same.")
    judge = FixedJudge(winner=Preference("tie", "cannot tell them apart"))
    for prompt in rubric.prompts(case):
        assert rubric.reference_reply(case, prompt, judge)["winner"] == "1"


def test_the_base_rubric_writes_no_reference_reply() -> None:
    rubric = load_rubric("five-metric")
    case = Case(id="c", question="Q?", answer="A.")
    (prompt,) = rubric.prompts(case)
    with pytest.raises(NotImplementedError, match="scale rubrics write no reference reply"):
        Rubric.reference_reply(rubric, case, prompt, FixedJudge())
