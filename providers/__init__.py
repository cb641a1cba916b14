"""Judge-model adapters. Each module is imported only when a juror names its provider.

`BUILTIN` is what `jury`'s registry knows of them: nothing here imports an SDK.
"""

#: The built-in providers, by the prefix before the first "/": the factory that makes a model
#: ("module:callable", imported on first use), and the family of every model the provider
#: serves (None where the model's name tells it, as on servers that host many families).
BUILTIN: dict[str, tuple[str, str | None]] = {
    "offline": ("jury.providers.offline:create", "offline"),
    "anthropic": ("jury.providers.anthropic:create", "anthropic"),
    "openai": ("jury.providers.openai:create", "openai"),
    "google": ("jury.providers.google:create", "google"),
    "openai-api": ("jury.providers.openai_compatible:create", None),
    "ollama": ("jury.providers.openai_compatible:create_ollama", None),
    "vllm": ("jury.providers.openai_compatible:create_vllm", None),
    "replay": ("jury.providers.replay:create", "replay"),
    # Not a juror: the moderation check's model (``[checks.moderation]``).
    "openai-moderation": ("jury.providers.openai_moderation:create", "openai"),
}

#: What each built-in provider knows of its models' lifecycles: "module:function" of (model ID,
#: day) -> `jury.adapters.ModelStatus` or None (see `jury.providers._lifecycle`).
LIFECYCLE: dict[str, str] = {
    "anthropic": "jury.providers._lifecycle:anthropic",
    "openai": "jury.providers._lifecycle:openai",
    "google": "jury.providers._lifecycle:google",
}

#: Which models of each built-in provider give token log-probabilities (a juror's
#: ``logprobs = true``): "module:function" of the model ID -> why not, or None when they do.
#: A provider not listed gives none (Anthropic's Messages API has no such parameter).
LOGPROBS: dict[str, str] = {
    "openai": "jury.providers.openai:logprobs_refusal",
    "google": "jury.providers.google:logprobs_refusal",
    "openai-api": "jury.providers.openai_compatible:logprobs_refusal",
    "ollama": "jury.providers.openai_compatible:logprobs_refusal",
    "vllm": "jury.providers.openai_compatible:logprobs_refusal",
}

#: The family a provider's user names for its models (a local server's ``<SERVICE>_FAMILY``):
#: "module:function" of the juror's ``provider/model`` -> the family, or None (then the
#: model's name tells).
FAMILY: dict[str, str] = {
    "openai-api": "jury.providers.openai_compatible:family",
    "ollama": "jury.providers.openai_compatible:family",
    "vllm": "jury.providers.openai_compatible:family",
}

#: Which efforts each built-in provider's models take (a juror's ``effort``): "module:function"
#: of the model ID and the effort -> why not, or None when it takes it. A provider not listed
#: is not checked (its adapter decides).
EFFORTS: dict[str, str] = {
    "anthropic": "jury.providers.anthropic:effort_refusal",
    "openai": "jury.providers.openai:effort_refusal",
    "google": "jury.providers.google:effort_refusal",
}

#: Which models of each built-in provider take images (a case's ``images``): "module:function"
#: of the model ID -> why not, or None when they do. A provider not listed takes none (the
#: offline jurors read text); a juror's ``images = true`` or ``false`` overrides it.
IMAGES: dict[str, str] = {
    "anthropic": "jury.providers._images:anthropic_refusal",
    "openai": "jury.providers._images:openai_refusal",
    "google": "jury.providers._images:google_refusal",
    "openai-api": "jury.providers._images:compatible_refusal",
    "ollama": "jury.providers._images:compatible_refusal",
    "vllm": "jury.providers._images:compatible_refusal",
    # A replay judges again what was recorded, images and all.
    "replay": "jury.providers._images:replay_refusal",
}

#: The output tokens each built-in adapter adds to a juror's ``max_tokens`` for its model's
#: thinking: "module:function" of the model ID and the juror's effort (or None) -> tokens. Read
#: by `jury estimate`, so that the most it counts is what the adapter asks for. A provider not
#: listed adds none (compatible servers take the classic settings).
ROOMS: dict[str, str] = {
    "anthropic": "jury.providers.anthropic:output_room",
    "openai": "jury.providers.openai:output_room",
    "google": "jury.providers._rooms:google",
}

#: The built-in agents (the system under test), by the SPEC's kind (`jury.panel._agent_spec`):
#: "module:callable" of the factory, imported when a SPEC of that kind is first resolved.
AGENTS: dict[str, str] = {
    "callable": "jury.providers.agents._callable:create",
    "function": "jury.providers.agents._callable:from_function",
    "http": "jury.providers.agents._http:create",
    "model": "jury.providers.agents._model:create",
}

__all__ = ["AGENTS", "BUILTIN", "EFFORTS", "FAMILY", "IMAGES", "LIFECYCLE", "LOGPROBS", "ROOMS"]
