"""What a run would cost, without making a call (`jury estimate`, `jury run --dry-run`), online
and through the providers' batch APIs.

No key is needed: a juror whose credential is not set is priced from its name in the price
table (``openai/gpt-4.1-mini-...`` as OpenAI's model), and nothing is ever sent. The panel's
deterministic checks run first, as in a run (they are free): a case whose required check
fails spares the judges and is not counted, and neither is a case the rubric cannot judge.

Each seat is priced as what it sends and gets (a seat is a model and a strategy):

- input: the prompts the seat is sent, rendered with its strategy applied (its instructions
  after the rubric's system text), at four characters a token (no tokenizer is available
  offline; real counts differ by roughly ten percent either way); a pairwise rubric's two
  presentation orders and each of a juror's `samples` are calls of their own;
- output: the reply, which for a strategy seat holds the fields it writes before its verdict
  (its questions, its own answer, its reasoning), within the juror's own ``max_tokens`` (else
  the panel's); a model that thinks is sent more (the adapter's room for thinking, e.g. 2048
  output tokens for Claude's thinking families), and its thinking is billed as output.

The estimate is a range:

- the least: every reply valid at once, each of the typical size of the reply schema filled
  in with a short reason, plus the typical size of the strategy's fields (`GENERATED_TOKENS`);
  thinking is not counted (its length is not known offline);
- the most: every reply as long as the adapter allows (``max_tokens`` and the thinking room)
  and re-asked `reasks` times (each re-ask sends the prompt, the bad replies so far and the
  request again).

An image counts `IMAGE_TOKENS` for each juror it is sent to (one whose model takes images;
the providers count by its size, which the estimate does not read); a juror whose model takes
none abstains on the case, and is counted no call for it.

Retries after provider errors, fallbacks and cache hits are not counted. A juror asked only
when an earlier one leaves the case open (a cascade's later tier) counts in the most only:
`JurorEstimate.always` is False for it. The price of the tokens is the seat's
(`jury.runs._seat_price`), the same code path `calibrate --select --budget` prices by.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field

from .._verdict import CheckOutcome, CheckResult
from ..adapters._registry import load_rubric, output_room
from ..adapters._request import Usage
from ..adapters._rubric import Prompt, Rubric
from ..adapters._strategy import Strategy, strategy_named
from ..cases._case import Case
from ..panel._images import image_refusal, images_shown
from ..panel._panel import Juror, Panel
from ..panel._probability import SUGGESTED_SAMPLES, ProbabilitySource, probability_source
from ._seat_price import SeatPrice, seat_price

__all__ = [
    "CHARS_PER_TOKEN",
    "GENERATED_TOKENS",
    "IMAGE_TOKENS",
    "JurorEstimate",
    "RunEstimate",
    "estimate",
]

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
#: The typical length (tokens) of each field a strategy writes before its verdict, in the
#: least: our reading of what the built-in strategies ask for (three to five questions of a
#: line each; a short answer of the judge's own; a few steps of reasoning), not a measurement
#: (no recorded reply holds them). A field of a strategy of one's own counts `OTHER_FIELD`.
GENERATED_TOKENS = {"questions": 80, "own_answer": 150, "reasoning": 150}
OTHER_FIELD = 100

Checks = Callable[[Case], Iterable[CheckResult]]


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
    #: The seat's strategy, and what it adds in the least: the input tokens of its
    #: instructions and the output tokens of the fields it writes first (`generated`).
    strategy: str = "plain"
    generated: tuple[str, ...] = ()
    strategy_input_tokens: int = 0
    strategy_output_tokens: int = 0
    #: The output tokens one call may take: the juror's ``max_tokens`` (else the panel's),
    #: and the room its adapter adds for the model's thinking (billed as output).
    max_tokens: int = 0
    thinking_room: int = 0
    #: Cases its strategy cannot judge (a reply that is not a JSON object): no call.
    refused: int = 0
    #: Where its votes' probability comes from: "logprobs", "samples" or "none"
    #: (`jury.panel._probability`), and the samples a case it is priced at.
    probability: str = "none"
    samples: int = 1

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


#: Why `jury run` refuses a file whose cases all lack an answer (and `jury estimate` notes).
NO_ANSWER = "no case has an answer: give --agent, or map an answer column"


def _sum(costs: Iterable[float | None]) -> float | None:
    total: float | None = 0.0
    for cost in costs:
        total = _plus(total, cost)
    return total


def _times(cost: float | None, samples: int) -> float | None:
    return None if cost is None else cost * samples


def _spared(case: Case, checks: Checks | None, judge_all: bool) -> bool:
    """Whether a run would spare the judges this case: a required check failed."""
    if checks is None or judge_all:
        return False
    return any(c.required and c.outcome is CheckOutcome.FAIL for c in checks(case))


def _tokens(prompt: Prompt) -> int:
    return (len(prompt.system) + len(prompt.user)) // CHARS_PER_TOKEN


@dataclass(slots=True)
class _Seat:
    """One seat as the estimate counts it: its row, its price, and what one call holds."""

    row: JurorEstimate
    price: SeatPrice
    strategy: Strategy
    samples: int
    #: The output tokens of the strategy's fields, typically.
    generated: int
    #: The output tokens one call is allowed: max_tokens and the thinking room.
    sent: int
    #: Whether its model is sent a case's images (else it abstains on such a case).
    sees: bool
    #: Its prices by a prompt's input tokens (online, then batch: the least and the most),
    #: worked out once for each prompt size: most cases of a file are of a few sizes.
    priced: dict[int, tuple[tuple[float | None, float | None], ...]] = field(default_factory=dict)


def _seat(juror: Juror, panel: Panel, notes: list[str], by_name: bool) -> _Seat:
    priced = seat_price(juror.model, notes, by_name=by_name)
    strategy = strategy_named(juror.strategy)
    max_tokens = juror.max_tokens or panel.max_tokens
    # A model object (a scripted or third-party judge) is sent what the juror says; a named
    # model gets the room its adapter adds for thinking, at the juror's effort.
    room = output_room(juror.model, juror.effort) if isinstance(juror.model, str) else 0
    row = JurorEstimate(
        juror.id,
        priced.model,
        offline=priced.offline,
        always=juror.tier == 1,
        strategy=strategy.name,
        generated=tuple(strategy.fields),
        max_tokens=max_tokens,
        thinking_room=room,
    )
    typical = sum(GENERATED_TOKENS.get(name, OTHER_FIELD) for name in strategy.fields)
    sees = image_refusal(juror, juror.model) is None
    return _Seat(row, priced, strategy, panel.samples_for(juror), typical, max_tokens + room, sees)


def _count(
    seat: _Seat,
    case: Case,
    prompts: Sequence[Prompt],
    plain: Sequence[Prompt],
    typical: int,
    rounds: int,
) -> None:
    """Add one case's calls of `seat`: `prompts` as its strategy sends them, `plain` the
    rubric's own (what the strategy adds is the difference)."""
    row, samples, sent = seat.row, seat.samples, seat.sent
    # Re-ask k carries the k bad replies before it, each with the request to mend it.
    carried = (sent + REASK_TOKENS) * rounds * (rounds - 1) // 2
    out = typical + seat.generated
    for prompt, own in zip(prompts, plain, strict=True):
        shown = IMAGE_TOKENS * len(images_shown(case.images, prompt.user))
        if shown and not seat.sees:
            continue  # it abstains on the case, asking nothing
        tokens_in = _tokens(prompt) + shown
        most_in = tokens_in * rounds + carried
        row.calls += samples
        row.max_calls += samples * rounds
        row.input_tokens += samples * tokens_in
        row.max_input_tokens += samples * most_in
        row.output_tokens += samples * out
        row.max_output_tokens += samples * sent * rounds
        row.strategy_input_tokens += samples * (_tokens(prompt) - _tokens(own))
        row.strategy_output_tokens += samples * seat.generated
        costs = seat.priced.get(tokens_in)
        if costs is None:
            least = Usage(tokens_in, out)
            # The most, call by call (a price may change tier with the prompt's size).
            most = [Usage(tokens_in + k * (sent + REASK_TOKENS), sent) for k in range(rounds)]
            costs = seat.priced[tokens_in] = tuple(
                (pricing(least), _sum(map(pricing, most)))
                for pricing in (seat.price.online, seat.price.batch)
            )
        (least_online, most_online), (least_batch, most_batch) = costs
        row.add(_times(least_online, samples), _times(most_online, samples))
        row.add_batch(_times(least_batch, samples), _times(most_batch, samples))


