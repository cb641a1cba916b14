"""Where a juror's vote gets its probability (soft confidence): from the reply's token
log-probabilities, from the share of its samples, or nowhere. Said per juror by `jury doctor`
and priced by `jury estimate`, from the provider's profile (`ModelProfile.logprobs`), so that a
juror whose model gives no log-probabilities (every OpenAI reasoning model, Claude, Gemini
2.5 and later on the Gemini API) is known to vote without a probability before a run, and
what sampling instead would cost is shown."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..adapters._model import JudgeModel
from ..adapters._registry import logprobs_refusal
from ._juror import Juror

__all__ = ["SUGGESTED_SAMPLES", "ProbabilitySource", "probability_source"]

#: The samples a juror without log-probabilities would need for a probability worth reading
#: (the share of 5 moves in steps of 0.2), as `jury estimate` prices them.
SUGGESTED_SAMPLES = 5


@dataclass(frozen=True, slots=True)
class ProbabilitySource:
    """Where one juror's probability comes from (`kind`) and why, in words."""

    kind: Literal["logprobs", "samples", "none"]
    why: str
    #: The calls a case costs this juror for it (its samples), 1 for log-probabilities.
    samples: int = 1


def probability_source(juror: Juror, samples: int) -> ProbabilitySource:
    """Where `juror`'s probability comes from, taking `samples` calls a case (the juror's
    own `samples`, else the panel's)."""
    model = juror.model
    spec = model.name if isinstance(model, JudgeModel) else model
    if (isinstance(model, JudgeModel) and model.offline) or spec.startswith("offline/"):
        return ProbabilitySource("none", "an offline reference juror gives no probability")
    refused = logprobs_refusal(spec)
    if juror.logprobs and refused is None:
        return ProbabilitySource(
            "logprobs", "from the reply's token log-probabilities (logprobs = true)", samples
        )
    if samples > 1:
        return ProbabilitySource(
            "samples",
            f"from the share of its {samples} samples (samples = {samples}: {samples} calls a "
            "case)",
            samples,
        )
    if refused is None:
        return ProbabilitySource(
            "none", "none: set logprobs = true (its model gives them, at no extra call)"
        )
    return ProbabilitySource(
        "none",
        f"none: {refused}; set samples = N for the share of N samples (N calls a case; "
        f"samples = {SUGGESTED_SAMPLES} moves it in steps of {1 / SUGGESTED_SAMPLES:g})",
    )
