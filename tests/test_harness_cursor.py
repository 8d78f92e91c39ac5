"""Cursor dialect (documented behaviour): reading, hostile input, writer round trips."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from harness_helpers import CORPUS, claude_corpus_definitions
from subagents.definition import AgentDefinition
from subagents.harnesses.base import Effect, Harness, Outcome
from subagents.harnesses.cursor import HARNESS

P = Path("/p/.cursor/agents/reviewer.md")

EXAMPLE = """---
name: reviewer
description: Reviews the current diff for bugs and missing tests.
model: inherit
readonly: true
---
You are a code reviewer. Report findings with file:line; do not edit files.
"""


def _one(text: str, path: Path | None = P):
    agents = HARNESS.read_text(text, path)
    assert len(agents) == 1
    return agents[0]


def test_is_a_harness() -> None:
    assert isinstance(HARNESS, Harness)


def test_documented_example_loads() -> None:
    agent = _one(EXAMPLE)
    assert agent.outcome is Outcome.LOADS and agent.agent_id == "reviewer"
    assert agent.model is None and agent.native_tools is None
    assert agent.prompt == "You are a code reviewer. Report findings with file:line; do not " \
        "edit files."
    assert agent.definition is not None
    assert agent.definition.extra["x-cursor"] == {"readonly": True}
    assert agent.findings == ()


def test_name_defaults_to_stem_and_fast_model() -> None:
    agent = _one("---\ndescription: d\nmodel: fast\nis_background: true\n---\nbody")
    assert agent.agent_id == "reviewer" and agent.model == "fast"
    assert agent.definition is not None and agent.definition.background is True


def test_tools_are_not_applied_and_unknown_keys_warn() -> None:
    agent = _one("---\nname: r\ndescription: d\ntools: Read, Grep\ncolor: blue\n---\nbody")
    assert agent.outcome is Outcome.LOADS
    codes = {f.code: f for f in agent.findings}
    assert codes["CU009"].effect is Effect.DIFFERS and codes["CU009"].line == 4
    assert codes["CU010"].effect is Effect.PORTABILITY
    assert all("documentation" in f.message for f in agent.findings)


def test_nested_and_other_files_are_not_read() -> None:
    assert _one(EXAMPLE, Path("/p/.cursor/agents/sub/x.md")).outcome is Outcome.NOT_READ
    assert not HARNESS.claims(Path("/p/.cursor/agents/sub/x.md"))
    assert HARNESS.claims(P)


def test_project_then_user_discovery(tmp_path: Path) -> None:
    for base in (tmp_path / "proj", tmp_path / "home"):
        (base / ".cursor" / "agents" / "sub").mkdir(parents=True)
        (base / ".cursor" / "agents" / "a.md").write_text(EXAMPLE)
        (base / ".cursor" / "agents" / "sub" / "b.md").write_text(EXAMPLE)
    found = HARNESS.discover(tmp_path / "proj", tmp_path / "home")
    assert found == [tmp_path / "proj/.cursor/agents/a.md", tmp_path / "home/.cursor/agents/a.md"]


@pytest.mark.parametrize("text", [
    "---\n" + "a: " + "[" * 10_000 + "\n---\nbody",  # deep nesting
    "---\n- a\n- b\n---\nbody",  # not a mapping
    "---\nname: a\nname: b\n---\nbody",  # duplicate keys
    "---\nname: &x a\nb: *x\n---\n",  # aliases
    "---\nname: [\n---\n",  # broken YAML
    "\x00\x01binary",
    "---\nname: a\n" + "x: y\n" * 300_000 + "---\n",  # huge
])
def test_hostile_input_is_skipped_without_raising(text: str) -> None:
    agent = _one(text)
    assert agent.outcome is Outcome.SKIPPED and agent.findings


def test_no_frontmatter_loads_under_stem() -> None:
    agent = _one("just a prompt")
    assert agent.outcome is Outcome.LOADS and agent.agent_id == "reviewer"
    assert agent.prompt == "just a prompt"


def _reread(defn: AgentDefinition):
    written = HARNESS.write(defn)
    assert written.relpath.startswith(".cursor/agents/") and "/" not in written.relpath[15:]
    agent = _one(written.text, Path("/p") / written.relpath)
    assert agent.outcome is Outcome.LOADS, (written.text, agent.findings)
    return written, agent


def test_writer_readonly_background_and_round_trip() -> None:
    defn = AgentDefinition(name="rev", description="Reviews.", system_prompt="Body\n\ntext",
                           model="gpt-5", tools=("Read", "Grep"), background=True)
    written, agent = _reread(defn)
    front = yaml.safe_load(written.text.split("---\n")[1])
    assert front == {"name": "rev", "description": "Reviews.", "model": "gpt-5",
                     "readonly": True, "is_background": True}
    back = agent.definition
    assert back is not None
    assert (back.name, back.description, back.system_prompt, back.model, back.background) == (
        "rev", "Reviews.", "Body\n\ntext", "gpt-5", True)
    writer = AgentDefinition(name="w", description="d", system_prompt="p", model="sonnet",
                             tools=("Read", "Edit"))
    front = yaml.safe_load(HARNESS.write(writer).text.split("---\n")[1])
    assert "readonly" not in front and "model" not in front


@settings(max_examples=100, deadline=None)
@given(name=st.text(min_size=1, max_size=30).filter(lambda s: s.strip()),
       description=st.text(min_size=1, max_size=80).filter(lambda s: s.strip()),
       body=st.text(max_size=300))
@example(name="0", description="0", body="\x00")
def test_writer_fuzz(name: str, description: str, body: str) -> None:
    _, agent = _reread(AgentDefinition(name=name, description=description, system_prompt=body))
    assert agent.agent_id == name.strip()
    assert agent.description == description
    assert agent.prompt == body.replace("\x00", "").replace("\r\n", "\n").replace("\r", "\n").strip()


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared corpus is not on this machine")
def test_corpus_through_writer_loads() -> None:
    defs = claude_corpus_definitions()
    loads = sum(_reread(d)[1].outcome is Outcome.LOADS for d in defs)
    print(f"cursor corpus: {loads}/{len(defs)} Claude-loadable files re-read as LOADS")
    assert defs and loads == len(defs)
