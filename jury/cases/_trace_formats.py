"""Agent trace formats: which one a value is in, and the case fields it gives."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._mlflow import is_mlflow, mlflow_case
from ._otel import is_otlp, otlp_case, split_otlp

__all__ = ["TRACE_KEYS", "split_traces", "trace_fields", "trace_format", "trace_record"]

#: The keys of a record that hold its trace, by format.
TRACE_KEYS = {
    "OpenTelemetry traces": ("resourceSpans", "resource_spans"),
    "MLflow traces": ("info", "data"),
}


def trace_format(value: Any) -> str | None:
    """The name of the trace format `value` is in, or None."""
    if is_mlflow(value):
        return "MLflow traces"
    if is_otlp(value):
        return "OpenTelemetry traces"
    return None


def split_traces(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A record holding an OTLP export of several traces as one record per trace (the rest of
    the record repeated in each); any other record as it is."""
    if not is_otlp(record):
        return [dict(record)]
    rest = {k: v for k, v in record.items() if k not in TRACE_KEYS["OpenTelemetry traces"]}
    return [{**rest, **part} for part in split_otlp(record)]


def trace_fields(value: Any) -> dict[str, Any] | None:
    """The case fields of an agent trace (an OTLP export of one trace, or an MLflow trace):
    its ID, turns and metadata; None when `value` is no trace. Raises `ValueError` when it is
    a trace that cannot be read."""
    kind = trace_format(value)
    if kind is None:
        return None
    name = "an MLflow trace" if kind == "MLflow traces" else "an OpenTelemetry export"
    if kind == "OpenTelemetry traces" and len(parts := split_otlp(value)) > 1:
        raise ValueError(f"{name} of {len(parts)} traces: give one")
    try:
        return mlflow_case(value) if kind == "MLflow traces" else otlp_case(value)
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{name} that cannot be read: {exc}") from None


def trace_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """A record holding an agent trace as a case's fields: the trace's ID, turns and metadata
    beside what the record says besides (its own ID, golden answer or expectations win)."""
    kind = trace_format(record)
    fields = trace_fields(record)
    if kind is None or fields is None:
        raise ValueError("not an agent trace")
    rest = {k: v for k, v in record.items() if k not in TRACE_KEYS[kind]}
    found = fields.pop("metadata", {})
    own = rest.get("metadata")
    if isinstance(own, Mapping):
        rest["metadata"] = {**found, **own}
    elif found and own is None:
        rest["metadata"] = found
    return {**{k: v for k, v in fields.items() if k not in rest}, **rest}
