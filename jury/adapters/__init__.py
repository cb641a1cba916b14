"""The public seam for third parties: what a provider adapter or a rubric kind is built from.

The built-in adapters (``providers/``) and rubric kinds (``rubrics/``) import from here and
from `jury`, never from a private module, so that an outside one can do anything they do.
``import jury.adapters`` imports no provider SDK.

**Judge models** (a provider adapter): subclass `JudgeModel` and implement ``complete``, which
turns a `JudgeRequest` (system text, `Message` turns, the reply's JSON schema, sampling
settings) into a `JudgeReply` (text, `Usage`, the model that served, how the reply ended as a
`Finish`, the reply's rate-limit headers). Declare the account's `ProviderLimits`
(``default_limits``) and the jury-file tables that configure it (``limit_names``); `price` a
reply from the genai-prices table; give the model a family with `family_of`; make
``prefix/model`` strings resolve to it with `register_provider`, and say what is known of
each model's lifecycle (a `ModelStatus`: active, deprecated, retired) with its
``lifecycle=``.

**Provider errors**: ``classify_error`` maps a foreign exception to one of `TransientError`
(retried), `RateLimitedError` (waited out, within the call's time for rate limits),
`InvalidRequestError` (never retried), or an `AccountError` that stops the run:
`AuthenticationError`, `QuotaExhaustedError`; all are `ProviderError`. A missing key is a
`MissingCredentialError`, a setting that cannot work a `ConfigError`. An adapter never
retries: the engine does.

**Rubric kinds**: subclass `Rubric`. It declares the `Metric` values a `Ballot` carries (each
a `Score` at a `Level` of measurement), renders a `Case` (its `Point` list, for points
rubrics; its `Turn` list, for a conversation) into `Prompt` objects, reads a reply into a
ballot and decides a `Verdict` from each metric's `MetricResult` (a `Decision`); `single`
gives one value as a result, to decide on one juror's values. Make rubric files with
``kind = "..."`` load through it with `register_rubric_kind`.

**Batch APIs**: an adapter whose provider runs request batches returns a `BatchAPI` from
``JudgeModel.batches``: each request as a line of the batch input, create, find (after a
crash), retrieve (a `BatchStatus`), results (a `BatchOutcome` per request), cancel, and the
batch price (`batch_price` from the table, within the provider's `BatchLimits`).

**Reading replies**: `parse_reply` reads a reply's text as one JSON object, `validate_model`
checks it against a pydantic model (strict: no coercion), `pydantic_reason` says what was
wrong in the words a judge is re-asked with; a rule the schema cannot state raises
`InvalidReply`. A rubric file that cannot work raises `RubricError`. `case_fence` gives the
code that fences a case's sections, so that nothing inside the case can close them.

**Agents** (the system under test): subclass `Agent` and implement ``respond``, which turns
a `Case` into an `AgentReply` (the answer, the request's `Trace`, turns, usage, cost, latency).

**Reference replies**: offline reference jurors ask a rubric for the reply they give
(``Rubric.reference_reply``), passing a `ReferenceJudge` that measures answers: a `Rating`
per aspect, a `Judgement` on a statement or a criterion, a `Preference` between two answers.
"""

from .._errors import (
    AccountError,
    AuthenticationError,
    ConfigError,
    InvalidReply,
    InvalidRequestError,
    MissingCredentialError,
    ProviderError,
    QuotaExhaustedError,
    RateLimitedError,
    RubricError,
    TransientError,
)
from .._verdict import Ballot, Level, Metric, MetricResult, Score, Verdict, single
from ..cases._case import Case, Point
from ..cases._turns import Turn
from ._account import ModelStatus, ProviderLimits
from ._agent import Agent, AgentReply
from ._batch import BatchAPI, BatchLimits, BatchOutcome, BatchStatus
from ._model import JudgeModel
from ._prices import batch_price, price
from ._registry import family_of, register_provider, register_rubric_kind
from ._request import Finish, JudgeReply, JudgeRequest, Message, Usage
from ._rubric import (
    Decision,
    Judgement,
    Preference,
    Prompt,
    Rating,
    ReferenceJudge,
    Rubric,
    case_fence,
    parse_reply,
    pydantic_reason,
    validate_model,
)

__all__ = [
    "AccountError",
    "Agent",
    "AgentReply",
    "AuthenticationError",
    "Ballot",
    "BatchAPI",
    "BatchLimits",
    "BatchOutcome",
    "BatchStatus",
    "Case",
    "ConfigError",
    "Decision",
    "Finish",
    "InvalidReply",
    "InvalidRequestError",
    "JudgeModel",
    "JudgeReply",
    "JudgeRequest",
    "Judgement",
    "Level",
    "Message",
    "Metric",
    "MetricResult",
    "MissingCredentialError",
    "ModelStatus",
    "Point",
    "Preference",
    "Prompt",
    "ProviderError",
    "ProviderLimits",
    "QuotaExhaustedError",
    "RateLimitedError",
    "Rating",
    "ReferenceJudge",
    "Rubric",
    "RubricError",
    "Score",
    "TransientError",
    "Turn",
    "Usage",
    "Verdict",
    "batch_price",
    "case_fence",
    "family_of",
    "parse_reply",
    "price",
    "pydantic_reason",
    "register_provider",
    "register_rubric_kind",
    "single",
    "validate_model",
]
