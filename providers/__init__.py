"""Judge-model adapters. Each module is imported only when a juror names its provider.

`BUILTIN` is what `jury`'s registry knows of them: each provider's factory and what its
models can do, as a `jury.adapters.ModelProfile`, the type an outside provider registers with
(`jury.adapters.register_provider`). Nothing here imports an SDK: a profile names its
functions as "module:function", imported the first time one is asked for.
"""

from jury.adapters import ModelProfile

#: Which models of OpenAI-compatible servers take images: none unless the juror says so
#: (``images = true``): most local models read text only, and a server refuses an image part
#: it does not know (`jury.providers._images`).
_COMPATIBLE_IMAGES = "jury.providers._images:compatible_refusal"


def _compatible(service: str) -> ModelProfile:
    """An OpenAI-compatible server's profile: its structured output and family are its
    variables', read by `jury.providers.openai_compatible`'s functions of that `service`."""
    return ModelProfile(
        images=_COMPATIBLE_IMAGES,
        logprobs=True,
        structured_output=f"jury.providers.openai_compatible:{service}_output",
        family=f"jury.providers.openai_compatible:{service}_family",  # <SERVICE>_FAMILY
        grammar=True,
        model_files=True,
    )


#: The built-in providers, by the prefix before the first "/": the factory that makes a model
#: ("module:callable", imported on first use), and the provider's profile.
BUILTIN: dict[str, tuple[str, ModelProfile]] = {
    # The offline jurors read text; their reply is written from the rubric's own schema.
    "offline": (
        "jury.providers.offline:create",
        ModelProfile(family="offline", structured_output="json_schema"),
    ),
    "anthropic": (
        "jury.providers.anthropic:create",
        ModelProfile(
            family="anthropic",
            # Every Claude model of the Messages API takes image input (the models overview
            # lists vision for each); the fake refuses what the API refuses of the images.
            images=True,
            # The Messages API has no log-probabilities parameter.
            logprobs=False,
            structured_output="json_schema",  # output_config.format
            batch="jury.providers._anthropic_batch:anthropic_batches",
            lifecycle="jury.providers._lifecycle:anthropic",
            effort="jury.providers.anthropic:effort_refusal",
            output_room="jury.providers.anthropic:output_room",
        ),
    ),
    "openai": (
        "jury.providers.openai:create",
        ModelProfile(
            family="openai",
            images="jury.providers._images:openai_refusal",  # the text-only models
            logprobs="jury.providers.openai:logprobs_refusal",  # not the reasoning models
            structured_output="json_schema",
            batch="jury.providers._openai_batch:openai_batches",
            lifecycle="jury.providers._lifecycle:openai",
            effort="jury.providers.openai:effort_refusal",
            output_room="jury.providers.openai:output_room",
        ),
    ),
    "google": (
        "jury.providers.google:create",
        ModelProfile(
            family="google",
            # Every Gemini model of generateContent takes image input (image understanding
            # guide, https://ai.google.dev/gemini-api/docs/image-understanding).
            images=True,
            logprobs="jury.providers.google:logprobs_refusal",
            structured_output="json_schema",  # responseJsonSchema
            batch="jury.providers._google_batch:gemini_batches",  # not on Vertex AI
            lifecycle="jury.providers._lifecycle:google",
            effort="jury.providers.google:effort_refusal",
            # Gemini's lives in its own module: google.py is at the module size limit.
            output_room="jury.providers._rooms:google",
        ),
    ),
    # Servers that host many families: each model's name tells its family, unless the user
    # names one (``<SERVICE>_FAMILY``). They hold the schema with a grammar (llama.cpp's
    # json-schema-to-grammar, vLLM's guided decoding), and serve model files. They give
    # log-probabilities for any model they serve, in the Chat Completions shape: vLLM (its
    # OpenAI-compatible server takes ``logprobs`` and ``top_logprobs``) and Ollama since
    # v0.12.11 (https://github.com/BerriAI/litellm/issues/17165); a server that does not
    # refuses the call with its own error. Their structured output is the server's variable
    # (``<SERVICE>_RESPONSE_FORMAT``); they serve no batch API.
    "openai-api": ("jury.providers.openai_compatible:create", _compatible("service")),
    "ollama": ("jury.providers.openai_compatible:create_ollama", _compatible("ollama")),
    "vllm": ("jury.providers.openai_compatible:create_vllm", _compatible("vllm")),
    # A replay judges again what was recorded, images and all (they are in the recorded
    # requests' cache keys); its replies are what was recorded.
    "replay": ("jury.providers.replay:create", ModelProfile(family="replay", images=True)),
    # Not a juror: the moderation check's model (``[checks.moderation]``).
    "openai-moderation": (
        "jury.providers.openai_moderation:create",
        ModelProfile(family="openai"),
    ),
}

#: The built-in agents (the system under test), by the SPEC's kind (`jury.panel._agent_spec`):
#: "module:callable" of the factory, imported when a SPEC of that kind is first resolved.
AGENTS: dict[str, str] = {
    "callable": "jury.providers.agents._callable:create",
    "function": "jury.providers.agents._callable:from_function",
    "http": "jury.providers.agents._http:create",
    "model": "jury.providers.agents._model:create",
}

__all__ = ["AGENTS", "BUILTIN"]
