"""What publishing a run's reports costs: summary, HTML (agreement with its bootstrap, the
prompts, the cases it shows) and JUnit, read back from the records: wall time, the HTML file's
size and the process's peak resident memory.

    python benchmarks/report.py make RUN --cases 2000    # judge N copies of the example offline
    python benchmarks/report.py publish RUN              # time one publish of RUN's reports

`publish` imports `jury` from the working directory first, so that `benchmarks/ab.py` can time
one recorded run published by two checkouts (the file is given by its absolute path):

    python benchmarks/ab.py --a ../main --b . --runs 5 --metric 'publish ([\\d.]+) s' \\
        -- "$PWD/benchmarks/report.py" publish /tmp/run-2000
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "shopnest"


def make(run: Path, count: int) -> None:
    """N cases, copies of the example's with new IDs, judged by the offline jurors."""
    lines = (EXAMPLE / "cases.jsonl").read_text(encoding="utf-8").splitlines()
    cases = run.parent / f"{run.name}-cases.jsonl"
    with open(cases, "w", encoding="utf-8") as out:
        for index in range(count):
            data = json.loads(lines[index % len(lines)])
            data["id"] = f"{data['id']}-{index:05d}"
            out.write(json.dumps(data) + "\n")
    jury = ["--jury", str(EXAMPLE / "jury.toml"), "--out", str(run), "--no-cache"]
    subprocess.run(
        [sys.executable, "-m", "jury", "run", str(cases), *jury, "--progress", "none"],
        check=False,
        stdout=subprocess.DEVNULL,
    )


def publish(run: Path) -> None:
    sys.path.insert(0, os.getcwd())
    from jury.panel._panel import Panel
    from jury.report._publish import print_published
    from jury.report._publish import publish as publish_run
    from jury.runs._records import read_manifest

    manifest = read_manifest(run)
    panel = Panel.model_validate(manifest["jury"])
    jurors = [juror.id for juror in panel.jurors]
    start = time.perf_counter()
    published = publish_run(run, panel, manifest["rubric"]["name"], jurors=jurors)
    print_published(published, io.StringIO())  # the terminal report, as the command prints it
    elapsed = time.perf_counter() - start
    size = (run / "report.html").stat().st_size
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"publish {elapsed:.3f} s for {manifest['cases']['count']} cases; HTML {size:,} bytes; "
        f"peak {peak:.0f} MB resident"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("make", "publish"))
    parser.add_argument("run", type=Path)
    parser.add_argument("--cases", type=int, default=2000)
    args = parser.parse_args()
    if args.action == "make":
        make(args.run, args.cases)
    else:
        publish(args.run)


if __name__ == "__main__":
    main()
