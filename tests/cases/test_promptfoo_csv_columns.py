"""A promptfoo test CSV's own columns, read as promptfoo's `src/csv.ts` (`testCaseFromCsvRow`)
reads them: `__metadata:KEY[]` is a list, `__metric` and `__config:...` are no vars to show
the judges, `__providerOutput` is the answer, and `grade:` is `llm-rubric:`."""

from __future__ import annotations

from pathlib import Path

from jury import load_cases

TOOLS = Path(__file__).parents[1] / "data" / "tools"


def test_a_metadata_list_column_is_split_at_its_unescaped_commas() -> None:
    cases = load_cases(TOOLS / "promptfoo_csv-metadata" / "tests.csv")
    assert [c.question for c in cases] == ["machine learning", "quantum physics", "climate change"]
    assert cases[0].metadata["tags"] == ["ai", "data science", "algorithms"]
    assert cases[1].metadata["tags"] == ["physics", "advanced,theory", "quantum"]
    assert cases[2].metadata["category"] == "environment"
    assert "tags[]" not in cases[0].metadata
    assert cases[0].expected_behaviour == "Does this describe machine learning accurately?"


def test_metric_config_and_provider_output_columns_are_promptfoos_not_vars(
    tmp_path: Path,
) -> None:
    path = tmp_path / "tests.csv"
    path.write_text(
        "question,__expected,__metric,__config:__expected:threshold,__providerOutput\n"
        "Say hi?,grade:Says hi politely,polite,0.7,hello\n",
        encoding="utf-8",
    )
    (case,) = load_cases(path)
    assert (case.question, case.answer) == ("Say hi?", "hello")
    assert case.expected_behaviour == "Says hi politely"
    assert case.judge == {}
    assert case.metadata["metric"] == "polite"
    assert case.metadata["config:__expected:threshold"] == "0.7"
