"""The store's write-time checks agree with the reader and with `subagents validate`.

One table of hostile entries goes three ways: ``AgentStore.validate_entry``, ``validate_paths``
on an ``agents.json`` holding just that entry (the reader's JSON dialect + the rules), and the
``define_agent`` MCP tool through a real client.  Each case states the verdict it expects from
the store and from ``validate``; where the two differ the case says why (the store is stricter
on purpose; docs/mcp.md "Store versus validate" lists the same differences).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from store_helpers import call, mcp_session
from subagents.diagnostics import Severity
from subagents.lint.validate import validate_paths
from subagents.store.core import AgentStore

D = "Use it to check facts in a draft."
P = "You check facts and cite sources."


@dataclass(frozen=True)
class Case:
    id: str
    name: Any
    entry: dict[str, Any]
    store_ok: bool
    validate_ok: bool
    why_different: str = ""  # required when the two verdicts differ
    rules: tuple[str, ...] = field(default=())  # store codes expected on refusal


def _e(**extra: Any) -> dict[str, Any]:
    return {"description": D, "prompt": P, **extra}


CASES = [
    Case("plain", "fact-checker", _e(), True, True),
    Case("underscore-digits", "fact_checker_2", _e(), True, True),
    Case("upper-case", "Fact-Checker", _e(), False, False, rules=("ST001",)),
    Case("slash", "a/b", _e(), False, False, rules=("ST001",)),
    Case("dot-dot", "..", _e(), False, False, rules=("ST001",)),
    Case("space", "fact checker", _e(), False, False, rules=("ST001",)),
    Case("non-ascii", "café", _e(), False, False, rules=("ST001",)),
    Case("empty-name", "", _e(), False, False, rules=("ST001",)),
    Case(
        "name-1000",
        "a" * 1000,
        _e(),
        False,
        True,
        "store caps names at 64 characters; the reader has no cap",
        ("ST002",),
    ),
    Case("no-description", "x", {"prompt": P}, False, False, rules=("ST010",)),
    Case("blank-description", "x", _e(description="  "), False, False, rules=("ST003",)),
    Case(
        "empty-prompt",
        "x",
        _e(prompt=""),
        False,
        True,
        "Claude Code runs an agent with an empty prompt (a warning); the store refuses one",
        rules=("ST004",),
    ),
    Case("description-int", "x", _e(description=1), False, False, rules=("ST010",)),
    Case(
        "tools-string",
        "x",
        _e(tools="Read, Grep"),
        False,
        False,  # given to Claude Code 2.1.332 with --agents, it refuses to start
        "",
        ("ST006",),
    ),
    Case("tools-unknown", "x", _e(tools=["Reed"]), False, False, rules=("ST007",)),
    Case("tools-int", "x", _e(tools=[1]), False, False, rules=("ST006",)),
    Case("tools-empty", "x", _e(tools=[]), True, True),
    Case("tools-duplicate", "x", _e(tools=["Read", "Read"]), True, True),
    Case("tools-mcp", "x", _e(tools=["mcp__github__create_issue"]), True, True),
    Case("tools-bash-pattern", "x", _e(tools=["Bash(git diff:*)"]), True, True),
    Case("model-alias", "x", _e(model="haiku"), True, True),
    Case("model-fable", "x", _e(model="fable"), True, True),
    Case("model-inherit", "x", _e(model="inherit"), True, True),
    Case("model-full-id", "x", _e(model="claude-sonnet-4-5-20250929"), True, True),
    Case("model-bedrock", "x", _e(model="us.anthropic.claude-sonnet-4-5-20250929-v1:0"), True, True),
    Case("model-1m", "x", _e(model="sonnet[1m]"), True, True),
    Case("model-typo", "x", _e(model="sonet"), False, False, rules=("ST005",)),
    Case("model-other-vendor", "x", _e(model="gpt5"), False, False, rules=("ST005",)),
    Case("model-word", "x", _e(model="banana"), False, False, rules=("ST005",)),
    # Claude Code matches model aliases case-insensitively: both accept it
    Case("model-upper", "x", _e(model="Sonnet"), True, True),
    Case("model-empty", "x", _e(model=""), False, False, rules=("ST005",)),
    Case("model-int", "x", _e(model=4), False, False, rules=("ST010",)),
    Case(
        "prompt-300k",
        "x",
        _e(prompt="p" * (300 * 1024)),
        False,
        True,
        "store caps a prompt at 256 KiB so the whole file stays under the 1 MiB read limit",
        ("ST008",),
    ),
    Case(
        "description-17k",
        "x",
        _e(description="d" * (17 * 1024)),
        False,
        True,
        "store caps a description at 16 KiB (validate only warns, SA201)",
        ("ST008",),
    ),
]


def _store_verdict(store: AgentStore, case: Case) -> tuple[bool, list[str]]:
    e = case.entry
    diags = store.validate_entry(
        case.name, e.get("description"), e.get("prompt"), e.get("tools"), e.get("model")
    )
    errors = [d.rule for d in diags if d.severity is Severity.ERROR]
    return not errors, errors


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_store_and_validate_agree(case: Case, tmp_path: Path) -> None:
    store = AgentStore(None, tmp_path / "group")
    store_ok, rules = _store_verdict(store, case)
    assert store_ok is case.store_ok, rules
    if not store_ok:
        assert set(case.rules) <= set(rules), rules

    path = tmp_path / "check" / "agents.json"
    path.parent.mkdir()
    path.write_text(json.dumps({case.name: case.entry}), encoding="utf-8")
    report = validate_paths([path])
    assert (report.errors == 0) is case.validate_ok
    if case.store_ok != case.validate_ok:
        assert case.why_different, "a difference must be deliberate and say why"


def test_every_difference_is_documented() -> None:
    doc = (Path(__file__).parent.parent / "docs" / "mcp.md").read_text(encoding="utf-8")
    section = doc.split("### Store versus validate", 1)[1].split("\n## ", 1)[0]
    for words in ("64 characters", "comma", "256 KiB", "16 KiB", "padded", "model-aliases"):
        assert words in section, words


@pytest.mark.parametrize("case", [c for c in CASES if c.store_ok], ids=lambda c: c.id)
def test_what_the_store_writes_reads_back_clean(case: Case, tmp_path: Path) -> None:
    """An accepted entry, once written, is error-free for validate and loads for the SDK."""
    sdk = pytest.importorskip("claude_agent_sdk")
    store = AgentStore(None, tmp_path)
    e = case.entry
    store.define(case.name, e["description"], e["prompt"], tools=e.get("tools"), model=e.get("model"))
    assert validate_paths([tmp_path / "agents.json"]).errors == 0
    definitions, diagnostics = store.definitions()
    assert [d.name for d in definitions] == [case.name]
    assert not [d for d in diagnostics if d.severity is Severity.ERROR]
    from subagents.formats.sdkwire import to_sdk_mapping

    for value in to_sdk_mapping(definitions).values():
        sdk.AgentDefinition(**value)


@pytest.mark.slow
async def test_mcp_define_agent_agrees_with_the_store(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    store = AgentStore(None, tmp_path / "verdicts")
    async with mcp_session(tmp_path / "group") as session:
        for case in CASES:
            is_error, out = await call(session, "define_agent", name=case.name, **case.entry)
            assert is_error is (not _store_verdict(store, case)[0]), (case.id, out)
            if is_error:
                assert "Error executing tool define_agent" in out
                assert "errors.pydantic.dev" not in out and "Arguments" not in out, out
                # The model can act on it: a store code, or the argument and what it needs.
                assert any(r in out for r in case.rules) or "must be" in out or "is required" in out, out
    written = json.loads((tmp_path / "group" / "agents.json").read_text(encoding="utf-8"))
    assert set(written) == {c.name for c in CASES if c.store_ok}
