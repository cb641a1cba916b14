"""Agreement on any table of scores (issue 33): `jury agreement FILE` and `read_scores` read a
CSV, TSV or JSONL of ratings from elsewhere, wide or long, at the level asked, and give what
they give on a run. Krippendorff's own reliability data reproduce his published alphas; the
PandaLM annotators reproduce the authors' pairwise kappas; a bad line is named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from extras import needs

from jury import CaseFileError
from jury.agreement import Ratings, cohen_kappa, krippendorff_alpha, read_scores
from jury.cli import main

DATA = Path(__file__).parents[1] / "data" / "agreement"
KRIPPENDORFF = DATA / "krippendorff_2011.csv"
#: Krippendorff (2011), section C: the same reliability data at each level.
PUBLISHED = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}
PANDALM = Path(__file__).parents[3] / "shared/data/pandalm/pandalm_testset_multirater.jsonl"


def agreement_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:  # type: ignore[type-arg]
    capsys.readouterr()
    assert main(["agreement", *args, "--json"]) == 0
    found: dict = json.loads(capsys.readouterr().out)  # type: ignore[type-arg]
    return found


@pytest.mark.parametrize("level", sorted(PUBLISHED))
def test_krippendorffs_reliability_data_give_his_published_alphas(
    level: str, capsys: pytest.CaptureFixture[str]
) -> None:
    found = agreement_json(capsys, str(KRIPPENDORFF), "--level", level, "--bootstrap", "0")
    (metric,) = found["metrics"].values()
    assert round(metric["alpha"]["value"], 3) == PUBLISHED[level]


@needs("test")
@pytest.mark.parametrize("level", sorted(PUBLISHED))
def test_krippendorffs_reliability_data_give_what_the_krippendorff_package_computes(
    level: str,
) -> None:
    import krippendorff

    ratings = read_scores(KRIPPENDORFF, level=level)  # type: ignore[arg-type]
    matrix = np.array(
        [[np.nan if c < 0 else ratings.values[c] for c in row] for row in ratings.codes.T],
        dtype=float,
    )
    reference = krippendorff.alpha(reliability_data=matrix, level_of_measurement=level)  # type: ignore[arg-type]
    assert krippendorff_alpha(ratings).value == pytest.approx(reference, abs=1e-12)


def test_the_long_layout_and_other_formats_read_the_same_ratings(tmp_path: Path) -> None:
    wide = read_scores(KRIPPENDORFF, level="ordinal")
    long_rows = [
        {"item": unit, "rater": rater, "score": wide.values[code]}
        for unit, row in zip(wide.units, wide.codes, strict=True)
        for rater, code in zip(wide.raters, row, strict=True)
        if code >= 0
    ]
    jsonl = tmp_path / "long.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in long_rows))
    tsv = tmp_path / "wide.tsv"
    tsv.write_text(KRIPPENDORFF.read_text().replace(",", "\t"))
    for path in (jsonl, tsv):
        other = read_scores(path, level="ordinal")
        assert krippendorff_alpha(other).value == pytest.approx(krippendorff_alpha(wide).value)
        assert sorted(other.raters) == ["A", "B", "C", "D"]


def _pandalm(tmp_path: Path) -> tuple[list[dict[str, Any]], Ratings]:
    rows = [json.loads(line) for line in PANDALM.read_text().splitlines() if line.strip()]
    table = tmp_path / "pandalm.csv"
    table.write_text(
        "idx,a1,a2,a3\n" + "".join(f"{r['idx']},{','.join(map(str, r['human']))}\n" for r in rows)
    )
    return rows, read_scores(table)


#: The PandaLM authors' pairwise kappas between their three annotators.
PANDALM_KAPPAS = {("a1", "a2"): 0.85, ("a1", "a3"): 0.88, ("a2", "a3"): 0.86}


@pytest.mark.skipif(not PANDALM.is_file(), reason="the PandaLM data (../shared/data) is absent")
def test_pandalms_three_annotators_give_the_authors_pairwise_kappas(tmp_path: Path) -> None:
    _, ratings = _pandalm(tmp_path)
    assert len(ratings.units) == 999
    for (a, b), value in PANDALM_KAPPAS.items():
        found = cohen_kappa(ratings.select([a, b])).value
        assert found is not None
        assert round(found, 2) == value


@needs("test")
@pytest.mark.skipif(not PANDALM.is_file(), reason="the PandaLM data (../shared/data) is absent")
def test_pandalms_annotators_kappas_are_scikit_learns(tmp_path: Path) -> None:
    from sklearn.metrics import cohen_kappa_score

    rows, ratings = _pandalm(tmp_path)
    for a, b in PANDALM_KAPPAS:
        found = cohen_kappa(ratings.select([a, b])).value
        reference = cohen_kappa_score(
            [r["human"][int(a[1]) - 1] for r in rows], [r["human"][int(b[1]) - 1] for r in rows]
        )
        assert found == pytest.approx(reference, abs=1e-12)


def test_a_bad_table_names_its_lines_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("item,rater,score\n1,A,3\n1,A,4\n,B,2\n2,B,2\n")
    with pytest.raises(CaseFileError) as raised:
        read_scores(bad)
    assert [e.line for e in raised.value.errors] == [3, 4]
    assert main(["agreement", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "line 3: score: A rated 1 twice, 3 and 4" in err
    assert "line 4: item: missing" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("layout", ["wide", "long"])
def test_a_text_rating_among_numbers_is_refused_at_the_ordinal_level_not_ranked_top(
    layout: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A judge's unparsed reply ("garbage") once sorted after the numbers and became the top of
    # the scale: alpha 0.300 and no word. It has no rank, so the table is refused where it
    # stands; "NA" still reads as missing, and the nominal level still takes text.
    table = tmp_path / "ord.csv"
    if layout == "wide":
        table.write_text("item,r1,r2\n1,1,1\n2,2,2\n3,3,3\n4,1,garbage\n5,3,NA\n")
        where = "line 5: r2: 'garbage' is text"
    else:
        rows = [("1", "a", "1"), ("1", "b", "1"), ("2", "a", "2"), ("2", "b", "garbage")]
        table.write_text("item,rater,score\n" + "".join(",".join(r) + "\n" for r in rows))
        where = "line 5: score: 'garbage' is text"
    for level in ("ordinal", "interval"):
        with pytest.raises(CaseFileError):
            read_scores(table, level=level)
        capsys.readouterr()
        assert main(["agreement", str(table), "--level", level, "--bootstrap", "0"]) == 2
        err = capsys.readouterr().err
        assert where in err
        assert "no place on the" in err
    assert "garbage" in read_scores(table, level="nominal").values


@pytest.mark.parametrize(
    ("level", "cell", "values", "said"),
    [
        ("ratio", "-1", (), "-1 is below zero: the ratio level needs values >= 0"),
        ("interval", "inf", (), "inf is not a finite rating"),
        ("nominal", "1e999", (), "inf is not a finite rating"),
        ("ordinal", "7", (1, 2, 3), "7 is not on the declared ordinal scale (1, 2, 3)"),
    ],
)
def test_a_value_the_level_or_scale_cannot_place_is_named_at_its_line_not_the_header(
    level: str,
    cell: str,
    values: tuple[int, ...],
    said: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # These rules were checked on the whole table, which knows no lines: each was reported at
    # line 1, the header, while the value stood further down (line 116 of a PandaLM table).
    table = tmp_path / "t.csv"
    table.write_text(f"item,r1,r2\n1,1,1\n2,2,2\n3,3,{cell}\n4,1,2\n")
    with pytest.raises(CaseFileError) as raised:
        read_scores(table, level=level, values=values)  # type: ignore[arg-type]
    assert [(e.line, e.field) for e in raised.value.errors] == [(4, "r2")]
    assert said in raised.value.errors[0].reason
    if not values:  # the command declares no scale for a table
        capsys.readouterr()
        assert main(["agreement", str(table), "--level", level, "--bootstrap", "0"]) == 2
        assert f"line 4: r2: {said}" in capsys.readouterr().err


def test_ratings_refuse_text_among_numbers_at_the_ordinal_level() -> None:
    with pytest.raises(ValueError, match="'garbage' is text among numbers"):
        Ratings.from_rows([[1, 1], [2, 2], [3, 3], [1, "garbage"]], level="ordinal")
    # Text alone keeps its (declared or sorted) order, and a declared scale places its values.
    assert Ratings.from_rows([["lo", "hi"]], level="ordinal").values == ("hi", "lo")
    declared = Ratings.from_rows([[1, "x"]], level="ordinal", values=[1, "x"])
    assert declared.values == (1, "x")
