"""Subsets: `--ids`, `--category`, `--sample` (stratified by category), `--limit`, `--seed`, the
same in `jury run`, `jury estimate`, `jury rescore` and `jury agreement`, recorded in the
manifest."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jury import ConfigError
from jury.cases._subset import Subset, stratified_sample
from jury.cli import main
from jury.runs._records import read_cases, read_manifest, read_verdicts

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "shopnest" / "cases.jsonl"
PAIRS = [(c["id"], c.get("category")) for c in map(json.loads, EXAMPLE.read_text().splitlines())]
SIZES = Counter(category for _, category in PAIRS)


@pytest.fixture(autouse=True)
def _records_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JURY_CACHE_DIR", raising=False)


def test_ids_and_categories_keep_file_order() -> None:
    picked = Subset(ids=("tool-status-02", "policy-return-01")).select(PAIRS)
    assert picked == ["policy-return-01", "tool-status-02"]
    tools = Subset(categories=("tool",)).select(PAIRS)
    assert tools == [i for i, c in PAIRS if c == "tool"]
    both = Subset(ids=("tool-status-02", "policy-return-01"), categories=("tool",))
    assert both.select(PAIRS) == ["tool-status-02"]
    assert Subset(categories=("edge",), limit=2).select(PAIRS) == [
        "edge-return-day30",
        "edge-return-day45",
    ]


def test_a_name_that_matches_nothing_is_an_error_not_an_empty_run() -> None:
    with pytest.raises(ConfigError, match="--ids: no case with the ID tool-status-99"):
        Subset(ids=("tool-status-01", "tool-status-99")).select(PAIRS)
    with pytest.raises(ConfigError, match=r"category tol \(there are: adversarial, combined"):
        Subset(categories=("tol",)).select(PAIRS)


def test_the_sample_is_stratified_and_reproducible() -> None:
    sample = Subset(sample=12, seed=7).select(PAIRS)
    assert len(sample) == 12
    assert sample == Subset(sample=12, seed=7).select(PAIRS)
    assert sample != Subset(sample=12, seed=8).select(PAIRS)
    by_category = Counter(dict(PAIRS)[i] for i in sample)
    # 24 cases in six categories: every category is represented, and half of each is taken
    # (give or take the rounding of the shares).
    assert set(by_category) == set(SIZES)
    for category, size in SIZES.items():
        assert abs(by_category[category] - size / 2) <= 1, (category, by_category)
    assert sample == [i for i, _ in PAIRS if i in set(sample)]  # file order


strata = st.dictionaries(
    st.sampled_from(["a", "b", "c", "d", "e", None]), st.integers(1, 30), min_size=1
)


@given(strata, st.integers(1, 150), st.integers(0, 10**6))
def test_the_stratified_sample_has_its_size_and_fair_shares(
    sizes: dict[str | None, int], size: int, seed: int
) -> None:
    pairs = [(f"{c}-{i}", c) for c, n in sizes.items() for i in range(n)]
    picked = stratified_sample(pairs, size, random.Random(seed))
    assert len(picked) == min(size, len(pairs))
    assert len(set(picked)) == len(picked)
    counts = Counter(i.rpartition("-")[0] for i in picked)
    if len(sizes) <= size < len(pairs):
        # One case per category first, the rest in proportion to what each has left.
        rest = size - len(sizes)
        room = len(pairs) - len(sizes)
        for category, n in sizes.items():
            share = 1 + rest * (n - 1) / room
            assert abs(counts[str(category)] - share) < 1, (category, counts, share)


def test_jury_run_judges_the_subset_and_records_it(tmp_path: Path) -> None:
    out = tmp_path / "run"
    argv = ["run", str(EXAMPLE), "--out", str(out), "--progress", "none"]
    code = main([*argv, "--category", "policy,tool", "--sample", "4", "--seed", "3"])
    assert code in (0, 1)
    verdicts = read_verdicts(out)
    expected = Subset(categories=("policy", "tool"), sample=4, seed=3).select(PAIRS)
    assert sorted(v.case_id for v in verdicts) == sorted(expected)
    assert [c.id for c in read_cases(out)] == expected
    manifest = read_manifest(out)
    assert manifest["subset"] == {
        "ids": [],
        "categories": ["policy", "tool"],
        "sample": 4,
        "limit": None,
        "seed": 3,
        "selected": 4,
        "of": len(PAIRS),
    }
    assert manifest["cases"]["count"] == 4
    # A resumed run must keep its subset.
    assert main([*argv, "--category", "policy,tool", "--sample", "4", "--seed", "4"]) == 2
    assert main([*argv, "--category", "policy,tool", "--sample", "4", "--seed", "3"]) == code


def test_rescore_and_agreement_take_the_same_filters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    main(["run", str(EXAMPLE), "--out", str(out), "--progress", "none"])
    rescored = tmp_path / "rescored"
    argv = ["rescore", str(out), "--out", str(rescored), "--progress", "none"]
    main([*argv, "--category", "edge", "--limit", "3"])
    assert [v.case_id for v in read_verdicts(rescored)] == [
        "edge-return-day30",
        "edge-return-day45",
        "edge-out-of-scope-01",
    ]
    assert read_manifest(rescored)["subset"]["of"] == len(PAIRS)
    capsys.readouterr()
    code = main(["agreement", str(out), "--json", "--bootstrap", "0", "--ids", "tool-status-01"])
    assert code == 0
    assert json.loads(capsys.readouterr().out)["cases"] == 1
    assert main(["agreement", str(out), "--category", "nope"]) == 2
    assert "no case in the category nope" in capsys.readouterr().err


def test_estimate_counts_only_the_subset(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["estimate", str(EXAMPLE), "--ids", "policy-return-01,tool-status-01"]) == 0
    assert "Total: 6 calls" in capsys.readouterr().out  # two cases, three offline jurors
