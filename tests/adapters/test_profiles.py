"""An outside provider says what its models can do in a `ModelProfile`, and is held to the
same rules as the built-in ones (issue 33, item 4): sent images when its profile says its
models take them, asked for log-probabilities and voting with them when it says they give
them, warned about and refused by its lifecycle, counted in the family warnings, batched
through the batch API its profile names. The built-in providers declare theirs with the same
type."""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import AsyncIterator, Callable
from datetime import date
from pathlib import Path
from typing import Any, ClassVar

import pytest
from images_helpers import PNG

import jury.providers
from conftest import scores
from jury import Case, ConfigError, Juror, Jury, Panel, VoteStatus
from jury.adapters import (
    BatchAPI,
    BatchLimits,
    BatchOutcome,
    BatchStatus,
    Image,
    JudgeModel,
    JudgeReply,
    JudgeRequest,
    ModelProfile,
    ModelStatus,
    TokenLogprob,
    Usage,
    _profile,
    family_of,
    images_refusal,
    register_provider,
)
from jury.adapters._registry import (
    effort_refusal,
    logprobs_refusal,
    model_status,
    output_room,
    structured_output,
)
from jury.batch._run import BatchRun
from jury.batch._store import BatchStore
from jury.cli import main
from jury.panel._batch_settings import BatchSettings
from jury.panel._warnings import panel_warnings
from jury.testing import FakeClock


class AcmeJudge(JudgeModel):
    """An outside adapter: a five-metric reply, correctness 4 (0.6) or 3 (0.4), with the
    reply's token log-probabilities when it is asked for them, as the real APIs give them."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.requests: list[JudgeRequest] = []

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        self.requests.append(request)
        return reply(logprobs=request.logprobs)


def reply(*, logprobs: bool) -> JudgeReply:
    text = json.dumps(scores(5, correctness=4))
    head, _, tail = text.partition(" 4,")
    sure = -0.0001
    tokens = (
        TokenLogprob(head, sure, ((head, sure),)),
        TokenLogprob(" 4", math.log(0.6), ((" 4", math.log(0.6)), (" 3", math.log(0.4)))),
        TokenLogprob(f",{tail}", sure, ((f",{tail}", sure),)),
    )
    return JudgeReply(
        text=text, model="acme-1", usage=Usage(10, 5), logprobs=tokens if logprobs else None
    )


#: The models acme serves, as its own lifecycle table knows them.
def acme_lifecycle(model: str, day: date) -> ModelStatus | None:
    if model == "old-1":
        return ModelStatus(model, "deprecated", "acme's model page", retires=date(2099, 1, 1))
    if model == "gone-1":
        return ModelStatus(model, "retired", "acme's model page", retires=date(2020, 1, 1))
    if model.endswith("-1"):
        return ModelStatus(model, "active", "acme's model page", pinned=True)
    return None


@pytest.fixture
def acme(monkeypatch: pytest.MonkeyPatch) -> Callable[[ModelProfile], None]:
    """Registers the acme provider with a profile of the test's, for this test only."""
    _profile.factories()
    monkeypatch.setattr(_profile, "_FACTORIES", dict(_profile._FACTORIES))
    monkeypatch.setattr(_profile, "_PROFILES", dict(_profile._PROFILES))
    return lambda profile: register_provider("acme", AcmeJudge, profile)


CASE = Case(
    id="cat-1",
    question="What animal is in [image 1]?",
    answer="A cat.",
    golden_answer="A cat.",
    images=(Image(media_type="image/png", data=PNG),),
)


async def judge(panel: Panel, case: Case = CASE) -> Any:
    async with Jury(panel, checks=None) as jury:
        return await jury.judge(case)


async def test_an_outside_model_is_sent_images_when_its_profile_says_it_takes_them(
    acme: Callable[[ModelProfile], None],
) -> None:
    acme(ModelProfile(images=lambda model: None if "vision" in model else f"{model} reads text"))
    seeing, blind = AcmeJudge("acme/vision-1"), AcmeJudge("acme/text-1")
    verdict = await judge(Panel(jurors=(Juror(model=seeing), Juror(model=blind))))
    votes = {vote.juror: vote for vote in verdict.votes}
    sees, abstains = votes["acme/vision-1"], votes["acme/text-1"]
    assert sees.status is VoteStatus.VALID
    assert [m.images for m in seeing.requests[0].messages] == [CASE.images]
    assert abstains.status is VoteStatus.ABSTAINED
    assert "text-1 reads text" in (abstains.reason or "")
    assert blind.requests == []  # nothing sent, nothing paid