def _usd(value: float | None) -> str:
    return "an unknown cost" if value is None else f"${value:,.4f}"


def _probability_note(row: JurorEstimate, source: ProbabilitySource) -> str | None:
    """What the seat's probability costs: its samples past the first, or what sampling for
    one would cost where its model gives no log-probabilities."""
    row.probability, row.samples = source.kind, source.samples
    n = source.samples
    if source.kind == "samples":
        extra = None if row.cost is None else row.cost * (n - 1) / n
        return (
            f"{row.juror}: its probability is the share of its {n} samples ({n} calls a case): "
            f"{_usd(extra)} of its {_usd(row.cost)} is the {n - 1} sample(s) past the first"
        )
    # A model that gives log-probabilities gives a probability at no extra call (`jury
    # doctor` says so): only sampling is priced here.
    if (
        source.kind == "logprobs"
        or row.offline
        or row.calls == 0
        or "logprobs = true" in source.why
    ):
        return None
    k = SUGGESTED_SAMPLES
    sampled = None if row.cost is None else row.cost * k / n
    return (
        f"{row.juror}: its votes carry no probability (its model gives no log-probabilities); "
        f"samples = {k} gives one for about {_usd(sampled)} instead of {_usd(row.cost)}"
    )


def estimate(
    panel: Panel,
    cases: Iterable[Case],
    *,
    rubric: Rubric | None = None,
    checks: Checks | None = None,
    judge_all: bool = False,
    by_name: Collection[int] = (),
) -> RunEstimate:
    """Calls, tokens and cost per seat for judging `cases` once with `panel` (first-choice
    models; no retries or fallbacks). `checks` run first, as in a run: a case whose required
    check fails is spared (unless `judge_all`). The jurors at the indexes `by_name` are
    priced from their models' names, never resolved (models a record names)."""
    rubric = rubric if rubric is not None else load_rubric(panel.rubric, panel.thresholds)
    result = RunEstimate()
    seats = [
        _seat(juror, panel, result.notes, index in by_name)
        for index, juror in enumerate(panel.jurors)
    ]
    result.jurors = [seat.row for seat in seats]
    rounds = 1 + panel.reasks
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
        typical = REASON_TOKENS + FIELD_TOKENS * len(rubric.metrics(case))
        # The prompts as each strategy sends them, rendered once a case per strategy.
        sent: dict[str, tuple[Prompt, ...] | None] = {}
        for seat in seats:
            name = seat.strategy.name
            if name not in sent:
                try:
                    sent[name] = seat.strategy.apply(rubric, prompts)
                except ValueError:
                    sent[name] = None  # the engine's vote is unavailable: no call is made
            applied = sent[name]
            if applied is None:
                seat.row.refused += 1
                continue
            _count(seat, case, applied, prompts, typical, rounds)
    for seat, juror in zip(seats, panel.jurors, strict=True):
        note = _probability_note(seat.row, probability_source(juror, seat.samples))
        if note:
            result.notes.append(note)
    for row in result.jurors:
        if row.refused:
            result.notes.append(
                f"{row.juror}: its strategy ({row.strategy}) cannot judge {row.refused} "
                "case(s) of this rubric (no call counted)"
            )
    if result.cases and not answered:
        result.notes.append(f"{NO_ANSWER} (`jury run` stops with exit 2 on this file)")
    return result
