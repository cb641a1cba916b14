"""What a run would cost, without making a call (`jury estimate`, `jury run --dry-run`), online
and through the providers' batch APIs.

No key is needed: a juror whose credential is not set is priced from its name in the price
table (``openai/gpt-4.1-mini-...`` as OpenAI's model), and nothing is ever sent. The panel's
deterministic checks run first, as in a run (they are free): a case whose required check
fails spares the judges and is not counted, and neither is a case the rubric cannot judge.

Input tokens are estimated from the rendered prompts at four characters a token (no
tokenizer is available offline; real counts differ by roughly ten percent either way). The
estimate is a range:

- the least: every reply valid at once, each of the typical size of the reply schema filled
  in with a short reason;
- the most: every reply as long as the panel allows (`max_tokens`) and re-asked `reasks`
  times (each re-ask sends the prompt, the bad reply and the request again).

An image counts `IMAGE_TOKENS` for each juror it is sent to (one whose model takes images;
the providers count by its size, which the estimate does not read); a juror whose model takes
none abstains on the case, and is counted no call for it.

Retries after provider errors, fallbacks and cache hits are not counted. A juror asked only
when an earlier one leaves the case open (a cascade's later tier) counts in the most only:
`JurorEstimate.always` is False for it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from .._errors import MissingCredentialError
from .._verdict import CheckOutcome, CheckResult
from ..adapters._model import JudgeModel
from ..adapters._prices import batch_price, price
from ..adapters._registry import load_rubric, resolve_model
from ..adapters._request import JudgeReply, Usage
from ..adapters._rubric import Rubric
from ..cases._case import Case
from ..panel._images import image_refusal, images_shown
from ..panel._panel import Juror, Panel

__all__ = ["CHARS_PER_TOKEN", "IMAGE_TOKENS", "JurorEstimate", "RunEstimate", "estimate"]

CHARS_PER_TOKEN = 4
#: A reason of two sentences plus one short field per metric.
REASON_TOKENS = 60
FIELD_TOKENS = 6
#: Input tokens of one image, roughly: Claude counts width x height / 750, about 1,600 for
#: an image at its largest before it is scaled down (1.15 megapixels; "Calculate image costs",
#: https://docs.anthropic.com/en/docs/build-with-claude/vision); OpenAI counts 765 for a
#: 1024x1024 image in high detail (85 + 170 a 512-pixel tile, the images-vision guide);
#: Gemini 258 a 768x768 tile (https://ai.google.dev/gemini-api/docs/image-understanding).
#: The largest of these, for all: an estimate is better high than low.
IMAGE_TOKENS = 1600
#: The re-ask request itself (`_votes.REASK` with a short reason).
REASK_TOKENS = 40

Checks = Callable[[Case], Iterable[CheckResult]]
#: USD for one call of (input tokens, output tokens), or None when the price is unknown.
Pricing = Callable[[int, int], float | None]


@dataclass(slots=True)
class JurorEstimate:
    juror: str
    model: str
    #: Calls when every reply is valid at once, and when every reply is re-asked.
    calls: int = 0
    max_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    max_input_tokens: int = 0
    max_output_tokens: int = 0
    cost: float | None = 0.0
    max_cost: float | None = 0.0
    offline: bool = False
    #: Asked on every case that reaches the judges; False for a juror asked only when
    #: needed (a cascade's later tier), which counts in the most only.
    always: bool = True
    #: The same calls through the provider's batch API (a model without one counts online).
    batch_cost: float | None = 0.0
    batch_max_cost: float | None = 0.0

    def add(self, cost: float | None, max_cost: float | None) -> None:
        self.cost = _plus(self.cost, cost)
        self.max_cost = _plus(self.max_cost, max_cost)

    def add_batch(self, cost: float | None, max_cost: float | None) -> None:
        self.batch_cost = _plus(self.batch_cost, cost)
        self.batch_max_cost = _plus(self.batch_max_cost, max_cost)


def _plus(total: float | None, value: float | None) -> float | None:
    return None if total is None or value is None else total + value


@dataclass(slots=True)
class RunEstimate:
    """The estimate of a run: which cases reach the judges, and each juror's share."""

    cases: int = 0
    #: Cases whose required check failed: the judges are spared.
    spared: int = 0
    #: Cases the rubric cannot judge (a pairwise rubric without a second answer...).
    unjudgeable: int = 0
    jurors: list[JurorEstimate] = field(default_factory=list)
    #: What the reader should know: models priced from their names, checks not run...
    notes: list[str] = field(default_factory=list)

    @property
    def judged(self) -> int:
        return self.cases - self.spared - self.unjudgeable

    def total(self, name: str) -> float | int | None:
        """A column summed over the jurors (None when any juror's is unknown). The least
        counts only the jurors asked every time; the most (``max_*``) counts them all."""
        rows = self.jurors if name.startswith("max_") else [j for j in self.jurors if j.always]
        values = [getattr(row, name) for row in rows]
        return None if None in values else sum(values)