async def test_an_outside_model_is_refused_images_when_its_profile_says_nothing(
    acme: Callable[[ModelProfile], None],
) -> None:
    acme(ModelProfile())
    model = AcmeJudge("acme/vision-1")
    (vote,) = (await judge(Panel(jurors=(Juror(model=model),)))).votes
    assert vote.status is VoteStatus.ABSTAINED
    assert "the acme provider takes no images" in (vote.reason or "")
    assert model.requests == []
    acme(ModelProfile(images=True))
    assert images_refusal("acme/anything") is None


async def test_an_outside_models_votes_carry_log_probabilities_when_its_profile_says_so(
    acme: Callable[[ModelProfile], None],
) -> None:
    plain = Case(id="c1", question="q", answer="a", golden_answer="a")
    acme(ModelProfile(family="acme", logprobs=True))
    model = AcmeJudge("acme/model-1")
    panel = Panel(jurors=(Juror(model=model, logprobs=True),), rubric="five-metric")
    assert not [w for w in panel_warnings(panel) if "logprobs" in w]
    (vote,) = (await judge(panel, plain)).votes
    assert model.requests[0].logprobs is True
    assert vote.probability_from == "logprobs"
    assert vote.probability == pytest.approx(0.6)
    # A profile that says the model gives none: warned about at load, and never asked.
    acme(ModelProfile(family="acme", logprobs=lambda model: f"{model} keeps its odds"))
    model = AcmeJudge("acme/model-1")
    panel = Panel(jurors=(Juror(model=model, logprobs=True),), rubric="five-metric")
    assert [w for w in panel_warnings(panel) if "logprobs" in w] == [
        "acme/model-1: logprobs = true, but model-1 keeps its odds: its votes carry no "
        "probability from log-probabilities (samples = N gives the share of samples)"
    ]
    (vote,) = (await judge(panel, plain)).votes
    assert model.requests[0].logprobs is False
    assert vote.probability_from is None


def test_an_outside_models_lifecycle_warns_and_refuses_as_the_built_ins_do(
    acme: Callable[[ModelProfile], None],
) -> None:
    acme(ModelProfile(family="acme", lifecycle=acme_lifecycle))
    warnings = panel_warnings(Panel(jurors=(Juror(model="acme/old-1"),)))
    assert any(
        w.startswith("acme/old-1: old-1 is deprecated and retires on 2099-01-01 (acme's model")
        for w in warnings
    )
    with pytest.raises(ConfigError) as caught:
        Jury(Panel(jurors=(Juror(model="acme/gone-1"),)))
    assert "acme/gone-1: gone-1 was retired on 2020-01-01" in str(caught.value)
    assert "allow_retired = true" in str(caught.value)
    # A model its table does not know gets the built-ins' one line.
    unknown = panel_warnings(Panel(jurors=(Juror(model="acme/new"),)))
    assert any("new is not in aiojury's lifecycle table" in w for w in unknown)


def test_an_outside_providers_family_counts_in_the_family_warnings(
    acme: Callable[[ModelProfile], None],
) -> None:
    acme(ModelProfile(family="acme", lifecycle=acme_lifecycle))
    panel = Panel(
        jurors=(Juror(model="acme/model-1"), Juror(model="acme/other-1")),
        system_under_test="acme/model-1",
    )
    warnings = panel_warnings(panel)
    assert (
        "jurors acme/model-1, acme/other-1 are all of the acme family: a jury's strength is "
        "jurors from different families"
    ) in warnings
    assert (
        "juror acme/model-1 is of the acme family, like the system under test (acme/model-1): "
        "judges tend to prefer answers like their own"
    ) in warnings
    # A model object of the provider (its class says no family) takes the profile's too.
    assert family_of(AcmeJudge("acme/llama-3").name) == "acme"


