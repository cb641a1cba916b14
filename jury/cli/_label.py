"""`jury label RUN`: label a run's cases by hand on a local page, for calibration and agreement.

The page is served on 127.0.0.1 (a free port unless ``--port``), its address on the first line
printed; it shows one case at a time, in the order in which a label teaches most (`--order`),
and writes each label at once to the labels file (``RUN/labels.jsonl`` unless ``--labels``;
see `jury.runs.Label` for its lines). Nothing is read from standard input. Ctrl-C (or
SIGTERM) stops the server; a label already saved is on disk. ``--only pass`` asks for
pass/fail only, ``--only a,b`` for those metrics (each line records what it was asked).

Exit 0 when stopped; 2 on a usage error: a run without cases, a labels file with a bad line,
an unknown case or a value off the rubric's scale (the line named), ``--only`` naming a field
the rubric lacks, or a labels file another `jury label` is writing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from contextlib import suppress
from pathlib import Path
from typing import Any

from .._errors import ConfigError
from ..runner._options import RunOptions, subset_from
from ._options import add_subset_options, manifest_rubric

__all__ = ["register"]


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "label",
        help="label a run's cases by hand on a local page (feeds calibrate and agreement)",
        description="Serve a labelling page on 127.0.0.1 for the cases of a recorded run: one "
        "case at a time, the jurors' votes hidden until you have chosen, keyboard first. Each "
        "label is appended at once to the labels file, which `jury calibrate --labels` and "
        "`jury agreement --labels` read.",
    )
    parser.add_argument("run", help="run directory")
    parser.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    parser.add_argument("--open", action="store_true", help="open the page in a browser")
    parser.add_argument("--labeller", help="your name in the labels file (default: $USER)")
    parser.add_argument("--labels", metavar="FILE", help="labels file (default RUN/labels.jsonl)")
    parser.add_argument(
        "--order",
        choices=("teach", "random"),
        default="teach",
        help="teach (default): split jurors, then least confidence, then the categories with "
        "the fewest labels; random: an unbiased sample (--seed)",
    )
    parser.add_argument(
        "--only",
        metavar="FIELDS",
        help="ask for these fields only, comma-separated: 'pass' (pass/fail only) and/or "
        "metrics of the rubric (default: pass and every metric); each label line records them",
    )
    parser.add_argument("--rubric", help="rubric name or file (default: the run's manifest)")
    add_subset_options(parser)
    parser.set_defaults(handler=run)


def _labeller(args: argparse.Namespace) -> str:
    name = (args.labeller or os.environ.get("USER") or "").strip()
    if not name:
        raise ConfigError("--labeller: give your name (USER is not set)")
    return name


async def _serve(
    app: Any, port: int, open_browser: bool, hosts: set[str], banner: str, out: Any
) -> None:
    from aiohttp import web

    runner = web.AppRunner(app, access_log=None, handle_signals=False)
    await runner.setup()
    try:
        site = web.TCPSite(runner, "127.0.0.1", port)
        try:
            await site.start()
        except OSError as exc:
            raise ConfigError(f"--port {port}: cannot listen on 127.0.0.1: {exc}") from None
        bound = int(runner.addresses[0][1])
        hosts.update({f"127.0.0.1:{bound}", f"localhost:{bound}"})
        url = f"http://127.0.0.1:{bound}/"
        print(url, file=out, flush=True)
        print(banner, file=out, flush=True)
        if open_browser:
            import webbrowser

            await asyncio.to_thread(webbrowser.open, url)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with suppress(NotImplementedError):  # pragma: no cover - Windows
                loop.add_signal_handler(sig, stop.set)
        await stop.wait()
    finally:
        await runner.cleanup()


def run(args: argparse.Namespace) -> int:
    from ..adapters._registry import load_rubric
    from ..report._label_server import label_app
    from ..runner._result import Run
    from ..runs import LABELS, LabelQueue, LabelWriter, read_labels, validate_labels

    run_dir = Path(args.run)
    labeller = _labeller(args)
    run = Run(Path(run_dir))
    cases = list(run.cases())
    if not cases:
        raise ConfigError(f"{run_dir}: the run has no cases to label")
    name = args.rubric or manifest_rubric(Run.read_manifest(run_dir))
    if not name:
        raise ConfigError(f"{run_dir}: the manifest names no rubric; give --rubric")
    rubric = load_rubric(name)
    verdicts = {verdict.case_id: verdict for verdict in run.verdicts}
    subset = subset_from(RunOptions.of(args))
    if not subset.everything:
        kept = set(subset.select((case.id, case.category) for case in cases))
        cases = [case for case in cases if case.id in kept]
    path = Path(args.labels) if args.labels else run_dir / LABELS
    with LabelWriter(path) as writer:
        # Read once the file is ours: no other page can append between the read and ours.
        existing = read_labels(path)
        by_id = {case.id: case for case in run.cases()}
        _, warnings = validate_labels(existing, by_id, rubric, path)
        for warning in warnings:
            print(f"warning: {warning}", file=sys.stderr)
        only = None if args.only is None else args.only.split(",")
        queue = LabelQueue(
            cases,
            verdicts,
            rubric,
            labeller,
            existing,
            writer,
            order=args.order,
            seed=args.seed,
            only=only,
        )
        hosts: set[str] = set()
        app = label_app(queue, hosts)
        progress = queue.progress()
        out = sys.stdout
        banner = (
            f"labelling {len(queue.cases)} cases of {run_dir} as {labeller} into {path}"
            f"{queue.asking()} ({progress['labelled']} labelled, {progress['left']} left); "
            "Ctrl-C to stop"
        )
        asyncio.run(_serve(app, args.port, args.open, hosts, banner, out))
        print(
            f"{labeller}: {queue.progress()['labelled']} of {len(queue.cases)} cases labelled "
            f"({queue.progress()['labelled'] - progress['labelled']} this time) in {path}",
            file=out,
        )
    return 0
