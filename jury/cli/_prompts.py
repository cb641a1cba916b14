"""`jury prompts CASES --snapshot DIR [--check]`: pin the exact bytes every judge is sent.

A snapshot holds one text file per (rubric, case, juror): ``DIR/<rubric>/<case>/<juror>.txt``
with the juror's sampling settings (and its strategy, when it is not plain) and, for each of
the rubric's prompts as the seat's strategy asks them, the system text, the user text (the
rendered case) and the reply schema, verbatim. Without ``--check`` the snapshot
is (re)written; with it, any difference is printed as a unified diff and the command exits 1,
so a reworded prompt or a changed rendering is a reviewed change, never a silent one.
Exit 0 when the snapshot matches, 2 on a usage error (no snapshot to check against).
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .._errors import ConfigError
from .._redact import Redactor
from ..adapters._registry import load_rubric
from ..adapters._rubric import Rubric
from ..adapters._strategy import strategy_named
from ..cases._case import Case
from ..panel._panel import Juror, Panel
from ..report._prompts import schema_text, seat_prompts

__all__ = ["register", "render_snapshot", "snapshot_files"]

_SAFE = re.compile(r"[^A-Za-z0-9._-]")


def register(sub: Any) -> None:
    from ._options import add_case_arguments, add_panel_options

    parser: argparse.ArgumentParser = sub.add_parser(
        "prompts",
        help="snapshot the exact prompts sent to judges, or check them against a snapshot",
        description="Write the exact bytes each juror is sent for each case (system text, "
        "rendered case, reply schema) to DIR/<rubric>/<case>/<juror>.txt; with --check, "
        "compare instead and exit 1 with a unified diff on any change.",
    )
    add_case_arguments(parser)
    add_panel_options(parser)
    parser.add_argument("--snapshot", metavar="DIR", required=True, help="snapshot directory")
    parser.add_argument(
        "--redact",
        metavar="PATTERN",
        action="append",
        default=[],
        help="regular expression removed from every case text (repeatable), as `jury run "
        "--redact` removes it from the records; credentials are always removed",
    )
    parser.add_argument(
        "--check", action="store_true", help="compare with the snapshot instead of writing it"
    )
    parser.set_defaults(handler=run)


def _safe(name: str) -> str:
    """A file name for an ID; IDs that had to be changed get a hash so two cannot collide."""
    safe = _SAFE.sub("_", name)
    if safe != name or safe in (".", ".."):
        safe = f"{safe}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"
    return safe


def render_snapshot(rubric: Rubric, case: Case, juror: Juror, panel: Panel) -> str:
    """The snapshot text of one (rubric, case, juror). Lengths in the headers make it exact:
    no text inside a prompt can pass for a header."""
    temperature = juror.temperature if juror.temperature is not None else panel.temperature
    # The strategy is named only when there is one: a plain seat's file is as it always was.
    way = "" if juror.strategy == "plain" else f" · strategy {juror.strategy}"
    lines = [
        f"# rubric {rubric.name} ({rubric.kind}) · case {case.id} · juror {juror.id}{way}",
        f"# temperature {temperature:g} · max_tokens {panel.max_tokens} · "
        f"samples {panel.samples_for(juror)}",
    ]
    strategy = strategy_named(juror.strategy)
    refused = strategy.refuses(rubric)
    if refused is not None:
        lines.append(f"=== the seat cannot judge with this rubric: {refused}")
        return "\n".join(lines) + "\n"
    try:
        # The bytes the seat is sent: its strategy's instructions and fields included (one
        # rendering with the report's prompt page).
        prompts = seat_prompts(rubric, strategy, rubric.prompts(case))
    except ValueError as exc:
        lines.append(f"=== the rubric cannot judge this case: {exc}")
        return "\n".join(lines) + "\n"
    for prompt in prompts:
        schema = schema_text(prompt.schema)
        lines += [
            f"=== prompt {prompt.key} · system ({len(prompt.system)} characters)",
            prompt.system,
            f"=== prompt {prompt.key} · user ({len(prompt.user)} characters)",
            prompt.user,
            f"=== prompt {prompt.key} · schema {prompt.schema_name} ({len(schema)} characters)",
            schema,
        ]
    return "\n".join(lines) + "\n"


def snapshot_files(
    panel: Panel, cases: Iterable[Case], redactor: Redactor | None = None
) -> tuple[str, dict[str, str]]:
    """The rubric's folder name and the snapshot's files (relative path -> text).

    Snapshots are meant to be committed: each case is redacted exactly as a run's records
    redact it (credentials always; `redactor`'s patterns) before its prompts are rendered.
    """
    rubric = load_rubric(panel.rubric, panel.thresholds)
    redactor = redactor or Redactor()
    files: dict[str, str] = {}
    for given in cases:
        case = redactor.case(given)
        for juror in panel.jurors:
            path = f"{_safe(case.id)}/{_safe(juror.id)}.txt"
            files[path] = render_snapshot(rubric, case, juror, panel)
    return _safe(rubric.name), files


def _existing(folder: Path) -> dict[str, str]:
    if not folder.is_dir():
        return {}
    files = {}
    for path in sorted(folder.rglob("*.txt")):
        # newline="": the bytes as they are, so a carriage return in a prompt is kept.
        with open(path, encoding="utf-8", newline="") as handle:
            files[path.relative_to(folder).as_posix()] = handle.read()
    return files


def check(folder: Path, files: dict[str, str], out: Any) -> int:
    """Print a unified diff of every change; 1 when there is any, else 0."""
    existing = _existing(folder)
    changed = 0
    for path in sorted(set(files) | set(existing)):
        before, after = existing.get(path), files.get(path)
        if before == after:
            continue
        changed += 1
        out.writelines(
            difflib.unified_diff(
                (before or "").splitlines(keepends=True),
                (after or "").splitlines(keepends=True),
                fromfile=f"snapshot/{path}" if before is not None else "/dev/null",
                tofile=f"now/{path}" if after is not None else "/dev/null",
            )
        )
    if changed:
        print(
            f"jury prompts: {changed} of {len(files)} prompt file(s) differ from {folder}; "
            "review the diff, then rewrite the snapshot without --check to accept it",
            file=sys.stderr,
        )
        return 1
    print(f"jury prompts: {len(files)} prompt file(s) match {folder}", file=sys.stderr)
    return 0


def write(folder: Path, files: dict[str, str]) -> None:
    """Write the snapshot; files it no longer has are removed, so it is exactly current."""
    for path in set(_existing(folder)) - set(files):
        (folder / path).unlink()
    for path, text in files.items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
    for directory in sorted(folder.rglob("*"), reverse=True):
        if directory.is_dir() and not any(directory.iterdir()):
            directory.rmdir()
    print(f"jury prompts: wrote {len(files)} prompt file(s) to {folder}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    from ..runner._options import RunOptions, case_source, panel_for

    options = RunOptions.of(args)
    panel = panel_for(options)
    snapshot = Path(args.snapshot)
    if args.check and not snapshot.is_dir():
        raise ConfigError(
            f"no snapshot at {snapshot}: write one first with --snapshot {snapshot} (no --check)"
        )
    redactor = Redactor(args.redact)
    cases = case_source(options, panel)
    try:
        name, files = snapshot_files(panel, cases, redactor)
    finally:
        cases.close()
    if args.check:
        return check(snapshot / name, files, sys.stdout)
    write(snapshot / name, files)
    return 0
