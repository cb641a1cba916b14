"""Batch runs of cases with images: each request inside a batch carries the case's images in
its provider's shape (OpenAI's JSONL file lines, Anthropic's Message Batches, Gemini's batch
requests), the fake's batch endpoints refuse what the online calls refuse of them, and the
verdicts are those of the same run online."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from batch_helpers import ANTHROPIC, GOOGLE, JURORS, OPENAI, batch_panel, script_jurors
from images_helpers import BMP, JPEG, PNG, URL

from jury import Case, CaseVerdict, Juror, Jury, Panel, Verdict, VoteStatus
from jury.adapters import Image
from jury.batch._run import BatchRun
from jury.batch._store import BatchStore
from jury.testing import FakeClock, FakeProviderServer, Fault
from jury.testing._batches import BATCHES


def image_cases() -> list[Case]:
    """Cases whose question shows an image: inline PNG or JPEG, a URL, and a BMP (which none
    of the three APIs takes); every fifth answer is marked WRONG (the judges fail it)."""
    sources = [
        Image(media_type="image/png", data=PNG),
        Image(url=URL),
        Image(media_type="image/jpeg", data=JPEG),
        Image(media_type="image/bmp", data=BMP),
    ]
    return [
        Case(
            id=f"img{n:03d}",
            question=f"What is shown in [image 1]? [case img{n:03d}]",
            answer="A cat." if n % 5 else "WRONG: a dog",
            golden_answer="A cat.",
            images=(sources[n % len(sources)],),
        )
        for n in range(12)
    ]


def one_juror(spec: str) -> Panel:
    """A batch panel of the one juror `spec`."""
    three = batch_panel()
    return three.model_copy(update={"jurors": (Juror(model=spec),), "quorum": 1})


async def online(panel: Panel, cases: list[Case]) -> dict[str, CaseVerdict]:
    async with Jury(panel, checks=None, clock=FakeClock()) as jury:
        return {v.case_id: v async for v in jury.evaluate(cases)}


async def batched(panel: Panel, cases: list[Case], run_dir: Path) -> dict[str, CaseVerdict]:
    verdicts: dict[str, CaseVerdict] = {}
    async with BatchRun(panel, BatchStore(run_dir), checks=None, clock=FakeClock()) as run:
        result = await run.run(
            lambda: [c for c in cases if c.id not in verdicts],
            lambda verdict: verdicts.__setitem__(verdict.case_id, verdict),
        )
    assert result.finished
    return verdicts


def decided(verdict: CaseVerdict) -> tuple[Any, ...]:
    """What a verdict decided, without timings, accounting and the error's wording."""
    votes = sorted((v.juror, v.status, tuple(sorted(v.scores.items()))) for v in verdict.votes)
    metrics = {name: result.value for name, result in verdict.metrics.items()}
    return verdict.verdict, metrics, votes


def _image_parts(body: dict[str, Any], spec: str) -> list[Any]:
    """The image parts of a request's user turn, in its protocol's shape."""
    if spec == GOOGLE:
        parts = body["contents"][0]["parts"]
        return [p for p in parts if "inlineData" in p or "fileData" in p]
    content = next(m for m in body["messages"] if m["role"] == "user")["content"]
    return [p for p in content if p.get("type") in ("image", "image_url")]


def _submitted(server: FakeProviderServer, spec: str) -> list[dict[str, Any]]:
    """Each request body as its batch carried it: the ``body`` of each line of the JSONL
    files uploaded to OpenAI's Files API, the ``params`` of each of a Message Batch's
    ``requests``, the ``request`` of each of a Gemini batch's inlined requests."""
    if spec == OPENAI:
        uploaded = [c for (purpose, _, c) in server.batches.files.values() if purpose == "batch"]
        lines = [json.loads(line) for c in uploaded for line in c.splitlines() if line]
        assert all(line["url"] == "/v1/chat/completions" for line in lines)
        return [line["body"] for line in lines]
    bodies: list[dict[str, Any]] = []
    for request in server.requests:
        if request.method != "POST" or not isinstance(request.body, dict):
            continue
        if spec == ANTHROPIC and request.path == "/v1/messages/batches":
            bodies += [r["params"] for r in request.body["requests"]]
        if spec == GOOGLE and request.path.endswith(":batchGenerateContent"):
            inlined = request.body["batch"]["inputConfig"]["requests"]["requests"]
            bodies += [r["request"] for r in inlined]
    return bodies


async def test_a_batch_of_image_cases_gives_the_verdicts_of_the_same_run_online(
    server: FakeProviderServer, tmp_path: Path
) -> None:
    script_jurors(server)
    cases = image_cases()
    panel = batch_panel()
    verdicts = await batched(panel, cases, tmp_path / "run")
    assert {k: decided(v) for k, v in verdicts.items()} == {
        k: decided(v) for k, v in (await online(panel, cases)).items()
    }
    assert {v.verdict for v in verdicts.values()} >= {Verdict.PASS, Verdict.FAIL}


