"""Which OpenAI-compatible server answers at a base URL, and how it takes a reply's schema.

Servers that speak Chat Completions differ where a jury needs them to agree: how a JSON
schema is sent (llama-cpp-python's server types ``response_format.type`` as ``text`` or
``json_object`` and takes the schema beside it; llama.cpp's ``llama-server``, vLLM, LM Studio
and Ollama's OpenAI route take ``json_schema``), how many calls they serve at once, and what
file is behind a model name. `discover` asks the server's own read-only endpoints, once per
run, before the first call:

- ``GET /v1/models``: every compatible server has it; ``owned_by`` is ``llamacpp`` on
  llama-server (tools/server/server.cpp, ``handle_models``, which adds ``meta``: the file's
  size and parameters) and ``vllm`` on vLLM (vllm/entrypoints/openai/serving_models.py);
- ``GET /props`` on llama-server: ``total_slots`` (its ``--parallel``), ``model_path``;
- ``GET /api/version`` on Ollama (docs/api.md, "Version"), then ``GET /api/tags``, whose
  models carry their ``digest`` (the sha256 of the model's manifest);
- ``GET /openapi.json`` on llama-cpp-python's FastAPI server, titled
  "🦙 llama.cpp Python API" (llama_cpp/server/app.py, ``create_app``);
- ``GET /api/v0/models`` on LM Studio (its REST API, lmstudio.ai/docs/app/api/endpoints/rest).

What is not recognised is taken to take ``json_schema``, the OpenAI way; a server that then
refuses it by name stops the run at its first call, naming ``<SERVICE>_RESPONSE_FORMAT``.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

import aiohttp

__all__ = ["SchemaDialect", "Server", "discover", "is_local"]

#: How a server takes the reply's JSON schema: OpenAI's ``json_schema`` response format, or
#: llama-cpp-python's ``{"type": "json_object", "schema": ...}``.
SchemaDialect = Literal["json_schema", "json_object+schema"]
#: Seconds each read-only request of the discovery may take (a busy one-slot server still
#: answers these at once: they do not wait for a generation).
_SECONDS = 10.0


@dataclass(frozen=True, slots=True)
class Server:
    """What a compatible server said of itself."""

    #: "llama-server", "llama-cpp-python", "Ollama", "vLLM", "LM Studio", or "" (not known).
    kind: str
    schema: SchemaDialect
    #: Calls it serves at once, when it says (llama-server's slots); None: not said.
    slots: int | None = None
    version: str | None = None
    #: What it says of the file behind the model: a digest, or a path and a size.
    model_file: str | None = None
    #: The request that told (``GET /props``...), for the note a run prints.
    found_by: str = ""

    def describe(self) -> str:
        """One line: the server, how it takes a schema, its slots and model file."""
        name = f"{self.kind} {self.version or ''}".strip() if self.kind else "a server"
        parts = [f"{name} (found by {self.found_by})" if self.found_by else name]
        parts.append(
            "takes the schema as json_object + schema"
            if self.schema == "json_object+schema"
            else "takes the schema as json_schema"
        )
        if self.slots is not None:
            parts.append(f"{self.slots} slot{'s' * (self.slots != 1)}")
        if self.model_file:
            parts.append(f"model file {self.model_file}")
        return "; ".join(parts)


def is_local(base_url: str) -> bool:
    """Whether `base_url` is on this machine or a private network (a server of the user's own,
    which serves few calls at once), rather than a hosted service."""
    host = urlsplit(base_url).hostname or ""
    if host in ("localhost", "host.docker.internal") or host.endswith(".local"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local


async def discover(
    base_url: str, model: str, headers: dict[str, str], *, kind: str = ""
) -> Server | None:
    """Ask the server at `base_url` (``.../v1``) what it is; None when it does not answer
    (the first call then says why). `kind` is the server when the juror's provider names it
    (``ollama/...``, ``vllm/...``)."""
    base = base_url.rstrip("/")
    root = base.removesuffix("/v1")
    timeout = aiohttp.ClientTimeout(total=_SECONDS)
    try:
        async with aiohttp.ClientSession(timeout=timeout, headers=headers) as session:
            return await _ask(session, base, root, model, kind)
    except TimeoutError:  # the discovery's own time limit (aiohttp's are TimeoutErrors)
        return None
    except (aiohttp.ClientError, OSError):
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            # The caller's deadline (a case's timeout) cancelled the discovery and aiohttp
            # raised its own error for it: the server did not fail to answer, the caller
            # stopped asking. Returned as None, the first call went out in the default
            # dialect and was refused as a server that cannot work.
            raise asyncio.CancelledError from None
        return None


async def _get(session: aiohttp.ClientSession, url: str) -> Any:
    """The JSON body of a GET that answered 200, else None."""
    try:
        async with session.get(url, allow_redirects=False) as response:
            if response.status != 200:
                return None
            return json.loads(await response.read())
    except (ValueError, UnicodeDecodeError):
        return None


async def _ask(
    session: aiohttp.ClientSession, base: str, root: str, model: str, kind: str
) -> Server | None:
    listed = await _get(session, f"{base}/models")
    entries = listed.get("data") if isinstance(listed, dict) else None
    entries = [e for e in entries or () if isinstance(e, dict)]
    owners = {str(e.get("owned_by")) for e in entries}
    entry = next((e for e in entries if e.get("id") == model), entries[0] if entries else {})
    if "llamacpp" in owners:
        props = await _get(session, f"{root}/props")
        props = props if isinstance(props, dict) else {}
        slots = props.get("total_slots")
        meta = entry.get("meta")
        size = meta.get("size") if isinstance(meta, dict) else None
        path = props.get("model_path")
        return Server(
            "llama-server",
            "json_schema",
            slots=slots if isinstance(slots, int) and slots > 0 else None,
            version=_text(props.get("build_info")),
            model_file=_file(path, size),
            found_by="GET /props" if props else "GET /v1/models",
        )
    if "vllm" in owners or kind == "vLLM":
        return Server(
            "vLLM",
            "json_schema",
            model_file=_text(entry.get("root")),
            found_by="GET /v1/models",
        )
    version = await _get(session, f"{root}/api/version")
    if isinstance(version, dict) and "version" in version:
        tags = await _get(session, f"{root}/api/tags")
        return Server(
            "Ollama",
            "json_schema",
            version=_text(version.get("version")),
            model_file=_ollama_digest(tags, model),
            found_by="GET /api/version",
        )
    described = await _get(session, f"{root}/openapi.json")
    info = described.get("info") if isinstance(described, dict) else None
    if isinstance(info, dict) and "llama.cpp Python API" in str(info.get("title")):
        # One model behind one lock: it generates for one call at a time
        # (llama_cpp/server/app.py, ``get_llama_proxy``).
        return Server(
            "llama-cpp-python",
            "json_object+schema",
            slots=1,
            version=_text(info.get("version")),
            found_by="GET /openapi.json",
        )
    if await _get(session, f"{root}/api/v0/models") is not None:
        return Server("LM Studio", "json_schema", found_by="GET /api/v0/models")
    if listed is None:
        return None
    return Server(kind, "json_schema", found_by="GET /v1/models")


def _text(value: Any) -> str | None:
    return str(value) if isinstance(value, str | int | float) and str(value) else None


def _file(path: Any, size: Any) -> str | None:
    if not isinstance(path, str) or not path:
        return None
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return f"{name} ({size} bytes)" if isinstance(size, int) else name


def _ollama_digest(tags: Any, model: str) -> str | None:
    models = tags.get("models") if isinstance(tags, dict) else None
    for found in models or ():
        if not isinstance(found, dict):
            continue
        names = (found.get("name"), found.get("model"))
        if model in names or f"{model}:latest" in names:
            digest = found.get("digest")
            if isinstance(digest, str) and digest:
                return digest if digest.startswith("sha256:") else f"sha256:{digest}"
    return None