class AcmeBatches(BatchAPI):
    """Acme's batch API, in this process: every request of a batch answered when created."""

    limits = BatchLimits(requests=100, bytes=1 << 20)
    made: ClassVar[list[AcmeBatches]] = []

    def __init__(self, model: AcmeJudge) -> None:
        self.model = model
        self.batches: dict[str, list[str]] = {}
        AcmeBatches.made.append(self)

    def entry(self, custom_id: str, request: JudgeRequest) -> bytes:
        return json.dumps({"custom_id": custom_id, "user": request.user}).encode()

    async def create(self, entries: Path, count: int, label: str) -> BatchStatus:
        lines = (await asyncio.to_thread(entries.read_bytes)).splitlines()
        ids = [json.loads(line)["custom_id"] for line in lines]
        assert len(ids) == count
        batch_id = f"acme-batch-{len(self.batches) + 1}"
        self.batches[batch_id] = ids
        return BatchStatus(batch_id, "done", ended=True)

    async def find(self, label: str, count: int, since: float) -> BatchStatus | None:
        return None

    async def retrieve(self, batch_id: str) -> BatchStatus:
        return BatchStatus(batch_id, "done", ended=True)

    async def results(self, status: BatchStatus) -> AsyncIterator[BatchOutcome]:
        for custom_id in self.batches[status.id]:
            yield BatchOutcome(custom_id, "succeeded", reply=reply(logprobs=False))

    async def cancel(self, batch_id: str) -> BatchStatus:
        return BatchStatus(batch_id, "canceled", ended=True)

    def price(self, reply: JudgeReply) -> float | None:
        return 0.0


async def batch_run(tmp_path: Path, cases: list[Case]) -> tuple[dict[str, Any], BatchRun]:
    panel = Panel(
        jurors=(Juror(model="acme/model-1"),),
        rubric="five-metric",
        batch=BatchSettings(poll=0.01),
    )
    verdicts: dict[str, Any] = {}
    async with BatchRun(panel, BatchStore(tmp_path), checks=None, clock=FakeClock()) as run:
        await run.run(
            lambda: [c for c in cases if c.id not in verdicts],
            lambda verdict: verdicts.__setitem__(verdict.case_id, verdict),
        )
    return verdicts, run


async def test_a_batch_run_uses_the_batch_api_an_outside_profile_names(
    acme: Callable[[ModelProfile], None], tmp_path: Path
) -> None:
    cases = [Case(id=f"c{n}", question=f"q{n}", answer="a", golden_answer="a") for n in range(5)]
    AcmeBatches.made.clear()
    acme(ModelProfile(family="acme", batch=AcmeBatches))
    verdicts, run = await batch_run(tmp_path / "batched", cases)
    assert run.online == []
    assert sorted(verdicts) == [c.id for c in cases]
    assert [vote.calls.batched for v in verdicts.values() for vote in v.votes] == [1] * 5
    assert [len(ids) for api in AcmeBatches.made for ids in api.batches.values()] == [5]
    # Without a batch API in its profile, the model is judged online, and the run says so.
    acme(ModelProfile(family="acme"))
    verdicts, run = await batch_run(tmp_path / "online", cases)
    assert run.online == ["acme/model-1"]
    assert [vote.calls.batched for v in verdicts.values() for vote in v.votes] == [0] * 5


def test_the_built_in_providers_declare_their_models_with_the_same_profile() -> None:
    for prefix, (factory, profile) in jury.providers.BUILTIN.items():
        assert isinstance(factory, str), prefix
        assert isinstance(profile, ModelProfile), prefix
        # Every function a built-in profile names imports.
        for name in ("images", "logprobs", "structured_output", "batch", "lifecycle"):
            value = getattr(profile, name)
            assert (
                callable(_profile.resolved(value))
                or not isinstance(value, str)
                or (value in ("json_schema", "json_object", "none"))
            ), (prefix, name)
        for name in ("effort", "output_room"):
            value = getattr(profile, name)
            assert value is None or callable(_profile.resolved(value)), (prefix, name)
    # What the tables used to say, now said by the profiles.
    assert images_refusal("openai/gpt-3.5-turbo") == "gpt-3.5-turbo takes text only"
    assert images_refusal("anthropic/claude-haiku-4-5") is None
    assert "set images = true" in (images_refusal("ollama/llava") or "")
    assert logprobs_refusal("anthropic/claude-haiku-4-5") == (
        "the anthropic provider gives no token log-probabilities"
    )
    assert logprobs_refusal("vllm/qwen3-8b") is None
    assert effort_refusal("openai/gpt-4o", "high") == "it is not a reasoning model"
    assert output_room("offline/facts") == 0
    assert model_status("ollama/llama3", date(2026, 12, 4)) is None
    assert family_of("ollama/qwen3:8b") == "qwen"


