"""The same contract against the real APIs: opt-in with ``--live``, skipped without a key.

Never run in CI (no keys exist there). Each test makes one or two small calls::

    ANTHROPIC_API_KEY=... python -m pytest tests/providers/test_live.py --live
"""

from __future__ import annotations

import os

import pytest
from provider_helpers import TRANSPORTS, judge, panel

from jury import Verdict, VoteStatus
from jury.panel._defaults import DEFAULT_JURORS

pytestmark = pytest.mark.live


@pytest.fixture(params=DEFAULT_JURORS, ids=[spec for spec, _ in DEFAULT_JURORS])
def live_spec(request: pytest.FixtureRequest) -> str:
    spec, variables = request.param
    if not any(os.environ.get(v) for v in variables):
        pytest.skip(f"{' or '.join(variables)} is not set")
    return str(spec)


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_real_judge_gives_a_valid_vote(
    live_spec: str, transport: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JURY_TRANSPORT", transport)
    verdict = await judge(panel(live_spec))
    vote = verdict.votes[0]
    assert vote.status is VoteStatus.VALID, vote.error or vote.raw
    assert verdict.verdict in (Verdict.PASS, Verdict.FAIL)
    # The model that served is the pinned one (providers may append nothing or a suffix).
    assert vote.served_by is not None
    assert vote.served_by.startswith(live_spec.partition("/")[2].split("-20")[0])
    assert vote.calls.input_tokens > 0
    assert vote.calls.output_tokens > 0
