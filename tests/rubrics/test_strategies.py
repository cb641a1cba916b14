"""The built-in strategies: what each adds to every built-in rubric's prompts, the fields it
asks for first, how they are read, and the golden files that pin the bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

from jury import Case, load_rubric
from jury.adapters import InvalidReply, Rubric, Strategy
from jury.adapters._registry import builtin_rubrics
from jury.adapters._strategy import known_strategies, strategy_named
from jury.cli import main
from jury.rubrics import STRATEGIES

GOLDEN = Path(__file__).parent.parent / "golden"
WITH_FIELDS = {
    "metrics": ["questions"],
    "reference": ["own_answer"],
    "metrics_reference": ["questions", "own_answer"],
    "cot": ["reasoning"],
}
#: The golden files' first case: it has the points, the second answer and the trace every
#: built-in rubric needs.
GOLDEN_CASE = Case.model_validate_json(
    (GOLDEN / "cases.jsonl").read_text(encoding="utf-8").splitlines()[0]
)


def judged(name: str) -> tuple[Rubric, Case]:
    return load_rubric(name), GOLDEN_CASE


def test_the_builtin_strategies_are_the_six_of_the_issue_each_citing_its_source() -> None:
    assert set(STRATEGIES) == {"plain", "rules", "metrics", "reference", "metrics_reference", "cot"}
    assert set(STRATEGIES) <= set(known_strategies())
    for name in STRATEGIES:
        strategy = strategy_named(name)
        assert strategy.name == name
        assert strategy.source
    assert "Zeng et al." in strategy_named("rules").source
    assert "JudgeBench" in strategy_named("reference").source


@pytest.mark.parametrize("name", builtin_rubrics())
def test_plain_sends_the_rubrics_own_prompts_unchanged(name: str) -> None:
    rubric, judged_case = judged(name)
    prompts = rubric.prompts(judged_case)
    assert strategy_named("plain").apply(rubric, prompts) == prompts


@pytest.mark.parametrize("name", builtin_rubrics())
@pytest.mark.parametrize("strategy", sorted(WITH_FIELDS))
def test_each_strategy_asks_its_fields_first_on_every_builtin_rubric(
    name: str, strategy: str
) -> None:
    rubric, judged_case = judged(name)
    plain = rubric.prompts(judged_case)
    asked = strategy_named(strategy).apply(rubric, plain)
    fields = WITH_FIELDS[strategy]
    for before, after in zip(plain, asked, strict=True):
        assert after.user == before.user  # the case is rendered as it always is
        assert after.system.startswith(before.system)
        assert f"How to judge ({strategy}):" in after.system
        assert list(after.schema["properties"])[: len(fields)] == fields
        assert after.schema["required"][: len(fields)] == fields
        assert list(after.schema["properties"])[len(fields) :] == list(before.schema["properties"])


@pytest.mark.parametrize("name", builtin_rubrics())
def test_rules_takes_pairwise_rubrics_only(name: str) -> None:
    rubric, _ = judged(name)
    refused = strategy_named("rules").refuses(rubric)
    if rubric.kind == "pairwise":
        assert refused is None
    else:
        assert refused is not None
        assert "pairwise rubrics only" in refused


def test_the_fields_are_read_off_the_reply_and_the_rest_left_to_the_rubric() -> None:
    rubric, judged_case = judged("five-metric")
    strategy = strategy_named("metrics_reference")
    (prompt,) = strategy.apply(rubric, rubric.prompts(judged_case))
    scores = {m.name: 5 for m in rubric.metrics(judged_case)}
    reply = {"questions": " Q1?\nQ2? ", "own_answer": "Yes.", "reason": "fine", **scores}
    generated, rest = strategy.read(reply)
    assert generated == {"questions": "Q1?\nQ2?", "own_answer": "Yes."}
    assert rest == {"reason": "fine", **scores}
    assert rubric.read(judged_case, prompt, rest).scores == scores


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ({"own_answer": "Yes."}, "questions: missing"),
        ({"questions": "  ", "own_answer": "Yes."}, "questions: empty"),
        ({"questions": ["Q1?"], "own_answer": "Yes."}, "questions: expected a string"),
        ({}, "questions: missing; own_answer: missing"),
    ],
)
def test_a_missing_or_empty_field_is_an_invalid_reply_naming_it(
    reply: dict[str, object], reason: str
) -> None:
    with pytest.raises(InvalidReply) as caught:
        strategy_named("metrics_reference").read(reply)
    assert caught.value.reason == reason


def test_a_field_the_rubric_already_asks_for_is_refused() -> None:
    rubric, judged_case = judged("five-metric")
    clash = Strategy(name="clash", fields={"reason": "twice"})
    with pytest.raises(ValueError, match="already has reason"):
        clash.apply(rubric, rubric.prompts(judged_case))


def _check(jury_file: str, rubric: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "prompts",
            str(GOLDEN / "cases.jsonl"),
            "--jury",
            str(GOLDEN / jury_file),
            "--rubric",
            rubric,
            "--snapshot",
            str(GOLDEN / "strategy-prompts"),
            "--check",
        ]
    )
    assert code == 0, capsys.readouterr().out


@pytest.mark.parametrize("name", builtin_rubrics())
def test_every_strategys_prompts_match_their_golden_files(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = GOLDEN / "strategy-prompts" / name
    assert folder.is_dir(), f"no golden strategy files for {name}: see {GOLDEN}/README.md"
    rubric = load_rubric(name)
    _check(
        "strategies-pairwise.toml" if rubric.kind == "pairwise" else "strategies.toml", name, capsys
    )
    pinned = {
        path.read_text(encoding="utf-8").splitlines()[0].rsplit("· strategy ", 1)[-1]
        for path in folder.rglob("*.txt")
    }
    assert pinned == set(WITH_FIELDS) | ({"rules"} if rubric.kind == "pairwise" else set())


def test_a_golden_strategy_file_holds_its_instructions_and_its_fields() -> None:
    text = next(
        (GOLDEN / "strategy-prompts" / "five-metric" / "return-ord-102").glob(
            "*metrics_reference*.txt"
        )
    ).read_text()
    assert "· strategy metrics_reference" in text.splitlines()[0]
    assert "How to judge (metrics_reference):" in text
    assert 'the JSON object starts {"questions": ' in text
