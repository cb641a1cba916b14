"""The public seam for third parties: what a provider adapter or a rubric kind is built from.

The built-in adapters (``providers/``) and rubric kinds (``rubrics/``) import from here and
from `jury`, never from a private module, so that an outside one can do anything they do.
Each name has one front door: the seams here, and what an evaluation's user also meets (the
case, the verdict types, the errors a caller catches, `jury.ProviderLimits`) in `jury`.
``import jury.adapters`` imports no provider SDK.

**Judge models** (a provider adapter): subclass `JudgeModel` and implement ``complete``, which
turns a `JudgeRequest` (system text, `Message` turns, the reply's JSON schema, sampling
settings) into a `JudgeReply` (text, `Usage`, the model that served, how the reply ended as a
`Finish`, the reply's rate-limit headers). Declare the account's `jury.ProviderLimits`
(``default_limits``) and the jury-file tables that configure it (``limit_names``); `price` a
reply from the genai-prices table; say where its calls go and how (``endpoint``, an
`Endpoint`: the URL and every setting that shapes the request, part of each call's cache key;
a reply from a server that sends `FAKE_HEADER` is `JudgeReply.fake`). Make ``prefix/model``
strings resolve to it with `register_provider`, saying what its models can do in a
`ModelProfile`: which take images, which give token log-probabilities, their structured
output, the provider's batch API, the models' family, and what is known of each model's
lifecycle (a `ModelStatus`: active, deprecated, retired). The built-in providers declare
theirs with the same type (`jury.providers.BUILTIN`), and the engine holds every adapter to
its profile alike: a model is sent images (`images_refusal`), warned about for
log-probabilities, batched, counted in the family warnings (`family_of`), warned about and
refused by its lifecycle as its profile says::

    register_provider(
        "acme",
        lambda spec: AcmeJudge(spec),
        ModelProfile(family="acme", images=True, logprobs=True, batch=acme_batches,
                     structured_output="json_schema", lifecycle=acme_lifecycle),
    )

**Provider errors**: ``classify_error`` maps a foreign exception to one of `TransientError`
(retried), `RateLimitedError` (waited out, within the call's time for rate limits),
`InvalidRequestError` (never retried), or a `jury.AccountError` that stops the run:
`jury.AuthenticationError`, `jury.QuotaExhaustedError`; all are `jury.ProviderError`. A missing
key is a `jury.MissingCredentialError`, a setting that cannot work a `jury.ConfigError`. An
adapter never retries: the engine does.

**Rubric kinds**: subclass `Rubric`. It declares the `Metric` values a `jury.Ballot` carries
(each a `Score` at a `Level` of measurement), renders a `jury.Case` (its `jury.Point` list, for
points rubrics; its `jury.Turn` list, for a conversation) into `Prompt` objects, reads a reply
into a ballot and decides a `jury.Verdict` from each metric's `jury.MetricResult` (a
`Decision`); `single`
gives one value as a result, to decide on one juror's values. Make rubric files with
``kind = "..."`` load through it with `register_rubric_kind`.

**Batch APIs**: an adapter whose provider runs request batches names, as its profile's
``batch``, a function of the model that returns its `BatchAPI` (`JudgeModel.batches` asks
it): each request as a line of the batch input, create, find (after a crash), retrieve (a
`BatchStatus`), results (a `BatchOutcome` per request), cancel, and the batch price
(`batch_price` from the table, within the provider's `BatchLimits`).

**Reading replies**: `parse_reply` reads a reply's text as one JSON object, `validate_model`
checks it against a pydantic model (strict: no coercion), `pydantic_reason` says what was
wrong in the words a judge is re-asked with; a rule the schema cannot state raises
`InvalidReply`. A rubric file that cannot work raises `jury.RubricError`. `case_fence` gives the
code that fences a case's sections, so that nothing inside the case can close them.

**Strategies** (a way of judging, so that a seat is a model and a strategy): a `Strategy`
adds instructions after a rubric's system text and names the fields the judge writes before
its verdict (its questions, its own answer, its reasoning), which come first in the reply
schema and are kept with the vote; `register_strategy` makes ``strategy = "<name>"`` use it.

**Agents** (the system under test): subclass `Agent` and implement ``respond``, which turns
a `jury.Case` into an `AgentReply` (the answer, the request's `jury.Trace`, turns, usage,
cost, latency).
`reply_from` reads what an agent returned (a string, a mapping in any trace shape the case
loader reads, an `AgentReply`) into one; it raises `AgentError` for a reply that cannot
count (an empty answer). `AgentUnreachable` (a `jury.ConfigError`) says the agent cannot be
reached at all. Agents record their trace with the helpers of `jury.trace`.

**Reference replies**: offline reference jurors ask a rubric for the reply they give
(``Rubric.reference_reply``), passing a `ReferenceJudge` that measures answers: a `Rating`
per aspect, a `Judgement` on a statement or a criterion, a `Preference` between two answers.
"""

from types import FunctionType

from .._errors import (
    AgentError,
    AgentUnreachable,
    InvalidReply,
    InvalidRequestError,
    RateLimitedError,
    SettingRefusedError,
    TransientError,
    UnreachableError,
)
from .._verdict import Level, Metric, Score, single
from ._account import ModelStatus
from ._agent import Agent, AgentReply
from ._batch import BatchAPI, BatchLimits, BatchOutcome, BatchStatus
from ._endpoint import FAKE_HEADER, Endpoint
from ._model import JudgeModel
from ._prices import batch_price, price
from ._profile import ModelProfile
from ._registry import family_of, images_refusal, register_provider, register_rubric_kind
from ._reply import reply_from
from ._request import (
    TOP_LOGPROBS,
    Finish,
    Image,
    JudgeReply,
    JudgeRequest,
    Message,
    TokenLogprob,
    Usage,
)
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
from ._strategy import Strategy, register_strategy

__all__ = [
    "FAKE_HEADER",
    "TOP_LOGPROBS",
    "Agent",
    "AgentError",
    "AgentReply",
    "AgentUnreachable",
    "BatchAPI",
    "BatchLimits",
    "BatchOutcome",
    "BatchStatus",
    "Decision",
    "Endpoint",
    "Finish",
    "Image",
    "InvalidReply",
    "InvalidRequestError",
    "JudgeModel",
    "JudgeReply",
    "JudgeRequest",
    "Judgement",
    "Level",
    "Message",
    "Metric",
    "ModelProfile",
    "ModelStatus",
    "Preference",
    "Prompt",
    "RateLimitedError",
    "Rating",
    "ReferenceJudge",
    "Rubric",
    "Score",
    "SettingRefusedError",
    "Strategy",
    "TokenLogprob",
    "TransientError",
    "UnreachableError",
    "Usage",
    "batch_price",
    "case_fence",
    "family_of",
    "images_refusal",
    "parse_reply",
    "price",
    "pydantic_reason",
    "register_provider",
    "register_rubric_kind",
    "register_strategy",
    "reply_from",
    "single",
    "validate_model",
]

# Each exported class and function says where to import it from (``jury.adapters.JudgeModel``).
for _name in __all__:
    if isinstance(_value := globals()[_name], type | FunctionType):
        _value.__module__ = __name__
del _name, _value
