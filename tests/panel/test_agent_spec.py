"""The agent SPEC: which form a string is (URL, callable, provider/model), the settings of the
jury file's agent keys, and a clear `ConfigError` for anything that cannot work."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from jury import ConfigError
from jury.panel._agent_spec import AgentSettings, agent_kind, resolve_agent


@pytest.mark.parametrize(
    ("spec", "kind"),
    [
        ("http://localhost:8080/ask", "http"),
        ("https://agent.example/v1/ask?x=1", "http"),
        ("examples/shopnest/agent.py:answer", "callable"),
        ("agent.py:answer", "callable"),
        ("mypackage.agents:answer", "callable"),
        ("agent:answer", "callable"),
        ("openai/gpt-4.1-mini", "model"),
        # Ollama's model IDs hold a ":", and the part before it has a "/": a model.
        ("ollama/llama3:8b", "model"),
        ("openai-api/org/model:tag", "model"),
    ],
)
def test_each_spec_form_is_told_apart(spec: str, kind: str) -> None:
    assert agent_kind(spec) == kind


@pytest.mark.parametrize("spec", ["answer", "gpt-4:latest", "/model", "agent.py:"])
def test_a_spec_of_no_form_is_a_config_error_naming_the_forms(spec: str) -> None:
    with pytest.raises(ConfigError, match=f"agent {spec!r}"):
        agent_kind(spec)


def test_the_settings_have_the_documented_defaults_and_refuse_unknown_keys() -> None:
    settings = AgentSettings()
    assert (settings.agent_concurrency, settings.agent_timeout) == (8, 60.0)
    assert settings.agent_headers == {}
    assert settings.agent_fields == {}
    with pytest.raises(ValidationError):
        AgentSettings.model_validate({"agent_concurency": 4})
    with pytest.raises(ValidationError):
        AgentSettings(agent_concurrency=0)


def test_a_missing_file_is_a_config_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        resolve_agent("missing.py:answer", AgentSettings(), base_dir=tmp_path)


def test_a_missing_function_is_a_config_error_naming_it(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("def reply(case):\n    return 'x'\n")
    with pytest.raises(ConfigError, match="has no 'answer'"):
        resolve_agent("bot.py:answer", AgentSettings(), base_dir=tmp_path)


def test_a_missing_module_is_a_config_error_naming_it() -> None:
    with pytest.raises(ConfigError, match=r"no module named 'no_such_pkg\.agent'"):
        resolve_agent("no_such_pkg.agent:answer", AgentSettings())


def test_an_import_error_inside_the_agents_module_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("import not_installed_anywhere\n")
    with pytest.raises(ConfigError, match=r"cannot import .*not_installed_anywhere"):
        resolve_agent("broken.py:answer", AgentSettings(), base_dir=tmp_path)
    (tmp_path / "raising.py").write_text("raise RuntimeError('bad config')\n")
    with pytest.raises(ConfigError, match="RuntimeError: bad config"):
        resolve_agent("raising.py:answer", AgentSettings(), base_dir=tmp_path)


def test_a_name_that_is_not_a_function_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("answer = 3\n")
    with pytest.raises(ConfigError, match="not a function"):
        resolve_agent("bot.py:answer", AgentSettings(), base_dir=tmp_path)


def test_a_file_is_found_from_the_base_dir(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("def answer(case):\n    return 'x'\n")
    agent = resolve_agent("bot.py:answer", AgentSettings(agent_family="meta"), base_dir=tmp_path)
    assert agent.name == "bot.py:answer"
    assert agent.family == "meta"


def test_a_header_takes_its_token_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHOP_TOKEN", "tok-123")
    settings = AgentSettings(agent_headers={"Authorization": "Bearer ${SHOP_TOKEN}"})
    agent = resolve_agent("http://127.0.0.1:9/ask", settings)
    assert agent.name == "http://127.0.0.1:9/ask"
    assert "tok-123" not in agent.name  # records name the agent by its SPEC only


def test_a_header_variable_that_is_not_set_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SHOP_TOKEN", raising=False)
    settings = AgentSettings(agent_headers={"Authorization": "Bearer ${SHOP_TOKEN}"})
    with pytest.raises(ConfigError, match=r"agent_headers\.Authorization: .*SHOP_TOKEN is not set"):
        resolve_agent("https://agent.example/ask", settings)


def test_a_model_agent_resolves_through_the_provider_registry() -> None:
    agent = resolve_agent("offline/reference", AgentSettings())
    assert agent.name == "offline/reference"
    assert agent.family == "offline"
    with pytest.raises(ConfigError, match="unknown provider 'nosuch'"):
        resolve_agent("nosuch/model", AgentSettings())


def test_a_prompt_template_is_read_from_the_base_dir_and_must_exist(tmp_path: Path) -> None:
    (tmp_path / "prompt.txt").write_text("Answer: {{question}}")
    agent = resolve_agent(
        "offline/reference", AgentSettings(agent_prompt="prompt.txt"), base_dir=tmp_path
    )
    assert getattr(agent, "template", None) == "Answer: {{question}}"
    with pytest.raises(ConfigError, match="agent_prompt: cannot read"):
        resolve_agent(
            "offline/reference", AgentSettings(agent_prompt="nope.txt"), base_dir=tmp_path
        )
    with pytest.raises(ConfigError, match="agent_prompt: a prompt template is for"):
        resolve_agent("http://127.0.0.1:9/ask", AgentSettings(agent_prompt="prompt.txt"))
