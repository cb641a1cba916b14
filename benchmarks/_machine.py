"""The line every benchmark result is recorded with: cores, CPU model, Python."""

from __future__ import annotations

import os
import platform
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
