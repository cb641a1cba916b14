"""`python -m jury.testing` from a shell: its URL, then one export line per variable that
points a provider at it; a jury of real judges run with those exports (and nothing else)
talks to it, and every reply it gets is the fake's, priced $0."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "shopnest" / "cases.jsonl"
#: One juror of each API the fake speaks, through the real adapters.
JURORS = (
    "anthropic/claude-haiku-5-5",
    "openai/gpt-5.4-mini-2026-03-17",
    "google/gemini-3.5-flash-lite",
    "openai-api/fake/llama-3.1-8b-instruct",
)
EXPORTED = (
    "OPENAI_BASE_URL",
    "OPENAI_API_KEY",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_API_KEY",
    "GOOGLE_GEMINI_BASE_URL",
    "GOOGLE_API_KEY",
    "FAKE_BASE_URL",
    "FAKE_API_KEY",
)


def exported(line: str) -> tuple[str, str]:
    """``export NAME=value`` read as a shell reads it."""
    words = shlex.split(line)
    assert words[0] == "export", line
    assert len(words) == 2, line
    name, _, value = words[1].partition("=")
    return name, value


def clean_environment() -> dict[str, str]:
    """This process's environment without any provider's address or key."""
    provider = re.compile(r"^(OPENAI|ANTHROPIC|GOOGLE|GEMINI|FAKE)_")
    return {k: v for k, v in os.environ.items() if not provider.match(k)}


def start_fake(*options: str) -> subprocess.Popen[str]:
    """`python -m jury.testing` with these options, its output read as text."""
    return subprocess.Popen(
        [sys.executable, "-m", "jury.testing", *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )


def test_the_printed_exports_point_a_jury_of_real_judges_at_the_fake(tmp_path: Path) -> None:
    fake = start_fake()
    try:
        assert fake.stdout is not None
        url = fake.stdout.readline().strip()
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+", url), url
        exports = dict(exported(fake.stdout.readline()) for _ in EXPORTED)
        assert tuple(exports) == EXPORTED
        # /v1 where the SDK needs it (OpenAI and compatible servers), the bare URL elsewhere.
        assert exports["OPENAI_BASE_URL"] == exports["FAKE_BASE_URL"] == f"{url}/v1"
        assert exports["ANTHROPIC_BASE_URL"] == exports["GOOGLE_GEMINI_BASE_URL"] == url

        jury_file = tmp_path / "jury.toml"
        jury_file.write_text(f"jurors = {json.dumps(list(JURORS))}\nquorum = 3\n")
        command = [sys.executable, "-m", "jury", "run", str(EXAMPLE), "--jury", str(jury_file)]
        command += ["--out", str(tmp_path / "run"), "--cache-dir", str(tmp_path / "cache")]
        env = {**clean_environment(), **exports, "PYTHONPATH": str(ROOT)}
        judged = subprocess.run(
            command, check=False, env=env, cwd=tmp_path, capture_output=True, timeout=120, text=True
        )
    finally:
        fake.send_signal(signal.SIGINT)
        said, _ = fake.communicate(timeout=30)

    assert judged.returncode in (0, 1), judged.stderr  # the gate decided: every juror spoke
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert set(summary["jurors"]) == set(JURORS)
    for name, juror in summary["jurors"].items():
        assert juror["valid"] == juror["votes"] > 0, name
        assert juror["fake"] is True, name
    assert summary["fake"] is True
    assert summary["cost"] == 0.0
    assert "FAKE replies" in judged.stdout
    # At exit, the fake says what it served: each API was asked.
    served = json.loads(said.strip().splitlines()[-1])["served"]
    assert set(served) == {"openai", "anthropic", "google"}


def test_the_readme_shows_the_exports_the_module_prints() -> None:
    page = (ROOT / "docs/testing.md").read_text(encoding="utf-8")
    section = page[page.index("**The fake from a shell.**") :]
    start = section.index("```text\n")
    block = section[start : section.index("```\n", start + 1)]
    names = tuple(exported(line)[0] for line in block.splitlines() if line.startswith("export "))
    assert names == EXPORTED


def test_told_its_models_the_fake_answers_a_mistyped_one_404_and_the_run_stops(
    tmp_path: Path,
) -> None:
    fake = start_fake("--models", "gpt-5.4-mini-2026-03-17")
    try:
        assert fake.stdout is not None
        fake.stdout.readline()
        exports = dict(exported(fake.stdout.readline()) for _ in EXPORTED)
        jury_file = tmp_path / "jury.toml"
        jury_file.write_text('jurors = ["openai/gpt-5.4-mnii-2026-03-17"]\n')
        command = [sys.executable, "-m", "jury", "run", str(EXAMPLE), "--jury", str(jury_file)]
        command += ["--out", str(tmp_path / "run"), "--no-cache", "--progress", "none"]
        env = {**clean_environment(), **exports, "PYTHONPATH": str(ROOT)}
        judged = subprocess.run(
            command, check=False, env=env, cwd=tmp_path, capture_output=True, timeout=120, text=True
        )
    finally:
        fake.send_signal(signal.SIGINT)
        fake.communicate(timeout=30)
    # As a real provider answers a mistyped model: the run stops before it judges.
    assert judged.returncode == 2, judged.stdout + judged.stderr
    assert "gpt-5.4-mnii-2026-03-17" in judged.stderr
