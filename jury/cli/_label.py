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
from typing import Any

from .._errors import ConfigError
from ._options import add_subset_options

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
    from ..report._label_server import label_app
    from ..runner._label import labelling

    labeller = _labeller(args)
    with labelling(
        args.run,
        labeller,
        labels=args.labels,
        order=args.order,
        rubric=args.rubric,
        ids=args.ids,
        category=args.category,
        sample=args.sample,
        limit=args.limit,
        seed=args.seed,
        only=None if args.only is None else args.only.split(","),
    ) as found:
        for warning in found.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        hosts: set[str] = set()
        app = label_app(found.queue, hosts)
        progress = found.queue.progress()
        out = sys.stdout
        count = len(found.queue.cases)
        banner = (
            f"labelling {count} cases of {found.run} as {labeller} into {found.path}"
            f"{found.queue.asking()} ({progress['labelled']} labelled, {progress['left']} left); "
            "Ctrl-C to stop"
        )
        asyncio.run(_serve(app, args.port, args.open, hosts, banner, out))
        labelled = found.queue.progress()["labelled"]
        print(
            f"{labeller}: {labelled} of {count} cases labelled "
            f"({labelled - progress['labelled']} this time) in {found.path}",
            file=out,
        )
    return 0
