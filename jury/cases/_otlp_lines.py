"""OTLP export requests written one a line, joined into one export per trace.

OpenTelemetry's file exporters write an export request per line, of whatever spans were
exported together: ``opentelemetry-exporter-otlp-json-file``'s ``FileSpanExporter`` behind a
``SimpleSpanProcessor`` writes every span on its own line as it ends (the model calls, the
tool runs, then the agent's root span), behind a ``BatchSpanProcessor`` a batch a line, and
the Collector's file exporter the same (https://opentelemetry.io/docs/specs/otel/protocol/
file-exporter/). So one trace's spans are spread over several lines, and one line may hold
the ends of several traces. Read line by line, each line would be a case of its own: the root
span's line alone has no messages and is refused, and the trace ID repeats. A run of such
lines is therefore joined by trace ID first, each trace numbered by the line of its first
span; a line that holds anything besides the export (a case's own ID or golden answer beside
its trace) is a record of its own, as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ._read import Item

__all__ = ["joined_traces"]

_EXPORT_KEYS = ("resourceSpans", "resource_spans")
_SCOPE_KEYS = ("scopeSpans", "scope_spans", "instrumentationLibrarySpans")


def _bare_spans(record: Any) -> list[tuple[Any, Any, Mapping[str, Any]]] | None:
    """(resource, scope, span) of each span of a record that is nothing but an OTLP export
    request, or None for any other record (or an export without a span)."""
    if not isinstance(record, Mapping) or len(record) != 1:
        return None
    key = next(iter(record))
    if key not in _EXPORT_KEYS or not isinstance(record[key], list):
        return None
    found = []
    for resource_spans in record[key]:
        if not isinstance(resource_spans, Mapping):
            return None
        scopes = next((resource_spans[k] for k in _SCOPE_KEYS if k in resource_spans), None)
        for scope in scopes or ():
            if not isinstance(scope, Mapping):
                return None
            for span in scope.get("spans") or ():
                if not isinstance(span, Mapping):
                    return None
                found.append((resource_spans.get("resource"), scope.get("scope"), span))
    return found or None


def _released(held: dict[Any, tuple[int, list[dict[str, Any]]]]) -> Iterator[Item]:
    for number, entries in held.values():
        yield number, {"resourceSpans": entries}
    held.clear()


def joined_traces(items: Iterable[Item]) -> Iterator[Item]:
    """The records, each run of lines that are bare OTLP export requests joined into one
    export per trace (in the order the traces first appear)."""
    held: dict[Any, tuple[int, list[dict[str, Any]]]] = {}
    for number, record in items:
        # Told inline for the usual record (several keys), which this runs for every one.
        spans = _bare_spans(record) if isinstance(record, dict) and len(record) == 1 else None
        if spans is None:
            if held:
                yield from _released(held)
            yield number, record
            continue
        for resource, scope, span in spans:
            trace = span.get("traceId", span.get("trace_id"))
            entry: dict[str, Any] = {"scopeSpans": [{"scope": scope or {}, "spans": [span]}]}
            if resource is not None:
                entry["resource"] = resource
            held.setdefault(trace, (number, []))[1].append(entry)
    yield from _released(held)
