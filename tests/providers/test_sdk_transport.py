"""What every SDK transport shares (`jury.providers._wire.SdkTransport`): the client is built on
first use, once, and closed once; and the transport a model uses is chosen in one place."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from jury import ConfigError
from jury.adapters import JudgeReply, JudgeRequest
from jury.providers._wire import DirectTransport, SdkTransport, Wire, WireModel


class Client:
    def __init__(self, base_url: str | None, key: str | None) -> None:
        self.base_url, self.key = base_url, key
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self.closed = 0

    async def close(self) -> None:
        self.closed += 1


#: Every client the recording transport built, in this test.
BUILT: list[Client] = []


@pytest.fixture(autouse=True)
def _no_clients_yet() -> None:
    BUILT.clear()


# mypy follows no import hook: it types jury.providers as Any (pyproject.toml), and refuses a
# subclass of Any.
class RecordingSdk(SdkTransport):  # type: ignore[misc]
    def connect(self) -> Any:
        client = Client(self.base_url, self._key)
        BUILT.append(client)
        return client

    async def call(self, client: Any, model: str, body: dict[str, Any]) -> Mapping[str, Any]:
        client.sent.append((model, body))
        return {"text": "ok"}


class EchoWire(Wire):  # type: ignore[misc]
    provider = "echo"
    key_variable = "ECHO_API_KEY"

    def url(self, model: str) -> str:
        return "http://127.0.0.1:9/echo"

    def headers(self) -> dict[str, str]:
        return {}

    def body(self, model: str, request: JudgeRequest) -> dict[str, Any]:
        return {"model": model}

    def parse(self, model: str, data: Mapping[str, Any]) -> JudgeReply:
        return JudgeReply(text=str(data["text"]), model=model)


class EchoJudge(WireModel):  # type: ignore[misc]
    sdk = RecordingSdk


def echo(transport: Any = None, judge: type[WireModel] = EchoJudge) -> WireModel:
    return judge(
        name="echo/m",
        model="m",
        family="echo",
        wire=EchoWire(),
        key="k",
        base_url="http://echo",
        transport=transport,
    )


async def test_the_client_is_built_on_first_use_once_and_closed_once() -> None:
    model = echo("sdk")
    assert BUILT == []  # nothing is imported or built before a call
    request = JudgeRequest(system="s", messages=(), schema={})
    for _ in range(3):
        assert (await model.complete(request)).text == "ok"
    (client,) = BUILT
    assert (client.base_url, client.key) == ("http://echo", "k")
    assert client.sent == [("m", {"model": "m"})] * 3
    await model.aclose()
    await model.aclose()
    assert client.closed == 1


async def test_closing_an_unused_transport_builds_nothing() -> None:
    await echo("sdk").aclose()
    assert BUILT == []


def test_the_transport_is_chosen_by_name_by_environment_or_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert isinstance(echo().transport, DirectTransport)
    assert isinstance(echo("sdk").transport, RecordingSdk)
    monkeypatch.setenv("JURY_TRANSPORT", "sdk")
    assert isinstance(echo().transport, RecordingSdk)
    assert isinstance(echo("direct").transport, DirectTransport)
    given = RecordingSdk(None, None)
    assert echo(given).transport is given


def test_a_wire_without_an_sdk_transport_says_so() -> None:
    class DirectOnly(WireModel):  # type: ignore[misc]
        pass

    assert isinstance(echo(None, DirectOnly).transport, DirectTransport)
    with pytest.raises(ConfigError, match="echo: no SDK transport"):
        echo("sdk", DirectOnly)
