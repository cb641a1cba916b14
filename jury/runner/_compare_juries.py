"""What `jury compare` says of the two sides' juries before any case is compared: where the
runs' juries differ (the manifests record each run's jury), and what degraded in each side's
runs (FAKE replies, OFFLINE reference jurors, judge errors, a family lost: what each run's own
reports say). `jury compare` is a release gate's question, "did the system regress?": a change
of jury changes the instrument, so a case that moved may have moved with the jury. Comparing
two juries on the same answers is a use of its own, and stays allowed; either way it is said,
in the terminal, the JSON and the result's reasons, never left to the reader to notice.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._errors import ConfigError

if TYPE_CHECKING:
    from ._result import Run as RunType

__all__ = ["degradations", "jury_changes"]

#: The keys of a recorded jury that shape a case's verdict (settings of transport, concurrency
#: and retries do not).
DECIDING = (
    "rubric",
    "thresholds",
    "quorum",
    "aggregation",
    "calibration",
    "target_agreement",
    "risk",
    "ties",
    "disagreement_spread",
    "samples",
    "temperature",
    "max_tokens",
    "reasks",
    "checks",
    "fields",
)
_SHOWN = 60


def _describe(manifest: Mapping[str, Any]) -> dict[str, Any]:
    jury = manifest.get("jury") or {}
    found: dict[str, Any] = {}
    jurors = jury.get("jurors") or []
    found["jurors"] = sorted(_juror_id(j) for j in jurors if isinstance(j, dict))
    # Same juror names can still differ in weight, tier, strategy or fallbacks.
    found["jurors' settings"] = sorted(json.dumps(j, sort_keys=True) for j in jurors)
    for key in DECIDING:
        found[key] = jury.get(key)
    rubric = manifest.get("rubric")
    found["rubric prompt"] = rubric.get("fingerprint") if isinstance(rubric, dict) else None
    found["gate.require_every_juror"] = (jury.get("gate") or {}).get("require_every_juror")
    return found


def _juror_id(juror: Mapping[str, Any]) -> str:
    if juror.get("name"):
        return str(juror["name"])
    model = juror.get("model")
    name = model.get("name") if isinstance(model, dict) else model
    strategy = juror.get("strategy") or "plain"
    return str(name) if strategy == "plain" else f"{name}+{strategy}"


def _shown(value: Any) -> str:
    text = ", ".join(map(str, value)) if isinstance(value, list) else json.dumps(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


def jury_changes(
    side_a: Sequence[RunType], side_b: Sequence[RunType]
) -> tuple[dict[str, list[Any]], list[str]]:
    """Each deciding key whose value differs between A's first run and any run of B (or
    between two runs of one side), as [A's value, B's value], and the warnings that say so."""
    from ._result import Run

    manifests = [
        [Run.read_manifest(run.path) if run.path else {} for run in side]
        for side in (side_a, side_b)
    ]
    unknown = [
        name
        for name, side in zip("AB", manifests, strict=True)
        if any("jury" not in manifest for manifest in side)
    ]
    if unknown:
        # Verdicts alone (no manifest, or one without its jury): nothing to compare them by,
        # and that is said rather than taken as "the same jury".
        return {}, [
            f"the jury of {' and '.join(unknown)} is not recorded (no manifest with a jury): "
            "whether the sides were judged by the same jury is not known"
        ]
    a = [_describe(manifest) for manifest in manifests[0]]
    b = [_describe(manifest) for manifest in manifests[1]]
    changes: dict[str, list[Any]] = {}
    for key in a[0]:
        seen_b = {json.dumps(d[key], sort_keys=True) for d in b}
        if seen_b != {json.dumps(a[0][key], sort_keys=True)}:
            if key == "jurors' settings" and "jurors" in changes:
                continue  # the names already differ: their settings say nothing more
            changes[key] = [a[0][key], b[0][key]]
    warnings = []
    if changes:
        listed = "; ".join(
            f"{key}: A {_shown(old)} / B {_shown(new)}"
            if key not in ("checks", "jurors' settings")
            else key
            for key, (old, new) in changes.items()
        )
        warnings.append(
            f"the two sides were judged by different juries ({listed}): a change may be the "
            "jury's, not the system's"
        )
    for name, side in (("A", a), ("B", b)):
        differ = [key for key in side[0] if any(d[key] != side[0][key] for d in side[1:])]
        if differ:
            warnings.append(
                f"the runs of {name} were judged by different juries ({', '.join(differ)}): "
                "they are not repeats of one configuration"
            )
    return changes, warnings


def degradations(name: str, runs: Sequence[RunType]) -> list[str]:
    """What degraded in a side's runs, as each run's own reports say it."""
    from ..report._repeats_lost import degraded
    from ._result import Run

    summaries = {}
    unread = []
    for number, run in enumerate(runs, start=1):
        try:
            summaries[number] = run.summary
        except (AttributeError, ConfigError) as exc:
            if run.path is None or "jury" not in Run.read_manifest(run.path):
                continue  # no recorded jury to summarize by: `jury_changes` says so
            unread.append(f"what degraded in {run.path} cannot be read ({exc})")
    lines = degraded(summaries)["lines"] if summaries else []
    if len(runs) == 1:
        # One run: "in repeat 1" would name a repeat that does not exist.
        lines = [line.replace("In repeat 1: ", "").replace(" in repeat 1", "") for line in lines]
    else:
        lines = [line.replace("repeat", "run") for line in lines]
    return [f"{name}: {line.strip()}" for line in (*lines, *unread)]
