"""The command line: no abbreviated flags, a subcommand's own usage on its errors, and the
closest spelling suggested for a mistyped command, flag or choice."""

from __future__ import annotations

import pytest

from jury.cli import main


def usage_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2
    return capsys.readouterr().err


def test_a_mistyped_command_gets_the_closest(capsys: pytest.CaptureFixture[str]) -> None:
    err = usage_error(["rnu", "cases.jsonl"], capsys)
    assert "invalid choice: 'rnu'" in err
    assert err.rstrip().endswith("(did you mean 'run'?)")


def test_a_flag_error_shows_the_subcommands_usage(capsys: pytest.CaptureFixture[str]) -> None:
    err = usage_error(["agreement", "runs/x", "--fail-undr", "0.8"], capsys)
    assert err.startswith("usage: jury agreement ")
    assert "--fail-under" in err.splitlines()[0] or "[--fail-under" in err
    assert "(--fail-undr: did you mean '--fail-under'?)" in err


def test_an_unambiguous_abbreviation_is_still_refused(capsys: pytest.CaptureFixture[str]) -> None:
    # `--jur` could only be --jury today; a flag added tomorrow would change its meaning.
    err = usage_error(["run", "cases.jsonl", "--jur", "jury.toml"], capsys)
    assert "unrecognized arguments: --jur jury.toml" in err
    assert "did you mean '--jury'?" in err


def test_a_flag_far_from_any_gets_no_guess(capsys: pytest.CaptureFixture[str]) -> None:
    err = usage_error(["run", "cases.jsonl", "--zzzzzz"], capsys)
    assert err.rstrip().endswith("unrecognized arguments: --zzzzzz")


def test_a_rule_of_the_verdict_given_to_run_says_where_it_is_set_not_a_near_spelling(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A new user's trial: `jury run --quorum 2` got "did you mean '--resume'?", a flag that
    # continues a run and sets no quorum.
    err = usage_error(["run", "cases.jsonl", "--out", "r", "--quorum", "2"], capsys)
    assert "--resume" not in err.splitlines()[-1]
    assert err.rstrip().endswith(
        "(--quorum is not a flag of jury run: set quorum = N in the jury file (--jury FILE); "
        "`jury rescore RUN --quorum N` decides a recorded run again by it, calling no judge)"
    )
    err = usage_error(["run", "cases.jsonl", "--min-pass-rate", "0.9"], capsys)
    assert "set min_pass_rate = P under [gate] in the jury file" in err
    assert "`jury rescore RUN --min-pass-rate P`" in err


def test_a_misspelled_rule_of_the_verdict_is_named_as_the_rule_it_is(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # `jury run --quorm 2` got "did you mean '--format'?": the nearest of run's own flags.
    err = usage_error(["run", "cases.jsonl", "--quorm", "2"], capsys)
    assert err.rstrip().endswith(
        "(--quorm: did you mean --quorum? It is not a flag of jury run: set quorum = N in the "
        "jury file (--jury FILE); `jury rescore RUN --quorum N` decides a recorded run again "
        "by it, calling no judge)"
    )
    # A command that has the flag suggests it as a flag; run's own near flags stay its own.
    assert "did you mean '--quorum'?" in usage_error(["rescore", "r", "--quorm", "2"], capsys)
    assert "did you mean '--format'?" in usage_error(["run", "c.jsonl", "--formt", "x"], capsys)
