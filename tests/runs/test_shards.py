"""Shards: four `jury run --shard i/4` processes merged by `jury merge` are the run unsharded
(verdicts, summary, agreement); shards that overlap, leave a gap, are unfinished or come from
another run are refused, with what is wrong named."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from jury import Case, ConfigError
from jury.cli import main
from jury.runs._records import read_verdicts
from jury.runs._shards import Shard, shard_of

ROOT = Path(__file__).resolve().parents[2]
CASES = 100


def write_cases(path: Path, count: int, start: int = 0, *, lost: int = 5) -> Path:
    """Cases whose every `lost`-th answer is wrong (and every seventh too short)."""
    lines = []
    for n in range(start, start + count):
        golden = f"Order ORD-{n} shipped on day {n % 9 + 1} and arrives in {n % 4 + 2} days."
        answer = golden if n % lost else f"Order ORD-{n} was lost; call support."
        if n % 7 == 0:
            answer = f"ORD-{n} shipped."
        case = {"id": f"s{n:04d}", "category": f"c{n % 3}", "question": f"Where is ORD-{n}?"}
        lines.append(json.dumps(case | {"answer": answer, "golden_answer": golden}) + "\n")
    path.write_text("".join(lines))
    return path


def jury(*args: str, cwd: Path) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    env["JURY_CACHE_DIR"] = str(cwd / "cache")
    command = [sys.executable, "-m", "jury", *args, "--progress", "none"]
    return subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )


def decided(run: Path) -> dict[str, Any]:
    return {
        v.case_id: (
            v.verdict,
            {name: result.value for name, result in v.metrics.items()},
            sorted(
                (vote.juror, vote.status, tuple(sorted(vote.scores.items()))) for vote in v.votes
            ),
            v.reasons,
        )
        for v in read_verdicts(run)
    }


def without_timings(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: without_timings(v) for k, v in data.items() if k not in ("latency_s",)}
    if isinstance(data, list):
        return [without_timings(v) for v in data]
    return data


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four shards run as four processes at once, the same cases unsharded, and another
    version of the cases (other answers wrong) to compare them with."""
    where = tmp_path_factory.mktemp("shards")
    cases = write_cases(where / "cases.jsonl", CASES)
    processes = [
        jury("run", str(cases), "--shard", f"{i}/4", "--out", f"s{i}", cwd=where)
        for i in range(1, 5)
    ]
    processes.append(jury("run", str(cases), "--out", "whole", cwd=where))
    other = write_cases(where / "other.jsonl", CASES, lost=3)
    processes.append(jury("run", str(other), "--out", "other", cwd=where))
    for process in processes:
        _, err = process.communicate(timeout=120)
        assert process.returncode in (1, 3), err
    return where


