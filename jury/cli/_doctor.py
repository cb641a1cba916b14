"""`jury doctor [--jury FILE]`: one small live call per juror, before a run trusts them.

The first command to run with real keys. For each juror's first model it reports the model
that actually served the call, whether the reply honoured the structured-output schema, the
latency, the tokens and the price of the call, the rate-limit headers the provider sent, and
the model's lifecycle status; fallbacks are listed with their status, not called. It exits 2
naming the first juror that cannot serve (no key, a rejected key, no quota, a retired model,
a failed call), else 0. Nothing else in aiojury makes these calls: running the command is the
opt-in.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from dataclasses import dataclass, field
from typing import IO, Any

from .._errors import ConfigError, JurorUnusable, JuryError, ProviderError
from ..adapters._account import ModelStatus
from ..adapters._model import JudgeModel
from ..adapters._registry import model_status, resolve_model, structured_output
from ..adapters._request import JudgeReply, JudgeRequest, Message
from ..adapters._rubric import parse_reply
from ..panel._lifecycle import today
from ..panel._panel import Juror, Panel
from ..panel._probability import probability_source
from ..runner._options import RunOptions, panel_for
from ..runs import run_interruptible

__all__ = ["PROBE", "register"]

EXIT_CANNOT_SERVE = 2

#: The call made: a schema small enough for any structured-output dialect, a short reply.
PROBE = JudgeRequest(
    system=(
        "You are a judge on an evaluation panel, being checked before a run. Reply with one "
        "JSON object and nothing else."
    ),
    messages=(Message("user", 'Reply with {"reason": "ready", "ready": true}.'),),
    schema={
        "type": "object",
        "properties": {"reason": {"type": "string"}, "ready": {"type": "boolean"}},
        "required": ["reason", "ready"],
        "additionalProperties": False,
    },
    schema_name="doctor",
    temperature=0.0,
    max_tokens=64,
)


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "doctor",
        help="one small live call per juror: is each ready to judge? (run it first with keys)",
        description="Make one small live call to each juror's model and report the model that "
        "served, structured output, latency, tokens, price, rate-limit headers and lifecycle "
        "status. Exits 2 naming the first juror that cannot serve.",
    )
    parser.add_argument("--jury", metavar="FILE", help="jury file (TOML); default: default panel")
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="seconds to wait for each call (default: the jury's own timeout, as a run waits)",
    )
    parser.set_defaults(handler=run, rubric=None, threshold=None)


@dataclass(slots=True)
class Checkup:
    """What one juror's call showed."""

    juror: str
    model: str
    status: ModelStatus | None = None
    offline: bool = False
    reply: JudgeReply | None = None
    structured: str = ""
    latency: float = 0.0
    price: float | None = None
    problem: str | None = None
    #: What to change, when the call failed in a way the adapter can say (`fix_for`).
    fix: str | None = None
    fallbacks: list[tuple[str, ModelStatus | None]] = field(default_factory=list)
    #: What the model learned of its server before the call (`JudgeModel.learned`).
    server: tuple[str, ...] = ()
    #: Where the juror's probability comes from (`jury.panel._probability`).
    probability: str = ""


#: What each structured output of a model's profile (`jury.adapters.ModelProfile`) promises.
_HELD = {
    "json_schema": "json_schema: the provider holds the reply to the schema",
    "json_object": "json_object: the provider holds the reply to a JSON object",
    "none": "none: only the prompt asks for JSON",
}


def _structured(reply: JudgeReply, spec: str) -> str:
    """Whether the reply is the schema's object, and what the model's profile says of its
    structured output: a reply off the schema under ``json_schema`` is a setting the server
    ignored, said as such."""
    held = structured_output(spec)
    try:
        data = reply.parsed if reply.parsed is not None else parse_reply(reply.text)
    except JuryError as exc:
        found = f"no ({exc})"
    else:
        if isinstance(data.get("ready"), bool) and isinstance(data.get("reason"), str):
            return f"yes ({_HELD[held]})"
        found = f"no (keys {sorted(data)})"
    if held == "json_schema":
        return f"{found}: the server ignored the schema it was sent (json_schema)"
    return f"{found}; {_HELD[held]}"


