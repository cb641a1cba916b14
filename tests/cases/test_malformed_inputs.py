"""Every bad input is refused cleanly: exit 2, the line (and field or key) named, every problem
listed, in the project's words, and no run directory written as if the run had happened."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest
from extras import needs

from jury.cli import main

GOOD = '{"id": "a", "question": "q", "answer": "x"}\n'
RUBRIC = """kind = "scale"
name = "mini"
[[metrics]]
name = "correctness"
description = "the answer is right"
levels = ["wrong", "mostly wrong", "half right", "mostly right", "right"]
"""
OFFLINE = 'jurors = ["offline/reference"]\n'


@dataclass(frozen=True)
class Bad:
    name: str
    files: dict[str, str | bytes]
    expect: tuple[str, ...]
    argv: tuple[str, ...] = ("cases.jsonl",)
    extra_files: dict[str, str | bytes] = field(default_factory=dict)
    #: The optional extra that reads the input (tests/extras.py), when one does.
    extra: str | None = None


def cases(text: str | bytes, name: str = "cases.jsonl", *expect: str, **kw: object) -> Bad:
    return Bad(f"{name}: {expect[0][:40]}", {name: text}, expect, (name,))


def jury(text: str, *expect: str) -> Bad:
    return Bad(
        f"jury: {expect[-1][:40]}",
        {"cases.jsonl": GOOD, "jury.toml": text},
        expect,
        ("cases.jsonl", "--jury", "jury.toml"),
    )


def rubric(text: str | bytes, *expect: str) -> Bad:
    return Bad(
        f"rubric: {expect[-1][:40]}",
        {"cases.jsonl": GOOD, "mini.toml": text},
        expect,
        ("cases.jsonl", "--rubric", "mini.toml"),
    )


def flags(*argv: str, expect: tuple[str, ...]) -> Bad:
    return Bad(f"flags: {' '.join(argv)}", {"cases.jsonl": GOOD}, expect, ("cases.jsonl", *argv))


DEEP = '{"id": "a", "metadata": ' + "[" * 5000 + "]" * 5000 + "}\n"

BAD = [
    # --- cases files ---------------------------------------------------------------------------
    cases(
        b'{"id":"a","question":"q\xff","answer":"x"}\n',
        "cases.jsonl",
        "cases.jsonl: 1 bad line; nothing was run",
        "line 1: not valid UTF-8 (byte 0xff at column 24)",
    ),
    cases(
        b"id,question\na,q\nb,caf\xe9\n",
        "cases.csv",
        "line 3: not valid UTF-8 (byte 0xe9 at column 6)",
    ),
    cases(DEEP, "cases.jsonl", "line 1: nested too deeply (at column "),
    cases(
        '{"id": "a", "answer": "x", "id": "b"}\n',
        "cases.jsonl",
        'line 1: the key "id" is given twice in one object (at column 33)',
    ),
    cases("", "cases.jsonl", "cases.jsonl: no cases (the file has no record)"),
    cases("\n   \n\t\n", "cases.jsonl", "cases.jsonl: no cases"),
    cases("id,question,answer\n", "cases.csv", "cases.csv: no cases"),
    cases(
        '{"idd": "a", "min_words": "ten", "max_words": 0}\n',
        "cases.jsonl",
        "cases.jsonl: 1 bad line (3 problems); nothing was run",
        'line 1: min_words: expected a whole number, got "ten"',
        "line 1: max_words: must be at least 1, got 0",
        "line 1: idd: unknown field (did you mean 'id'?)",
    ),
    cases(
        GOOD + '{"id": "b", "max_words": 0}\n{"id": "c", "min_words": -1}\n',
        "cases.jsonl",
        "2 bad lines; nothing was run",
        "line 2: max_words: must be at least 1, got 0",
        "line 3: min_words: must be at least 0, got -1",
    ),
    cases(
        '{"id": "a", "goldenAnwser": "x"}\n',
        "cases.jsonl",
        "line 1: goldenAnwser: unknown field (did you mean 'goldenAnswer'?)",
    ),
    cases(
        '{"id": "a", "zzz": 1}\n',
        "cases.jsonl",
        "line 1: unknown field zzz",
        "to keep them in metadata, add: --map metadata.zzz=zzz",
    ),
    cases(
        '{"id": "a", "answer": "x", "output": "y"}\n',
        "cases.jsonl",
        "line 1: answer is given twice, as answer and output",
    ),
    cases(GOOD + GOOD, "cases.jsonl", "line 2: id: duplicate id 'a' (first on line 1)"),
    cases(
        '{"id": "a", "metadata": {"score": NaN}}\n',
        "cases.jsonl",
        "line 1: not valid JSON: NaN and Infinity are not JSON numbers (at column 35)",
    ),
    cases(
        '{"id": "a", "answer": "\\ud800"}\n',
        "cases.jsonl",
        "line 1: not valid JSON: a \\u escape that is no character",
    ),
    cases("[1, 2]\n", "cases.jsonl", "line 1: a case must be a JSON object, not a list"),
    cases(
        "id,question,answer\na,q,x\n",
        "cases.jsonl",
        "line 1: not valid JSON: ",
        "(the file looks like CSV: name it .csv or pass --format csv)",
    ),
    cases(GOOD + GOOD.replace('"a"', '"b"'), "cases.json", "(the file looks like JSONL"),
    cases(
        '"hello"', "cases.json", "a JSON cases file holds a list of cases", "this one holds text"
    ),
    cases('{"cases": 5}', "cases.json", "this one holds a number"),
    cases(
        '{"cases": [], "version": 1}', "cases.json", "holds only 'cases'; found also ['version']"
    ),
    cases("[1]", "cases.json", "item 1: a case must be an object, not a number"),
    cases(
        '{"vars": "x"}\n',
        "cases.jsonl",
        "line 1: vars: expected a table (read as promptfoo tests)",
    ),
    cases(
        '{"input": "q", "actual_output": "a", "tools_called": {"name": "x"}}\n',
        "cases.jsonl",
        "line 1: tools_called: expected a list (read as DeepEval test cases)",
    ),
    cases(
        "id,answer,answer\na,x,y\n",
        "cases.csv",
        "line 1: header: the column 'answer' appears twice",
    ),
    cases(
        "id,question\na,q,extra\n", "cases.csv", "line 2: 3 cells, but the header names 2 columns"
    ),
    # JSON Lines read as CSV (a new user's `--format csv`): one line that says so, not a
    # problem per line with a --map "fix" made of JSON fragments.
    cases(
        '{"id": "a", "question": "q", "answer": "x"}\n',
        "cases.csv",
        "line 1: header: a JSON value where the header row should be: is the file JSON Lines?",
    ),
    cases(
        'id,trace.tool_calls\na,"[{broken"\n',
        "cases.csv",
        'line 2: trace.tool_calls: expected a list, got "[{broken"',
    ),
    cases(
        "- id: a\n  answer: x\n  answer: y\n",
        "cases.yaml",
        'line 3: not valid YAML: found duplicate key "answer"',
    ),
    cases("- id: a\n  answer: [x\n", "cases.yaml", "not valid YAML: "),
    cases(
        "prompts: [hi]\ntests: file://tests.csv\n",
        "promptfooconfig.yaml",
        "tests: file://tests.csv: no such file",
    ),
    replace(
        cases(b"PAR1 not really parquet", "cases.parquet", "not a Parquet file that can be read"),
        extra="parquet",
    ),
    Bad("missing cases file", {}, ("absent.jsonl: No such file or directory",), ("absent.jsonl",)),
    Bad("a folder as cases", {"folder/x": ""}, ("folder: Is a directory",), ("folder",)),
    cases(
        '{"id": "a", "min_words": 9, "max_words": 2}\n',
        "cases.jsonl",
        "line 1: min_words 9 is more than max_words 2",
    ),
    cases(
        '{"id": "a", "json_schema": {"type": "nope"}}\n',
        "cases.jsonl",
        "line 1: json_schema: not a valid JSON schema",
    ),
    cases(
        '{"id": "a", "retrieved_sources": ["a"], "trace": {"retrieved_sources": ["b"]}}\n',
        "cases.jsonl",
        "line 1: retrieved_sources is given both in the case and in its trace",
    ),
    flags("--map", "golden_answer", expect=("--map 'golden_answer': expected FIELD=PATH",)),
    flags(
        "--map",
        "golden_anwser=gold",
        expect=("--map: golden_anwser is not a case field (did you mean 'golden_answer'?)",),
    ),
    flags(
        "--map",
        "golden_answer=expected.anser",
        expect=("golden_answer=expected.anser: no record has expected.anser",),
    ),
    flags("--format", "xml", expect=("argument --format: invalid choice: 'xml'",)),
    # --- jury files ----------------------------------------------------------------------------
    jury(
        OFFLINE + "quorom = 1\nagregation = 'median'\n",
        "jury.toml: 2 bad keys",
        "quorom: unknown key (did you mean 'quorum'?)",
        "agregation: unknown key (did you mean 'aggregation'?)",
    ),
    jury(
        OFFLINE + "aggregation = 'medain'\n",
        'aggregation: "medain" is not one of median, mean, minimum, majority',
        "(did you mean 'median'?)",
    ),
    jury(
        OFFLINE + "threshold = 9\n",
        "jury.toml: threshold: 9 is outside the scale 1..5 of five-metric",
    ),
    jury(
        OFFLINE + "[thresholds]\ncorrectnes = 4\n",
        "jury.toml: thresholds: no metric named correctnes (did you mean 'correctness'?)",
    ),
    jury(OFFLINE + "quorum = [\n", "jury.toml: not valid TOML: "),
    jury("x = " + "[" * 3000 + "]" * 3000 + "\n", "jury.toml: not valid TOML: nested too deeply"),
    jury(
        'jurors = ["antropic/claude-haiku-4-5"]\n',
        "unknown provider 'antropic' (did you mean 'anthropic'?)",
    ),
    jury(
        OFFLINE + 'rubric = "five-metrc"\n',
        "unknown rubric 'five-metrc' (did you mean 'five-metric'?)",
    ),
    jury("jurors = []\n", "jury.toml: jurors: needs at least 1 item(s)"),
    jury(
        OFFLINE + '[[juror]]\nmodel = "offline/evidence"\n',
        "jury.toml: juror: give jurors either as 'jurors' or as [[juror]]",
    ),
    jury(
        OFFLINE + "[fields]\ngolden_anwser = 'gold'\n",
        "fields: golden_anwser is not a case field (did you mean 'golden_answer'?)",
    ),
    jury(
        '[[juror]]\nmodel = "offline/reference"\nweight = -1\n',
        "jury.toml: jurors[0].weight: must be more than 0, got -1",
    ),
    Bad(
        "a jury file that is not UTF-8",
        {"cases.jsonl": GOOD, "jury.toml": OFFLINE.encode() + b"# caf\xe9\n"},
        ("jury.toml: line 2: not valid UTF-8 (byte 0xe9 at column 6)",),
        ("cases.jsonl", "--jury", "jury.toml"),
    ),
    Bad(
        "a missing jury file",
        {"cases.jsonl": GOOD},
        ("absent.toml: No such file or directory",),
        ("cases.jsonl", "--jury", "absent.toml"),
    ),
    # --- rubric files --------------------------------------------------------------------------
    rubric(
        RUBRIC.replace("[[metrics]]", "treshold = 3\nspread_alert = 'wide'\n[[metrics]]"),
        "mini.toml: 2 bad keys",
        'spread_alert: expected a whole number, got "wide"',
        "treshold: unknown key (did you mean 'threshold'?)",
    ),
    rubric(
        RUBRIC.replace('name = "mini"', 'name = "mini"\nthreshold = 9'),
        "mini.toml: threshold: 9 is outside the scale 1..5",
    ),
    rubric(
        RUBRIC + "threshold = 0\n",
        "mini.toml: metrics[0].threshold: 0 is outside the scale 1..5",
    ),
    rubric(
        RUBRIC.replace('"scale"', '"scael"'), "kind: unknown kind 'scael' (did you mean 'scale'?)"
    ),
    rubric(RUBRIC.replace('kind = "scale"\n', ""), "mini.toml: kind: missing"),
    rubric(
        RUBRIC.replace('"wrong", ', ""),
        "mini.toml: metrics.correctness.levels: 4 given for a 1..5 scale",
    ),
    rubric(
        RUBRIC.encode() + b"# \xff\n", "mini.toml: line 7: not valid UTF-8 (byte 0xff at column 3)"
    ),
    rubric(
        'kind = "points"\nname = "p"\nthreshold = 1.5\n',
        "mini.toml: threshold: must be at most 1, got 1.5",
    ),
    flags(
        "--rubric",
        "five-metrc",
        expect=("unknown rubric 'five-metrc' (did you mean 'five-metric'?)",),
    ),
    # --- flags ---------------------------------------------------------------------------------
    flags(
        "--threshold", "9", expect=("--threshold 9: 9 is outside the scale 1..5 of five-metric",)
    ),
    flags("--jurry", "j.toml", expect=("usage: jury run", "(--jurry: did you mean '--jury'?)")),
    flags(
        "--thresh",
        "4",
        expect=("unrecognized arguments: --thresh 4", "did you mean '--threshold'?"),
    ),
    flags("--progress", "richh", expect=("invalid choice: 'richh'", "(did you mean 'rich'?)")),
]


def run(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse's own usage errors
        return int(exc.code or 0)


@pytest.mark.parametrize(
    "bad",
    [pytest.param(bad, id=bad.name, marks=needs(bad.extra) if bad.extra else ()) for bad in BAD],
)
def test_a_bad_input_is_refused_cleanly(
    bad: Bad, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    for name, content in bad.files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    code = run(["run", *bad.argv, "--out", "run", "--progress", "none"])
    err = capsys.readouterr().err
    assert code == 2, err
    for fragment in bad.expect:
        assert fragment in err
    for leak in ("Traceback", "Value error,", "(file)", "(line)", "(case)", "Input should be"):
        assert leak not in err
    assert not (tmp_path / "run").exists(), "a refused run wrote its run directory"


def test_the_table_covers_cases_jury_and_rubric_files() -> None:
    assert len(BAD) >= 40
    kinds = {bad.name.split(":")[0].split(".")[-1] for bad in BAD}
    assert {"jsonl", "csv", "json", "yaml", "jury", "rubric", "flags"} <= kinds


def test_a_refused_rerun_leaves_a_finished_run_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cases.jsonl").write_text(GOOD)
    assert run(["run", "cases.jsonl", "--out", "run", "--progress", "none"]) in (0, 1)
    before = {p.name: p.read_bytes() for p in (tmp_path / "run").iterdir()}
    (tmp_path / "cases.jsonl").write_bytes(GOOD.encode() + b'{"id": "b", "answer": "\xff"}\n')
    assert run(["run", "cases.jsonl", "--out", "run", "--progress", "none"]) == 2
    assert "line 2: not valid UTF-8" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in (tmp_path / "run").iterdir()} == before
    assert json.loads(before["manifest.json"])["cases"]["count"] == 1
