"""Optional OpenTelemetry: each vote as a ``gen_ai.evaluation.result`` event.

Follows the GenAI semantic conventions' evaluation event: ``gen_ai.evaluation.name`` (the
metric), ``gen_ai.evaluation.score.value``, ``gen_ai.evaluation.score.label`` (the juror's own
pass/fail, or the vote's status when it gave none), ``gen_ai.evaluation.explanation`` (its
reason) and ``error.type`` for votes that could not be given. aiojury's own fields are under
``jury.*``. Needs ``opentelemetry-api`` (``pip install aiojury[otel]``); where no SDK is
configured the API's no-op logger drops the events.
"""

from __future__ import annotations

from typing import Any

from .._errors import ConfigError
from .._verdict import CaseVerdict, Score, Vote, VoteStatus

__all__ = ["EVENT", "VerdictEvents"]

EVENT = "gen_ai.evaluation.result"


def _value(score: Score) -> Any:
    return score if isinstance(score, (int, float)) and not isinstance(score, bool) else None


class VerdictEvents:
    """Emits the events of each verdict through an OpenTelemetry logger."""

    def __init__(self, logger_provider: Any = None) -> None:
        try:
            from opentelemetry import _logs
        except ImportError:
            raise ConfigError(
                "OpenTelemetry events need opentelemetry-api: pip install aiojury[otel]"
            ) from None
        from .._version import __version__

        self._logger = _logs.get_logger("aiojury", __version__, logger_provider=logger_provider)

    def emit(self, verdict: CaseVerdict) -> None:
        for vote in verdict.votes:
            for attributes in self.attributes(verdict, vote):
                self._logger.emit(event_name=EVENT, attributes=attributes)

    @staticmethod
    def attributes(verdict: CaseVerdict, vote: Vote) -> list[dict[str, Any]]:
        """One attribute set per metric of the vote (one without a metric when it has none)."""
        common: dict[str, Any] = {
            "jury.case.id": verdict.case_id,
            "jury.case.verdict": verdict.verdict.value,
            "jury.juror": vote.juror,
            "jury.vote.status": vote.status.value,
            "jury.vote.attempts": vote.calls.attempts,
            "jury.vote.cache_hits": vote.calls.cache_hits,
            "jury.vote.offline": vote.offline,
            "jury.vote.fake": vote.fake,
            "gen_ai.usage.input_tokens": vote.calls.input_tokens,
            "gen_ai.usage.output_tokens": vote.calls.output_tokens,
        }
        if verdict.category:
            common["jury.case.category"] = verdict.category
        if vote.served_by:
            common["gen_ai.response.model"] = vote.served_by
        label = vote.verdict.value.lower() if vote.verdict else vote.status.value
        explanation = vote.reason or vote.error or ""
        if explanation:
            common["gen_ai.evaluation.explanation"] = explanation
        common["gen_ai.evaluation.score.label"] = label
        if vote.status is not VoteStatus.VALID:
            common["error.type"] = vote.status.value
        if not vote.scores:
            return [common]
        events = []
        for name, score in vote.scores.items():
            attributes = {**common, "gen_ai.evaluation.name": name}
            value = _value(score)
            if value is not None:
                attributes["gen_ai.evaluation.score.value"] = value
            else:
                attributes["jury.score"] = str(score)
            events.append(attributes)
        return events
