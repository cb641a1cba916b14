"""Gemini's token log-probabilities: which models offer them on which API surface (the
Gemini API or Vertex AI), and how a reply's ``logprobsResult`` reads into the seam's tokens."""

from __future__ import annotations

import os
from collections.abc import Mapping
from fnmatch import fnmatchcase
from typing import Any

from jury.adapters import TokenLogprob

__all__ = ["LOGPROBS_OFFERED", "logprobs_refusal", "token_logprobs", "vertex"]


def vertex() -> bool:
    """Whether this process reaches Gemini through Vertex AI (``GOOGLE_GENAI_USE_VERTEXAI``)."""
    return os.environ.get("GOOGLE_GENAI_USE_VERTEXAI", "").strip().lower() in ("1", "true")


#: The models that give token log-probabilities, by API surface: the Gemini API refuses them
#: on 2.5 ("Logprobs is not enabled for models/gemini-2.5-flash",
#: https://github.com/Vela-Research/think-reason-learn/issues/34) and serves them on 2.0 Flash
#: (https://github.com/mscraftsman/generative-ai/issues/135); Vertex AI serves 2.0 and 2.5
#: (https://github.com/vercel/ai/issues/5418) and refuses 3.5 Flash ("Logprobs is not
#: supported for this model", https://github.com/GoogleCloudPlatform/generative-ai/issues/2947).
LOGPROBS_OFFERED = {
    "gemini": ("gemini-2.0-flash*",),
    "vertex": ("gemini-2.0-flash*", "gemini-2.5-*"),
}


def logprobs_refusal(model: str) -> str | None:
    """Why a Gemini model gives no token log-probabilities on the API this process uses
    (None when it gives them)."""
    surface = "vertex" if vertex() else "gemini"
    if any(fnmatchcase(model, pattern) for pattern in LOGPROBS_OFFERED[surface]):
        return None
    where = "Vertex AI" if surface == "vertex" else "the Gemini API"
    return f"{where} does not offer responseLogprobs for {model}"


def token_logprobs(given: Any) -> tuple[TokenLogprob, ...] | None:
    """``logprobsResult`` (google-genai types.LogprobsResult): the chosen token of each step
    with the step's top candidates; None when there is none."""
    if not isinstance(given, Mapping):
        return None
    chosen = given.get("chosenCandidates")
    tops = given.get("topCandidates") or []
    if not isinstance(chosen, list) or not chosen:
        return None
    try:
        return tuple(
            TokenLogprob(
                str(item.get("token", "")),
                float(item.get("logProbability", 0.0)),
                tuple(
                    (str(c.get("token", "")), float(c.get("logProbability", 0.0)))
                    for c in (tops[i].get("candidates") or () if i < len(tops) else ())
                ),
            )
            for i, item in enumerate(chosen)
        )
    except (AttributeError, TypeError, ValueError):
        return None
