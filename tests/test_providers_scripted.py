"""The scripted provider (JSON scripts) and the provider registry ``get_provider``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from providers_helpers import clean_env_fixture, simple_request  # noqa: F401
from subagents.errors import (
    MissingCredentialsError,
    ProviderConnectionError,
    ProviderResponseError,
    UsageError,
)
from subagents.providers import get_provider
from subagents.providers.base import Model, TextBlock, ToolUseBlock, Usage
from subagents.providers.scripted import ScriptModel, parse_script, scripted_provider

SCRIPT = [
    {"tool": "Read", "input": {"file_path": "README.md"}, "say": "Reading it.", "id": "t1"},
    {"tool_calls": [{"name": "Grep", "input": {"pattern": "TODO"}},
                    {"name": "Glob", "input": {"pattern": "*.py"}, "id": "g"}]},
    {"content": [], "stop_reason": "end_turn"},
    {"content": [{"type": "text", "text": "half"}], "stop_reason": "max_tokens",
     "usage": {"input_tokens": 3, "output_tokens": 4}},
    {"text": "explicit text"},
    "The README says hello.",
]


async def test_script_file_drives_replies_in_order(tmp_path: Path) -> None:
    path = tmp_path / "replies.json"
    path.write_text(json.dumps(SCRIPT), encoding="utf-8")
    model = get_provider("scripted", script=str(path))
    assert isinstance(model, Model) and model.name == "scripted"
    replies = [await model.complete(simple_request()) for _ in SCRIPT]

    assert replies[0].content == (
        TextBlock("Reading it."), ToolUseBlock("t1", "Read", {"file_path": "README.md"}))
    assert replies[0].stop_reason == "tool_use"
    assert replies[1].tool_uses == (
        ToolUseBlock("toolu_script_2_1", "Grep", {"pattern": "TODO"}),
        ToolUseBlock("g", "Glob", {"pattern": "*.py"}),
    )
    assert replies[2].content == () and replies[2].stop_reason == "end_turn"
    assert replies[3].stop_reason == "max_tokens" and replies[3].usage == Usage(3, 4)
    assert replies[4].text == "explicit text"
    assert replies[5].text == "The README says hello." and replies[5].stop_reason == "end_turn"
    assert replies[5].model == "claude-test"  # the model that was asked for
    assert len(model.requests) == len(SCRIPT)  # type: ignore[attr-defined]
    model.assert_complete()  # type: ignore[attr-defined]


async def test_running_out_is_a_clean_provider_error() -> None:
    model = scripted_provider(script=["only one"])
    await model.complete(simple_request())
    with pytest.raises(ProviderResponseError, match="ran out of replies at request 2"):
        await model.complete(simple_request())


async def test_scripted_errors() -> None:
    model = scripted_provider(script={"replies": [
        {"error": "connection", "message": "scripted outage"}, {"error": "response"},
        {"error": "credentials"}]})
    with pytest.raises(ProviderConnectionError, match="scripted outage"):
        await model.complete(simple_request())
    with pytest.raises(ProviderResponseError):
        await model.complete(simple_request())
    with pytest.raises(MissingCredentialsError):
        await model.complete(simple_request())


async def test_script_and_python_replies_combine() -> None:
    from subagents.testing import text

    model = scripted_provider(script=["from json"], replies=[text("from python")])
    assert isinstance(model, ScriptModel)
    assert (await model.complete(simple_request())).text == "from json"
    assert (await model.complete(simple_request())).text == "from python"


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ({"not": "a list"}, "a script is a JSON list"),
        ([42], "reply 1): expected a string or an object"),
        (["ok", {"tool": "Read", "input": "a.txt"}], "reply 2): a tool call's `input`"),
        ([{"tool_calls": []}], "non-empty list"),
        ([{"tool_calls": [{"input": {}}]}], "needs a `name`"),
        ([{"error": "meteor"}], "`error` must be one of"),
        ([{"content": "text"}], "`content` must be a list"),
        ([{"content": [{"type": "image"}]}], "content block 1"),
        ([{"content": [], "stop_reason": "done"}], "`stop_reason` must be one of"),
        ([{"text": 3}], "`text` must be a string"),
        ([{"usage": {"input_tokens": "x"}, "text": "a"}], "whole numbers"),
        ([{"usage": 5, "text": "a"}], "`usage` must be an object"),
        ([{"say": "nothing else"}], "an entry needs one of"),
    ],
)
def test_malformed_scripts_name_the_reply(script: object, expected: str) -> None:
    with pytest.raises(UsageError) as info:
        parse_script(script, source="replies.json")
    assert expected in str(info.value)
    assert "replies.json" in str(info.value)
    assert "docs/providers.md" in str(info.value)


def test_script_file_problems(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot read the script"):
        scripted_provider(script=tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text('[{"text": "a"},\n  oops]', encoding="utf-8")
    with pytest.raises(UsageError, match=r"not valid JSON: .* line 2"):
        scripted_provider(script=broken)
    with pytest.raises(UsageError, match="needs a script"):
        scripted_provider()


def test_get_provider_errors() -> None:
    with pytest.raises(UsageError, match="unknown provider 'gemini'") as info:
        get_provider("gemini")
    assert "anthropic, openai, scripted" in str(info.value)
    with pytest.raises(UsageError, match=r"does not take option.*scrpit"):
        get_provider("scripted", scrpit="x.json")
    with pytest.raises(UsageError, match=r"does not take option.*script"):
        get_provider("anthropic", api_key="k", script="x.json")


def test_get_provider_drops_none_options_and_ignores_case(clean_env: None) -> None:
    model = get_provider(" Scripted ", script=["hi"], delay=None)
    assert model.name == "scripted"
    openai_model = get_provider("openai", api_key="k", base_url=None, stream=None)
    assert openai_model.name == "openai"


@pytest.mark.slow
def test_importing_providers_does_not_import_the_sdks() -> None:
    code = (
        "import sys, asyncio\n"
        "import subagents.providers as p\n"
        "from subagents.providers.base import Message, ModelRequest\n"
        "m = p.get_provider('scripted', script=['hi'])\n"
        "r = asyncio.run(m.complete(ModelRequest(model='x', system='', "
        "messages=[Message.user('q')])))\n"
        "assert r.text == 'hi'\n"
        "print(sorted(n for n in ('anthropic', 'openai', 'httpx', 'httpx2') "
        "if n in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize(("provider", "env"), [("anthropic", "ANTHROPIC_MODEL"),
                                              ("openai", "OPENAI_MODEL")])
def test_default_model_option_and_env(
    clean_env: None, monkeypatch: pytest.MonkeyPatch, provider: str, env: str
) -> None:
    assert get_provider(provider, api_key="k").default_model is None  # type: ignore[attr-defined]
    monkeypatch.setenv(env, "model-from-env")
    assert get_provider(provider, api_key="k").default_model == "model-from-env"  # type: ignore[attr-defined]
    chosen = get_provider(provider, api_key="k", model="model-from-option")
    assert chosen.default_model == "model-from-option"  # type: ignore[attr-defined]


@pytest.mark.slow
def test_standalone_server_serves_a_script_file(tmp_path: Path, clean_env: None) -> None:
    import asyncio
    import os

    from subagents.providers import RetryPolicy
    from subagents.testing.server import Fault, script_replies

    script = tmp_path / "replies.json"
    script.write_text(json.dumps([
        {"fault": 503}, {"tool": "LS", "input": {}, "id": "c1"}, "all done",
    ]), encoding="utf-8")
    record = tmp_path / "requests.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "subagents.testing.server", "--script", str(script),
         "--record", str(record)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert proc.stdout is not None
        anthropic_line = proc.stdout.readline().strip()
        openai_line = proc.stdout.readline().strip()
        assert anthropic_line.startswith("ANTHROPIC_BASE_URL=http://127.0.0.1:")
        assert openai_line == anthropic_line.replace("ANTHROPIC", "OPENAI") + "/v1"
        base = anthropic_line.split("=", 1)[1]
        model = get_provider("anthropic", api_key="k", base_url=base,
                             retry=RetryPolicy.instant())
        first = asyncio.run(model.complete(simple_request()))
        assert first.tool_uses[0].id == "c1"
        assert asyncio.run(model.complete(simple_request())).text == "all done"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    lines = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]
    assert [line["path"] for line in lines] == ["/v1/messages"] * 3
    assert lines[0]["json"]["system"] == "You are terse."
    # script errors are clean
    with pytest.raises(UsageError, match="unknown fault"):
        script_replies([{"fault": "meteor"}])
    faults = script_replies([{"error": "connection"}, {"fault": "rate_limit", "retry_after": 3}])
    assert [f.kind for f in faults] == ["drop", "status"]  # type: ignore[union-attr]
    (hang,) = script_replies([{"fault": "hang", "seconds": 2.5}])
    assert isinstance(hang, Fault) and hang.kind == "hang" and hang.message == "2.5"
    calls = script_replies([{"tool": "LS"}, {"fault": 500}, {"tool": "LS"}])
    ids = [r.content[0].id for r in calls if not isinstance(r, Fault)]  # type: ignore[union-attr]
    assert ids == ["toolu_script_1_1", "toolu_script_3_1"]  # distinct, by position