def test_a_compatible_servers_structured_output_is_its_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert structured_output("openai-api/local/smollm2-135m") == "json_schema"
    monkeypatch.setenv("LOCAL_RESPONSE_FORMAT", "json_object")
    assert structured_output("openai-api/local/smollm2-135m") == "json_object"
    assert structured_output("anthropic/claude-haiku-4-5") == "json_schema"
    assert structured_output("replay/x") == "none"


def test_a_profile_refuses_what_cannot_work() -> None:
    with pytest.raises(ValueError, match="structured_output: expected one of json_schema"):
        ModelProfile(structured_output="strict")
    with pytest.raises(ValueError, match="images: expected 'module:function'"):
        ModelProfile(images="yes")
    with pytest.raises(ValueError, match="family"):
        ModelProfile(family="")


def test_family_and_lifecycle_beside_the_factory_still_work_and_say_what_replaces_them(
    acme: Callable[[ModelProfile], None],
) -> None:
    with pytest.deprecated_call(match=r"pass register_provider\(prefix, factory, ModelProfile"):
        register_provider("acme", AcmeJudge, family="acme", lifecycle=acme_lifecycle)
    assert family_of("acme/whatever") == "acme"
    status = model_status("acme/old-1", date(2026, 12, 4))
    assert status is not None
    assert status.state == "deprecated"
    with pytest.raises(TypeError, match="in the profile, not beside it"):
        register_provider("acme", AcmeJudge, ModelProfile(), family="acme")


class AcmeProbeJudge(AcmeJudge):
    """Acme's models as `jury doctor` finds them: ``strict-*`` answer the probe's schema,
    the others answer in prose."""

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        self.requests.append(request)
        held = self.name.startswith("acme/strict")
        text = json.dumps({"reason": "ready", "ready": True}) if held else "Sure, ready!"
        return JudgeReply(text=text, model=self.name, usage=Usage(10, 5))


def test_jury_doctor_shows_the_structured_output_an_outside_profile_declares(
    acme: Callable[[ModelProfile], None], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    acme(ModelProfile())  # this test's tables; acme's models answer the probe as they do
    register_provider(
        "acme",
        AcmeProbeJudge,
        ModelProfile(structured_output=lambda m: "json_object" if "loose" in m else "json_schema"),
    )
    jury_file = tmp_path / "jury.toml"
    jury_file.write_text('jurors = ["acme/strict-1", "acme/schema-1", "acme/loose-1"]\n')
    assert main(["doctor", "--jury", str(jury_file)]) == 0
    rows = [
        line.split(None, 1)[1]
        for line in capsys.readouterr().out.splitlines()
        if line.strip().startswith("structured")
    ]
    assert rows == [
        "yes (json_schema: the provider holds the reply to the schema)",
        # Its profile says the provider holds the reply to the schema: this one was not.
        "no (not a JSON object: reply with the JSON object only): the server ignored the "
        "schema it was sent (json_schema)",
        "no (not a JSON object: reply with the JSON object only); json_object: the provider "
        "holds the reply to a JSON object",
    ]


def test_an_outside_local_server_is_held_to_reason_length_pinning_and_family_by_its_profile(
    acme: Callable[[ModelProfile], None],
) -> None:
    acme(ModelProfile())
    with pytest.raises(ValueError, match=r"reason_length is not held by acme/model-1"):
        Juror(model="acme/model-1", reason_length=100)
    with pytest.raises(ValueError, match=r"pinned: acme/model-1: only a local server's model"):
        Juror(model="acme/model-1", pinned="sha256:abc")
    # A server that holds the schema with a grammar and serves model files, as the built-in
    # compatible servers declare, whose user names the family of some of its models.
    acme(
        ModelProfile(
            grammar=True,
            model_files=True,
            family=lambda model: "meta" if model.startswith("house") else None,
        )
    )
    assert Juror(model="acme/model-1", reason_length=100).reason_length == 100
    assert Juror(model="acme/model-1", pinned="sha256:abc").pinned == "sha256:abc"
    assert family_of("acme/house-7b") == "meta"
    assert family_of("acme/qwen3-8b") == "qwen"  # named by none: the model's name tells
