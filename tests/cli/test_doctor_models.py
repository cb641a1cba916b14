"""`jury doctor` says, per juror, where its vote's probability would come from (log-
probabilities, samples, or nowhere, and the fix) and what OpenAI announced of its model's
shutdown."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_doctor import served

from jury.cli import main
from served import ServerThread

__all__ = ["served"]  # the fixture, shared with test_doctor


JURY = """
[[jurors]]
model = "openai/gpt-4.1-mini-2025-04-14"
logprobs = true
[[jurors]]
model = "openai/gpt-6-luna"
samples = 3
[[jurors]]
model = "anthropic/claude-haiku-5-5"
"""


def test_each_juror_says_where_its_probability_comes_from(
    served: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "jury.toml"
    path.write_text(JURY, encoding="utf-8")
    assert main(["doctor", "--jury", str(path)]) == 0
    out = capsys.readouterr().out
    lines = [line.strip() for line in out.splitlines() if line.strip().startswith("probability")]
    assert lines == [
        "probability    from the reply's token log-probabilities (logprobs = true)",
        "probability    from the share of its 3 samples (samples = 3: 3 calls a case)",
        "probability    none: the anthropic provider gives no token log-probabilities; set "
        "samples = N for the share of N samples (N calls a case; samples = 5 moves it in "
        "steps of 0.2)",
    ]


def test_the_shutdown_date_openai_announces_is_shown(
    served: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    served.server.shutdowns["gpt-6-luna"] = "2027-09-30"
    path = tmp_path / "jury.toml"
    path.write_text('jurors = ["openai/gpt-6-luna"]\n', encoding="utf-8")
    assert main(["doctor", "--jury", str(path)]) == 0
    out = capsys.readouterr().out
    assert "announced      OpenAI says gpt-6-luna shuts down on 2027-09-30" in out
