"""The pipeline in the library: agent -> checks -> jury -> decision, with agent failures FAIL."""

from __future__ import annotations

import asyncio

import pytest

from conftest import case, panel_of, scores, scripted
from jury import Case, Jury, Verdict
from jury.adapters import Agent, AgentReply, AgentUnreachable
from jury.engine._agent_step import answer_and_judge


class Echo(Agent):
    """Answers every case the same way, counting its calls and the most at once."""

    name = "echo"

    def __init__(self, answer: str = "Yes, within 30 days.", delay: float = 0.0) -> None:
        self.answer = answer
        self.delay = delay
        self.calls = 0
        self.running = 0
        self.most = 0

    async def respond(self, case: Case) -> AgentReply:
        self.calls += 1
        self.running += 1
        self.most = max(self.most, self.running)
        try:
            await asyncio.sleep(self.delay)
            return AgentReply(answer=f"{self.answer} ({case.id})")
        finally:
            self.running -= 1


class Broken(Agent):
    name = "broken"

    def __init__(self, error: BaseException | None = None, hang: bool = False) -> None:
        self.error = error
        self.hang = hang
        self.calls = 0

    async def respond(self, case: Case) -> AgentReply:
        self.calls += 1
        if self.hang:
            await asyncio.sleep(60)
        if self.error is not None:
            raise self.error
        return AgentReply(answer="   ")


def golden(n: int) -> list[Case]:
    return [case(f"g{i}", answer=None) for i in range(n)]


async def test_each_case_is_answered_once_then_judged_with_the_agents_answer() -> None:
    judge = scripted([scores(5)])
    agent = Echo()
    async with Jury(panel_of(judge), checks=None) as jury:
        verdicts = [v async for v in jury.evaluate(golden(20), agent=agent)]
    assert sorted(v.case_id for v in verdicts) == sorted(f"g{i}" for i in range(20))
    assert {v.verdict for v in verdicts} == {Verdict.PASS}
    assert agent.calls == 20
    sent = [request.messages[-1].content for request in judge.requests]
    assert all("Yes, within 30 days. (g" in text for text in sent)


async def test_agent_calls_run_within_their_own_bound() -> None:
    agent = Echo(delay=0.01)
    async with Jury(panel_of(scripted([scores(5)]), concurrency=32), checks=None) as jury:
        async for _ in jury.evaluate(golden(40), agent=agent, agent_concurrency=3):
            pass
    assert agent.most == 3


@pytest.mark.parametrize(
    ("agent", "error"),
    [
        (Broken(ValueError("the index is empty")), "raised ValueError: the index is empty"),
        (Broken(hang=True), "timed out after 0.05s"),
        (Broken(), "returned no answer"),
    ],
    ids=["raising", "hanging", "empty"],
)
async def test_a_broken_agent_fails_its_case_at_the_agent_stage_and_spares_the_judges(
    agent: Broken, error: str
) -> None:
    judge = scripted([scores(5)])
    async with Jury(panel_of(judge), checks=None) as jury:
        verdicts = [v async for v in jury.evaluate(golden(3), agent=agent, agent_timeout=0.05)]
    assert [v.verdict for v in verdicts] == [Verdict.FAIL] * 3
    assert {v.failed_stage for v in verdicts} == {"agent"}
    assert all(error in v.reasons[0] and v.checks[0].reason == error for v in verdicts)
    assert judge.calls == 0
    # The calls not made are counted, as for a failed check ("0 judge call(s) saved" before).
    assert [(v.judges_spared, v.calls_saved) for v in verdicts] == [(True, 1)] * 3


async def test_an_agent_whose_first_calls_all_fail_to_connect_stops_the_run_before_any_judge() -> (
    None
):
    judge = scripted([scores(5)])
    agent = Broken(ConnectionRefusedError(111, "Connection refused"))
    async with Jury(panel_of(judge), checks=None) as jury:
        with pytest.raises(AgentUnreachable, match="cannot be reached"):
            async for _ in jury.evaluate(golden(50), agent=agent, agent_concurrency=4):
                pass
    assert judge.calls == 0
    assert agent.calls <= 4 + 32  # the first calls, and no more than the stream holds


async def test_two_cases_that_fail_to_connect_are_all_the_first_calls_there_are() -> None:
    agent = Broken(ConnectionRefusedError(111, "Connection refused"))
    async with Jury(panel_of(scripted([scores(5)])), checks=None) as jury:
        with pytest.raises(AgentUnreachable):
            async for _ in jury.evaluate(golden(2), agent=agent):
                pass


async def test_connection_errors_after_a_success_fail_their_cases_instead() -> None:
    class Flaky(Agent):
        name = "flaky"

        async def respond(self, case: Case) -> AgentReply:
            if case.id != "g0":
                await asyncio.sleep(0.01)
                raise ConnectionResetError("reset by peer")
            return AgentReply(answer="fine")

    async with Jury(panel_of(scripted([scores(5)])), checks=None) as jury:
        verdicts = {v.case_id: v async for v in jury.evaluate(golden(6), agent=Flaky())}
    assert verdicts["g0"].verdict is Verdict.PASS
    assert all(verdicts[f"g{i}"].failed_stage == "agent" for i in range(1, 6))


async def test_one_case_answered_and_judged_gives_a_broken_agents_case_its_fail() -> None:
    async with Jury(panel_of(scripted([scores(5)])), checks=None) as jury:
        passed = await answer_and_judge(jury.judge, case("one", answer=None), Echo(), 1.0)
        failed = await answer_and_judge(
            jury.judge, case("two", answer=None), Broken(RuntimeError("x")), 1.0
        )
        unreachable = await answer_and_judge(
            jury.judge, case("three", answer=None), Broken(ConnectionRefusedError("no")), 1.0
        )
    assert passed.verdict is Verdict.PASS
    assert (failed.verdict, failed.failed_stage) == (Verdict.FAIL, "agent")
    assert (unreachable.verdict, unreachable.failed_stage) == (Verdict.FAIL, "agent")


def test_the_progress_line_shows_agent_calls_beside_judge_calls() -> None:
    import io

    from jury.engine._agent_step import AgentCounts
    from jury.report._progress import RunProgress

    progress = RunProgress(10, mode="none", stream=io.StringIO())
    assert "agent" not in progress.line()
    progress.agent = AgentCounts(started=5, done=4, failed=1)
    line = progress.line()
    assert "agent calls 4 (1 running, 1 failed)" in line
    assert line.index("agent calls") < line.index("judge calls")


async def test_a_retired_model_as_the_agent_is_refused_by_the_library_as_by_the_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from jury import ConfigError
    from jury.panel._agent_spec import resolve_agent

    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key-not-secret")
    # Retired on the suite's day by the project's own lifecycle table.
    agent = resolve_agent("anthropic/claude-sonnet-4-5-20250929")
    async with Jury(panel_of(scripted([scores()])), checks=None) as jury:
        with pytest.raises(ConfigError, match="retired model as the agent"):
            jury.evaluate([case()], agent=agent)
    await agent.aclose()
