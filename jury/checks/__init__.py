"""Deterministic checks: don't LLM-judge what an ``if`` can test.

A check is a small synchronous function of a case (its answer, trace and expectations) that
returns a `jury.CheckResult`: pass, fail or not applicable, with a reason and the evidence
that decided it (truncated, and with personal data and secrets masked). Checks run before
the judges; a failed *required* check fails the case and, unless the run asks the judges
anyway (``judge_all``), spares their calls.

Built-in checks, in the order they run (by debugging stage, `STAGES`):

==========================  ============  ==================================================
check                       stage         applies when the case gives
==========================  ============  ==================================================
source                      retrieval     ``expected_source``
check_quotes                retrieval     a point with a ``quote`` (advisory by default)
tool_choice                 tool choice   ``expected_tool`` (an explicit null: no tool)
tool_order                  tool choice   ``expected_tool_order``
tool_argument               tool argument ``expected_tool_argument``
tool_calls                  tool argument ``expected_tool_calls`` (names, order, arguments)
tools_healthy               tool argument any tool call
answer_present              generation    always
garbled                     generation    an answer
cites_only_what_it_read     generation    a cited source (trace or answer text)
pii                         generation    an answer (e-mail: ``allowed_emails``)
json_schema                 generation    ``json_schema`` (or one in the jury file)
length                      generation    ``min_words`` / ``max_words`` (or jury file)
refusal                     generation    ``expect_refusal`` (true or false)
redirect                    generation    ``expect_refusal: true``
blocklist                   generation    an answer
must_find                   generation    ``must_find``
==========================  ============  ==================================================

Checks read ``answer`` (in a conversation, the assistant's last reply; ``pii``, ``blocklist``,
``garbled`` and the citations read every assistant turn, and the trace is every turn's tool
calls); the second answer of a pairwise case (``answer_b``) is not checked.
The refusal and redirect checks, the PII check's e-mail addresses and the offline reference
jurors share one vocabulary: `REFUSAL_PHRASES` (`SOFT_REFUSAL_PHRASES` count only where a
refusal is expected), `REDIRECT_PATTERNS`, `EMAIL`, and `find_refusal` / `find_redirect`
that apply them.
Their exact rules are in the docstrings of `jury.checks._trace` (tool argument matching,
source names, citation patterns), `jury.checks._output` and `jury.checks._pii`. The jury file's
``[checks]`` table configures them (`CheckSettings`).

Your own check::

    from jury import checks

    @checks.check(stage="generation", required=False)
    def states_a_date(case):
        found = DATE.search(case.answer or "")
        return checks.passed(evidence=found[0]) if found else checks.failed("no date")

    suite = checks.CheckSuite.from_settings(panel.checks, extra=[states_a_date])
    async with jury.Jury(panel, checks=suite) as j: ...

or, in the jury file, ``[[checks.custom]] function = "my_checks:states_a_date"``. A check
function may also return True / False (pass / fail) or None (not applicable). A check that
raises fails, with the exception as its reason.
"""

from types import FunctionType

from .._verdict import STAGES
from ._core import Check, Finding, check, failed, not_applicable, passed, unavailable
from ._output import find_blocked, propose_length_bounds
from ._settings import CheckSettings, Stage
from ._suite import BUILTIN_CHECKS, CheckSuite
from ._vocabulary import (
    EMAIL,
    REDIRECT_PATTERNS,
    REFUSAL_PHRASES,
    SOFT_REFUSAL_PHRASES,
    find_redirect,
    find_refusal,
)

__all__ = [
    "BUILTIN_CHECKS",
    "EMAIL",
    "REDIRECT_PATTERNS",
    "REFUSAL_PHRASES",
    "SOFT_REFUSAL_PHRASES",
    "STAGES",
    "Check",
    "CheckSettings",
    "CheckSuite",
    "Finding",
    "Stage",
    "check",
    "failed",
    "find_blocked",
    "find_redirect",
    "find_refusal",
    "not_applicable",
    "passed",
    "propose_length_bounds",
    "unavailable",
]


# Each public name says where to import it from (jury.checks.X), not the private module that
# defines it: reprs, tracebacks and the API reference read the same door.
for _name in __all__:
    if isinstance(_value := globals()[_name], type | FunctionType):
        _value.__module__ = __name__
del _name, _value