async def test_each_request_in_a_batch_carries_its_cases_image_in_its_providers_shape(
    server: FakeProviderServer, tmp_path: Path
) -> None:
    script_jurors(server)
    cases = [c for c in image_cases() if c.images[0].media_type != "image/bmp"]
    verdicts = await batched(batch_panel(), cases, tmp_path / "run")
    for spec in JURORS:
        submitted = _submitted(server, spec)
        assert len(submitted) == len(cases), spec
        for body in submitted:
            case = next(c for c in cases if c.id in json.dumps(body))
            image = case.images[0]
            (part,) = _image_parts(body, spec)
            if spec == OPENAI:
                assert part == {"type": "image_url", "image_url": {"url": image.data_uri}}
            elif spec == ANTHROPIC:
                assert part["source"] == (
                    {"type": "url", "url": URL}
                    if image.url
                    else {"type": "base64", "media_type": image.media_type, "data": image.data}
                )
            elif image.url is not None:
                assert part == {"fileData": {"mime_type": "image/jpeg", "file_uri": URL}}
            else:
                urlsafe = str(image.data).replace("+", "-").replace("/", "_")
                assert part == {"inlineData": {"mime_type": image.media_type, "data": urlsafe}}
    # Every vote was valid: the fake's batch endpoints took each image as online.
    assert all(v.status is VoteStatus.VALID for c in verdicts.values() for v in c.votes)


#: What each API answers an image of a type it does not take (`jury.testing._images`).
REFUSED = {
    OPENAI: "You uploaded an unsupported image",
    ANTHROPIC: "image.source.base64.media_type: Input should be 'image/jpeg'",
    GOOGLE: "Unsupported MIME type: image/bmp",
}


async def test_an_image_the_api_refuses_is_refused_inside_a_batch_as_online(
    server: FakeProviderServer, tmp_path: Path
) -> None:
    script_jurors(server)
    cases = [c for c in image_cases() if c.images[0].media_type == "image/bmp"]
    panel = batch_panel()
    verdicts = await batched(panel, cases, tmp_path / "run")
    alone = await online(panel, cases)
    for case_id, verdict in verdicts.items():
        # A judge's refusal never fails a case: each vote is unavailable, saying why, in the
        # words the same request gets online.
        assert verdict.verdict is Verdict.INCONCLUSIVE
        for vote in verdict.votes:
            assert vote.status is VoteStatus.UNAVAILABLE
            (same,) = [v for v in alone[case_id].votes if v.juror == vote.juror]
            assert REFUSED[vote.juror] in (vote.error or ""), vote.error
            assert REFUSED[vote.juror] in (same.error or ""), same.error


async def test_a_request_too_large_for_any_batch_is_asked_online_as_the_run_online_would(
    server: FakeProviderServer, tmp_path: Path
) -> None:
    script_jurors(server)
    # 15 MB of image, 20 MB as base64: over the 20 MB a Gemini inline batch holds, well
    # under the 100 MB of one online call (`jury.testing._google_batch`, `_images`).
    big = base64.b64encode(base64.b64decode(PNG) + bytes(15_000_000)).decode()
    cases = [
        image_cases()[0],
        Case(
            id="big",
            question="What is shown in [image 1]?",
            answer="A cat.",
            golden_answer="A cat.",
            images=(Image(media_type="image/png", data=big),),
        ),
    ]
    panel = one_juror(GOOGLE)
    verdicts = await batched(panel, cases, tmp_path / "run")
    (inside,) = _submitted(server, GOOGLE)  # the small case went in the batch
    assert cases[0].id in json.dumps(inside)
    asked = [r for r in server.requests if r.path.endswith(":generateContent")]
    assert len(asked) == 1  # the big one, online
    (vote,) = verdicts["big"].votes
    assert vote.status is VoteStatus.VALID
    assert vote.calls.batched == 0
    assert {k: decided(v) for k, v in verdicts.items()} == {
        k: decided(v) for k, v in (await online(panel, cases)).items()
    }


async def test_a_run_whose_only_batch_is_refused_ends_with_its_votes_unavailable(
    server: FakeProviderServer, tmp_path: Path
) -> None:
    script_jurors(server)
    server.inject(Fault.http(400, message="input refused"), model=BATCHES, times=1)
    panel = one_juror(OPENAI)
    verdicts = await batched(panel, image_cases()[:2], tmp_path / "run")
    assert len(verdicts) == 2
    for verdict in verdicts.values():
        assert verdict.verdict is Verdict.INCONCLUSIVE
        (vote,) = verdict.votes
        assert vote.status is VoteStatus.UNAVAILABLE
        assert "the batch was refused" in (vote.error or "")