async def check(juror: Juror, panel: Panel, seconds: float) -> Checkup:
    """One live call to the juror's first model; never raises for the model's failures."""
    day = today()
    spec = juror.model.name if isinstance(juror.model, JudgeModel) else juror.model
    result = Checkup(juror.id, spec, status=model_status(spec, day))
    result.probability = probability_source(juror, panel.samples_for(juror)).why
    for fallback in juror.fallbacks:
        name = fallback.name if isinstance(fallback, JudgeModel) else fallback
        result.fallbacks.append((name, model_status(name, day)))
    if result.status is not None and result.status.state == "retired" and not panel.allow_retired:
        result.problem = f"retired: {result.status.describe()}"
        return result
    try:
        model = juror.model if isinstance(juror.model, JudgeModel) else resolve_model(spec)
    except ConfigError as exc:
        result.problem = str(exc)
        return result
    if model.offline:
        result.offline = True
        return result
    if juror.pinned is not None:
        model.pinned = juror.pinned
    started = time.perf_counter()
    try:
        # As a run does: learn what the server is (a local one's dialect, slots, file) first.
        await model.prepare()
        result.server = model.learned
        async with asyncio.timeout(seconds):
            reply = await model.complete(PROBE)
    except TimeoutError:
        result.problem = f"no reply within {seconds:g}s"
    except JurorUnusable as exc:  # the server serves another file than the one pinned
        result.problem, result.fix = str(exc.error), exc.fix
    except Exception as exc:  # every foreign error goes through the adapter's classifier
        error: ProviderError = model.classify_error(exc)
        result.problem = f"{type(error).__name__}: {error}"
        # The same fix a run that stopped on this juror names (`jury.JurorUnusable`).
        result.fix = model.fix_for(error)
    else:
        result.latency = time.perf_counter() - started
        result.reply = reply
        result.structured = _structured(reply, spec)
        result.price = model.price(reply)
    finally:
        await model.aclose()
    return result


def _print(result: Checkup, out: IO[str]) -> None:
    print(f"juror {result.juror} ({result.model})", file=out)
    lifecycle = result.status.describe() if result.status else "not known to its adapter"
    rows: list[tuple[str, str]] = []
    if result.offline:
        rows.append(("ready", "offline reference juror: no call needed"))
    elif result.reply is not None:
        reply, usage = result.reply, result.reply.usage
        price = "unknown" if result.price is None else f"${result.price:.6f}"
        served = reply.model or "(not said)"
        if reply.fake:
            # A run labels these replies FAKE and prices them $0: doctor, which says what
            # serves each juror, must not pass the test server off as the provider.
            served = f"FAKE: jury.testing's server, not the provider (as {served})"
            price = f"$0 (a FAKE reply; the provider's price: {price})"
        limits = ", ".join(f"{k}={v}" for k, v in sorted((reply.rate_limits or {}).items()))
        rows += [
            ("served by", served),
            ("structured", result.structured),
            ("latency", f"{result.latency:.2f} s"),
            ("tokens", f"{usage.input_tokens} in, {usage.output_tokens} out"),
            ("price per call", price),
            ("rate limits", limits or "no rate-limit header"),
        ]
    rows += [(_label(line), line.split(": ", 1)[-1]) for line in result.server]
    if result.problem is not None:
        rows.append(("cannot serve", result.problem))
    if result.fix is not None:
        rows.append(("fix", result.fix))
    if not result.offline:
        rows.append(("probability", result.probability))
        rows.append(("lifecycle", lifecycle))
    rows += [
        ("fallback", f"{name}: {status.describe() if status else 'not known'} (not called)")
        for name, status in result.fallbacks
    ]
    for label, value in rows:
        print(f"  {label:<15}{value}", file=out)


def _label(learned: str) -> str:
    """What a line the model learned before its call is about: the provider's word on its
    lifecycle (OpenAI's ``shutdown_date``), or its server."""
    return "announced" if "shutdown_date" in learned else "server"


def run(args: argparse.Namespace) -> int:
    panel = panel_for(RunOptions.of(args))

    async def go() -> list[Checkup]:
        seconds = panel.timeout if args.timeout is None else args.timeout
        return list(await asyncio.gather(*(check(j, panel, seconds) for j in panel.jurors)))

    results = run_interruptible(go())
    for result in results:
        _print(result, sys.stdout)
    failed = [result for result in results if result.problem is not None]
    ready = len(results) - len(failed)
    fake = sum(1 for result in results if result.reply is not None and result.reply.fake)
    faked = f"; {fake} answered by jury.testing's FAKE server, not the provider" if fake else ""
    print(
        f"{ready} of {len(results)} juror{'s' * (len(results) != 1)} ready{faked}", file=sys.stdout
    )
    if failed:
        first = failed[0]
        fix = f"\n  fix: {first.fix}" if first.fix else ""
        print(f"jury: doctor: {first.juror} cannot serve: {first.problem}{fix}", file=sys.stderr)
        return EXIT_CANNOT_SERVE
    return 0
