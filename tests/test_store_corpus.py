"""Real-world agents (the shared corpus) through the store: validation is data, never a crash.

Every corpus agent the reader can load is offered to ``validate_entry`` as it would arrive
from ``define_agent``; those it accepts are written to a store, read back, exported in the
SDK wire form and accepted by ``claude_agent_sdk.AgentDefinition``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus_helpers import CORPUS, needs_corpus
from subagents.diagnostics import Severity
from subagents.store.core import AgentStore, validate_entry

pytestmark = needs_corpus


def test_corpus_agents_round_trip_through_the_store(tmp_path: Path) -> None:
    loader = pytest.importorskip("subagents.harnesses.loader")
    sdk = pytest.importorskip("claude_agent_sdk")
    from subagents.formats.sdkwire import to_sdk_mapping

    store = AgentStore(None, tmp_path / "group")
    accepted: dict[str, dict[str, object]] = {}
    refused_rules: dict[str, int] = {}
    files = sorted(CORPUS.rglob("*.md"))
    for path in files:
        result = loader.read_agent_file(path)
        defn = result.definition
        if defn is None or not defn.name:
            continue
        tools = list(defn.tools) if defn.tools is not None else None
        diags = validate_entry(defn.name, defn.description, defn.system_prompt, tools, defn.model)
        errors = [d for d in diags if d.severity is Severity.ERROR]
        for d in errors:
            refused_rules[d.rule] = refused_rules.get(d.rule, 0) + 1
        if errors or defn.name in accepted:
            continue
        if len(accepted) >= 150:  # keep the store under its 1 MiB limit
            continue
        store.define(defn.name, defn.description, defn.system_prompt, tools=tools, model=defn.model)
        entry: dict[str, object] = {"description": defn.description, "prompt": defn.system_prompt}
        if tools is not None:
            entry["tools"] = tools
        if defn.model is not None:
            entry["model"] = defn.model
        accepted[defn.name] = entry
    print(
        f"{len(files)} corpus files; {len(accepted)} written; refused by rule: "
        f"{dict(sorted(refused_rules.items()))}"
    )
    assert len(accepted) >= 50  # most real agents are acceptable definitions
    on_disk = json.loads(store.path("group").read_text(encoding="utf-8"))
    assert on_disk == accepted
    definitions, _ = store.definitions()
    wire = to_sdk_mapping(definitions)
    assert set(wire) == set(accepted)
    for value in wire.values():
        sdk.AgentDefinition(**value)
