"""One seat on the panel: a juror's model and settings, as a jury file's ``[[juror]]`` gives
them, each refused when the file loads if its model could not honour it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, field_validator, model_validator

from ..adapters._model import JudgeModel

__all__ = ["Effort", "Juror"]

#: The effort levels the providers name (Anthropic: low to max; OpenAI: none to max).
Effort = Literal["none", "minimal", "low", "medium", "high", "xhigh", "max"]

_STRICT = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)


class Juror(BaseModel):
    """One seat on the panel: a model (``provider/model`` or a `JudgeModel`) and its settings."""

    model_config = _STRICT

    model: str | JudgeModel
    #: How the juror is named in reports; defaults to the model's name, followed by
    #: ``+<strategy>`` for a strategy other than ``plain``.
    name: str | None = None
    #: The way this seat judges (`jury.adapters.Strategy`): ``plain`` (the rubric's own
    #: prompt), ``rules``, ``metrics``, ``reference``, ``metrics_reference``, ``cot``, or one
    #: registered with `jury.adapters.register_strategy`.
    strategy: str = "plain"
    weight: float = Field(default=1.0, gt=0)
    #: Samples per case for this juror (overrides the panel's).
    samples: int | None = Field(default=None, ge=1)
    temperature: float | None = Field(default=None, ge=0)
    #: Models to try, in order, when this one is unavailable after its retries.
    fallbacks: tuple[str | JudgeModel, ...] = ()
    #: The model family, when it cannot be inferred from the name.
    family: str | None = None
    #: Its cascade tier: tier 1 judges every case, a later tier only the cases the tiers
    #: before it left unsure (``[[tier]]`` groups in a jury file set it).
    tier: int = Field(default=1, ge=1)
    #: Through the provider's batch API (True), online (False), or as the panel says (None).
    batch: StrictBool | None = None
    #: The reply's output budget for this juror (overrides the panel's `max_tokens`). A model
    #: that thinks gets its adapter's room for thinking on top (anthropic/openai FAMILIES).
    max_tokens: int | None = Field(default=None, ge=1)
    #: How hard a thinking model thinks (overrides its adapter's choice, "low" for most):
    #: Anthropic's ``output_config.effort`` (low to max), OpenAI's ``reasoning_effort``
    #: (none to max, each model its own). None: the adapter's choice.
    effort: Effort | None = None
    #: Ask the judge for its reply's token log-probabilities, from which the vote's
    #: `probability` is read (OpenAI models that take ``logprobs``, Gemini models that offer
    #: ``responseLogprobs``, OpenAI-compatible servers). A model that cannot give them is
    #: warned about when the panel loads, and is not sent the ask.
    logprobs: StrictBool = False
    #: Whether the juror's model takes images (a case's ``images``): None leaves it to the
    #: provider's table (every Claude and Gemini model, OpenAI's but the text-only ones; no
    #: OpenAI-compatible server unless set here); false sends none. A juror sent no images
    #: abstains on a case that has them (`jury.panel._images`).
    images: StrictBool | None = None
    #: Ask for the scores before the free text (``reason`` last): a judge that writes its
    #: reason first can spend its whole output budget on it before scoring anything.
    scores_first: StrictBool = False
    #: The most characters of free text (the reason) a reply may hold, for a server that
    #: holds a schema with a grammar (``openai-api/...``, ``ollama/...``, ``vllm/...``; 600
    #: when not set); hosted APIs' structured outputs do not hold it, and are refused it.
    reason_length: int | None = Field(default=None, ge=16)
    #: The model file the juror must be judged by (``"sha256:..."``, or what the server
    #: reports, as `jury doctor` shows it): a local model's name is only what its server
    #: calls it, so a pinned juror is not warned about an alias, and a server that reports
    #: another file stops the run before its first call.
    pinned: str | None = None

    @field_validator("model")
    @classmethod
    def _provider_slash_model(cls, value: str | JudgeModel) -> str | JudgeModel:
        if isinstance(value, str) and ("/" not in value or value.startswith("/")):
            raise ValueError(f"expected 'provider/model', got {value!r}")
        return value

    @field_validator("strategy")
    @classmethod
    def _known_strategy(cls, value: str) -> str:
        from ..adapters._strategy import known_strategies

        known = known_strategies()
        if value not in known:
            from .._problems import suggest

            raise ValueError(
                f"unknown strategy {value!r}{suggest(value, known)}; known: {', '.join(known)}"
            )
        return value

    @model_validator(mode="after")
    def _effort_taken(self) -> Juror:
        # An effort a model does not take fails (or is ignored on) every call: refused when
        # the jury file loads, naming the model, instead.
        if self.effort is not None:
            from ..adapters._registry import effort_refusal

            for spec in (self.model, *self.fallbacks):
                if isinstance(spec, str) and (why := effort_refusal(spec, self.effort)):
                    raise ValueError(f"effort {self.effort!r} is not taken by {spec}: {why}")
        return self

    @model_validator(mode="after")
    def _local_settings_held(self) -> Juror:
        # A setting its model would ignore is refused when the jury file loads.
        from ..adapters._registry import grammar_refusal, pin_refusal

        if self.reason_length is not None:
            for spec in (self.model, *self.fallbacks):
                if isinstance(spec, str) and (why := grammar_refusal(spec)):
                    raise ValueError(f"reason_length is not held by {spec}: {why}")
        pinned = self.pinned is not None and isinstance(self.model, str)
        if pinned and (why := pin_refusal(str(self.model))):
            raise ValueError(f"pinned: {self.model}: {why}")
        return self

    @property
    def id(self) -> str:
        if self.name:
            return self.name
        model = self.model if isinstance(self.model, str) else self.model.name
        return model if self.strategy == "plain" else f"{model}+{self.strategy}"
