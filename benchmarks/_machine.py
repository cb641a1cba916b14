"""The line every benchmark result is recorded with: cores, CPU model, Python."""

from __future__ import annotations

import os
import platform
import resource
from pathlib import Path


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def machine() -> str:
    return f"nproc={os.cpu_count()}, CPU={cpu_model()}, Python {platform.python_version()}"


def peak_mb() -> float:
    """This process's peak resident memory since its exec, in MB (``VmHWM``). Not
    ``ru_maxrss``: a child started by vfork (as `subprocess` starts them) keeps its parent's
    peak there across exec (Linux's ``signal->maxrss``), so a child of a large parent reports
    the parent's peak (a child of a 213 MB parent said 213 MB with a VmHWM of 13 MB)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