def test_four_shards_merged_are_the_run_unsharded(
    shards: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(shards)
    parts = [decided(shards / f"s{i}") for i in range(1, 5)]
    assert sum(len(p) for p in parts) == CASES
    assert all(parts)  # every shard judged some of the cases
    whole = json.loads((shards / "whole/manifest.json").read_text())
    code = main(["merge", "s1", "s2", "s3", "s4", "--out", "merged", "--progress", "none"])
    assert code == whole["exit_code"]
    assert decided(shards / "merged") == decided(shards / "whole")
    summaries = [
        json.loads((shards / run / "summary.json").read_text()) for run in ("merged", "whole")
    ]
    assert without_timings(summaries[0]) == without_timings(summaries[1])
    agreements = []
    for run in ("merged", "whole"):
        capsys.readouterr()
        main(["agreement", run, "--json"])
        agreements.append(json.loads(capsys.readouterr().out))
    assert agreements[0] == agreements[1]
    # `jury compare` of the merged run with another gives what it gives for the unsharded run,
    # on either side.
    for pair in (
        (("merged", "other"), ("whole", "other")),
        (("other", "merged"), ("other", "whole")),
    ):
        compared = []
        for a, b in pair:
            capsys.readouterr()
            compared.append((main(["compare", a, b, "--json"]), capsys.readouterr().out))
        assert compared[0] == compared[1]
        result = json.loads(compared[0][1])
        assert result["common"] == CASES
        assert {change["kind"] for change in result["changes"]} >= {"regression", "improvement"}
    merged = json.loads((shards / "merged/manifest.json").read_text())
    assert [m["shard"] for m in merged["merged"]] == ["1/4", "2/4", "3/4", "4/4"]
    assert merged["cases"]["count"] == CASES
    assert merged["subset"]["selected"] == CASES  # not shard 1's: reports count against it
    assert "shard" not in merged
    # The merged run lists its cases in the cases file's order.
    lines = (shards / "merged/cases.jsonl").read_text().splitlines()
    ids = [json.loads(line)["id"] for line in lines]
    assert ids == [f"s{n:04d}" for n in range(CASES)]


def test_each_shards_manifest_names_it(shards: Path) -> None:
    for i in range(1, 5):
        manifest = json.loads((shards / f"s{i}/manifest.json").read_text())
        assert manifest["shard"]["index"] == i
        assert manifest["shard"]["count"] == 4
        assert manifest["shard"]["cases"] == len(read_verdicts(shards / f"s{i}"))


@pytest.mark.parametrize(
    ("runs", "problem"),
    [
        (["s1", "s2", "s2", "s3", "s4"], "overlap: shard 2/4 is given 2 times"),
        (["s1", "s2", "s4"], "gap: shard 3/4 missing"),
        (["s1", "s2", "s3", "s4", "whole"], "whole: not a shard"),
    ],
)
def test_merge_refuses_overlaps_gaps_and_runs_that_are_not_shards(
    shards: Path,
    runs: list[str],
    problem: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(shards)
    assert main(["merge", *runs, "--out", "refused", "--progress", "none"]) == 2
    assert problem in capsys.readouterr().err
    assert not (shards / "refused").exists()


def test_merge_refuses_a_shard_of_another_cases_file_or_an_unfinished_one(
    shards: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    other = write_cases(tmp_path / "other.jsonl", 20)
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(other), "--shard", "2/4", "--out", "o2", "--progress", "none"]) in (
        1,
        3,
    )
    assert main(["merge", str(shards / "s1"), "o2", "--progress", "none"]) == 2
    assert "the cases file differs" in capsys.readouterr().err
    # A shard killed halfway: its verdicts file holds fewer lines than its cases.
    unfinished = tmp_path / "s3"
    subprocess.run(["cp", "-r", str(shards / "s3"), str(unfinished)], check=True)
    lines = (unfinished / "verdicts.jsonl").read_text().splitlines(keepends=True)
    (unfinished / "verdicts.jsonl").write_text("".join(lines[:-2]))
    runs = [str(shards / "s1"), str(shards / "s2"), str(unfinished), str(shards / "s4")]
    assert main(["merge", *runs, "--progress", "none"]) == 2
    assert "is unfinished: 2 cases have no verdict" in capsys.readouterr().err


def test_shards_with_other_thresholds_are_refused_naming_them_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Thresholds change the rubric's fingerprint too: the one change was named twice, as
    # "the jury differs" and "the rubric differs", and neither said what.
    cases = write_cases(tmp_path / "cases.jsonl", 12)
    monkeypatch.chdir(tmp_path)
    for index, flags in (("1/2", []), ("2/2", ["--threshold", "3"])):
        args = ["run", str(cases), "--shard", index, "--out", f"s{index[0]}", "--no-cache"]
        assert main([*args, "--progress", "none", *flags]) in (0, 1)
    capsys.readouterr()
    assert main(["merge", "s1", "s2", "--out", "m", "--progress", "none"]) == 2
    err = capsys.readouterr().err
    assert "cannot merge: 1 problem" in err
    assert "shard 2/2 (s2): the jury (thresholds) differs from shard 1/2 (s1)'s" in err


def test_a_case_keeps_its_shard_when_cases_are_added() -> None:
    before = {f"s{n:04d}": shard_of(f"s{n:04d}", 4) for n in range(500)}
    after = {f"s{n:04d}": shard_of(f"s{n:04d}", 4) for n in range(1000)}
    assert all(after[case] == shard for case, shard in before.items())
    sizes = Counter(after.values())
    assert set(sizes) == {1, 2, 3, 4}
    assert min(sizes.values()) > 200  # roughly a quarter each
    cases = [Case(id=case_id, answer="a") for case_id in after]
    picked = [case.id for i in range(1, 5) for case in Shard(i, 4).select(cases)]
    assert sorted(picked) == sorted(after)  # every case once


def test_a_shard_divides_the_account_limits_unless_told_otherwise() -> None:
    from jury import Panel, ProviderLimits

    panel = Panel(
        jurors=["openai/gpt-4.1-mini-2025-04-14"],
        providers={"openai": ProviderLimits(concurrency=10, rpm=500, tpm=200_000)},
    )
    divided = Shard.parse("2/4").panel(panel).providers["openai"]
    assert (divided.concurrency, divided.rpm, divided.tpm) == (2, 125, 50_000)
    assert Shard.parse("2/4", "whole").panel(panel) is panel
    for bad in ("0/4", "5/4", "1-4", "x/y"):
        with pytest.raises(ConfigError, match="--shard"):
            Shard.parse(bad)


def test_a_shard_of_a_subset_takes_the_subsets_cases_not_its_own_first_n() -> None:
    from jury.cases._subset import Selection, Subset

    cases = [Case(id=f"s{n:04d}", question="q", answer="a") for n in range(200)]
    whole = Selection.of(cases, Subset(limit=40), len(cases))
    parts = [Shard(i, 4).narrow(whole) for i in range(1, 5)]
    ids = [[case.id for case in part.cases()] for part in parts]
    # The limit picks the first 40 of the file; the shards split those 40 among them.
    assert sorted(i for part in ids for i in part) == [f"s{n:04d}" for n in range(40)]
    assert [part.count for part in parts] == [len(part) for part in ids]
    assert all(part.subset == whole.subset for part in parts)