#: The built-in providers' published batch price as a share of the online price, for a model
#: priced from its name where the price table has no batch rate (the adapters' own `discount`
#: for a resolved model): "50% cost discount compared to synchronous APIs"
#: (https://platform.openai.com/docs/guides/batch), "charged at 50% of the standard API
#: prices" (https://docs.anthropic.com/en/docs/build-with-claude/batch-processing#pricing),
#: "at 50% of the standard cost" (https://ai.google.dev/gemini-api/docs/batch-mode).
_PUBLISHED_BATCH_SHARE = {"anthropic": 0.5, "openai": 0.5, "google": 0.5}


def _pricing(model: JudgeModel, *, batch: bool = False) -> Pricing:
    if model.offline:
        return lambda tokens_in, tokens_out: 0.0
    # A model without a batch API is judged online in a batch run.
    priced = (model.batches() or model) if batch else model
    return lambda tokens_in, tokens_out: priced.price(
        JudgeReply(
            text="",
            model=model.model_id,
            usage=Usage(tokens_in, tokens_out),
            batch="" if batch else None,
        )
    )


def _by_name(provider: str, name: str, *, batch: bool = False) -> Pricing:
    def pricing(tokens_in: int, tokens_out: int) -> float | None:
        usage = Usage(tokens_in, tokens_out)
        online = price(provider, name, usage)
        if not batch or online is None:
            return online
        priced = batch_price(provider, name, usage)
        share = _PUBLISHED_BATCH_SHARE.get(provider)
        if priced is None and share is not None:
            priced = online * share
        return priced

    return pricing


def _first_choice(juror: Juror, notes: list[str]) -> tuple[str, bool, Pricing, Pricing]:
    """A juror's first-choice model: name, offline, pricing online and through a batch.
    Resolved where its credential is set; else priced from its name in the price table, and
    never called."""
    spec = juror.model
    if not isinstance(spec, str):
        return spec.name, spec.offline, _pricing(spec), _pricing(spec, batch=True)
    try:
        model = resolve_model(spec)
    except MissingCredentialError as exc:
        provider, _, name = spec.partition("/")
        notes.append(f"{spec}: {exc.variable} is not set; priced from its name")
        return spec, False, _by_name(provider, name), _by_name(provider, name, batch=True)
    return model.name, model.offline, _pricing(model), _pricing(model, batch=True)


#: Why `jury run` refuses a file whose cases all lack an answer (and `jury estimate` notes).
NO_ANSWER = "no case has an answer: give --agent, or map an answer column"


def _times(cost: float | None, samples: int) -> float | None:
    return None if cost is None else cost * samples


def _spared(case: Case, checks: Checks | None, judge_all: bool) -> bool:
    """Whether a run would spare the judges this case: a required check failed."""
    if checks is None or judge_all:
        return False
    return any(c.required and c.outcome is CheckOutcome.FAIL for c in checks(case))


def estimate(
    panel: Panel,
    cases: Iterable[Case],
    *,
    rubric: Rubric | None = None,
    checks: Checks | None = None,
    judge_all: bool = False,
) -> RunEstimate:
    """Calls, tokens and cost per juror for judging `cases` once with `panel` (first-choice
    models; no retries or fallbacks). `checks` run first, as in a run: a case whose required
    check fails is spared (unless `judge_all`)."""
    rubric = rubric if rubric is not None else load_rubric(panel.rubric, panel.thresholds)
    result = RunEstimate()
    seats = []
    for juror in panel.jurors:
        name, offline, pricing, batched = _first_choice(juror, result.notes)
        row = JurorEstimate(juror.id, name, offline=offline, always=juror.tier == 1)
        sees = image_refusal(juror, juror.model) is None
        seats.append((row, pricing, batched, panel.samples_for(juror), sees))
        result.jurors.append(row)
    rounds = 1 + panel.reasks
    max_out = panel.max_tokens
    answered = 0
    for case in cases:
        result.cases += 1
        answered += case.answer is not None
        if _spared(case, checks, judge_all):
            result.spared += 1
            continue
        try:
            prompts = rubric.prompts(case)
        except ValueError:
            result.unjudgeable += 1
            continue
        typical_out = REASON_TOKENS + FIELD_TOKENS * len(rubric.metrics(case))
        for prompt in prompts:
            text_in = (len(prompt.system) + len(prompt.user)) // CHARS_PER_TOKEN
            shown = IMAGE_TOKENS * len(images_shown(case.images, prompt.user))
            for row, pricing, batched, samples, sees in seats:
                if shown and not sees:
                    continue  # it abstains on the case, asking nothing
                tokens_in = text_in + shown
                # The most: the first ask and every re-ask, each carrying the last bad reply.
                most_in = tokens_in * rounds + (max_out + REASK_TOKENS) * (rounds - 1)
                row.calls += samples
                row.max_calls += samples * rounds
                row.input_tokens += samples * tokens_in
                row.max_input_tokens += samples * most_in
                row.output_tokens += samples * typical_out
                row.max_output_tokens += samples * max_out * rounds
                least, most = pricing(tokens_in, typical_out), pricing(most_in, max_out * rounds)
                row.add(_times(least, samples), _times(most, samples))
                least, most = batched(tokens_in, typical_out), batched(most_in, max_out * rounds)
                row.add_batch(_times(least, samples), _times(most, samples))
    if result.cases and not answered:
        result.notes.append(f"{NO_ANSWER} (`jury run` stops with exit 2 on this file)")
    return result
