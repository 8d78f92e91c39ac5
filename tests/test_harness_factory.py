"""Factory Droid dialect (documented behaviour, binary strings): reading and writing."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from harness_helpers import CORPUS, claude_corpus_definitions
from subagents.definition import AgentDefinition
from subagents.harnesses.base import Harness, Outcome
from subagents.harnesses.factory import HARNESS, SLUG, slugify

P = Path("/p/.factory/droids/reviewer.md")

EXAMPLE = """---
name: reviewer
description: Reviews the current diff.
model: inherit
reasoningEffort: high
tools: ["Read", "Grep", "Execute", "FetchUrl"]
---
You review diffs.
"""


def _one(text: str, path: Path | None = P):
    agents = HARNESS.read_text(text, path)
    assert len(agents) == 1
    return agents[0]


def test_is_a_harness() -> None:
    assert isinstance(HARNESS, Harness)


def test_example_loads_with_claude_tool_names() -> None:
    agent = _one(EXAMPLE)
    assert agent.outcome is Outcome.LOADS and agent.agent_id == "reviewer"
    assert agent.native_tools == ("Read", "Grep", "Execute", "FetchUrl")
    assert agent.definition is not None
    assert agent.definition.tools == ("Read", "Grep", "Bash", "WebFetch")
    assert agent.definition.effort == "high" and agent.model is None
    assert agent.findings == ()


def test_category_is_kept() -> None:
    agent = _one("---\nname: r\ndescription: d\ntools: read-only\n---\nb")
    assert agent.native_tools == ("read-only",)
    assert agent.definition is not None and agent.definition.tools is None
    assert agent.definition.extra["x-factory"] == {"tools": "read-only"}


@pytest.mark.parametrize(("text", "code"), [
    ("---\nname: Code Reviewer\ndescription: d\n---\nb", "FD003"),
    ("---\nname: -bad\ndescription: d\n---\nb", "FD003"),
    ("---\ndescription: d\n---\nb", "FD003"),
    ("---\nname: ok\n---\nb", "FD004"),
    ("---\nname: [\n---\nb", "FD002"),
    ("---\nname: a\nname: b\ndescription: d\n---\n", "FD002"),
    ("---\n" + "a: " + "[" * 10_000 + "\n---\n", "FD002"),
    ("\x00binary", "FD002"),
])
def test_invalid_droids_are_skipped_with_documented_wording(text: str, code: str) -> None:
    agent = _one(text)
    assert agent.outcome is Outcome.SKIPPED
    finding = next(f for f in agent.findings if f.code == code)
    assert "Factory" in finding.message
    assert finding.effect.value == "portability"  # a warning: not verified by running it


def test_task_tool_and_unknown_ids_warn() -> None:
    agent = _one("---\nname: r\ndescription: d\ntools: [Read, Task, Bogus]\n---\nb")
    assert agent.outcome is Outcome.LOADS
    assert [f.code for f in agent.findings] == ["FD008", "FD008"]
    assert "cannot use it" in agent.findings[0].message


def test_top_level_only(tmp_path: Path) -> None:
    droids = tmp_path / "proj" / ".factory" / "droids"
    (droids / "sub").mkdir(parents=True)
    (droids / "a.md").write_text(EXAMPLE)
    (droids / "sub" / "b.md").write_text(EXAMPLE)
    assert HARNESS.discover(tmp_path / "proj", tmp_path / "home") == [droids / "a.md"]
    assert _one(EXAMPLE, droids / "sub" / "b.md").outcome is Outcome.NOT_READ


def _reread(defn: AgentDefinition):
    written = HARNESS.write(defn)
    agent = _one(written.text, Path("/p") / written.relpath)
    assert agent.outcome is Outcome.LOADS, (written.text, agent.findings)
    return written, agent


def test_writer_round_trip() -> None:
    defn = AgentDefinition(name="Code Reviewer", description="Reviews.", system_prompt="Body",
                           model="sonnet", effort="high", tools=("Read", "Write", "Bash", "Task"))
    written, agent = _reread(defn)
    assert written.relpath == ".factory/droids/code-reviewer.md"
    front = yaml.safe_load(written.text.split("---\n")[1])
    assert front == {"name": "code-reviewer", "description": "Reviews.",
                     "reasoningEffort": "high", "tools": ["Read", "Create", "Execute"]}
    back = agent.definition
    assert back is not None
    assert (back.description, back.system_prompt, back.effort, back.tools) == (
        "Reviews.", "Body", "high", ("Read", "Write", "Bash"))


@settings(max_examples=100, deadline=None)
@given(name=st.text(min_size=1, max_size=30), description=st.text(max_size=80),
       body=st.text(max_size=300))
@example(name="0", description="0", body="\x00")
def test_writer_fuzz(name: str, description: str, body: str) -> None:
    _, agent = _reread(AgentDefinition(name=name, description=description, system_prompt=body))
    assert SLUG.match(agent.agent_id or "") and agent.agent_id == slugify(name)
    if description.strip():
        assert agent.description == description
    assert agent.prompt == body.replace("\x00", "").replace("\r\n", "\n").replace("\r", "\n").strip()


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared corpus is not on this machine")
def test_corpus_through_writer_loads() -> None:
    defs = claude_corpus_definitions()
    loads = sum(_reread(d)[1].outcome is Outcome.LOADS for d in defs)
    print(f"factory corpus: {loads}/{len(defs)} Claude-loadable files re-read as LOADS")
    assert defs and loads == len(defs)
