"""Conversion between dialects: round trips keep every field; losses are always reported."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

from corpus_helpers import CATLOG, FURAI, VOLT, needs_corpus
from fix_helpers import frontmatter
from subagents.definition import AgentDefinition, Dialect, HookCommand, HookMatcher, McpServerSpec
from subagents.formats.writers import to_claude_markdown, to_codex_markdown, to_json_entry
from subagents.harnesses.loader import parse_agent_text, read_agent_file
from subagents.repair.convert import Target, convert_definitions, field_losses


def _corpus_claude_definitions() -> list[AgentDefinition]:
    defs: list[AgentDefinition] = []
    names: set[str] = set()
    for root in (VOLT, FURAI, CATLOG / "files" / ".claude"):
        for dirpath, _dirs, files in os.walk(root):
            for name in sorted(files):
                if not name.endswith(".md"):
                    continue
                result = read_agent_file(Path(dirpath) / name, dialect=Dialect.CLAUDE)
                d = result.definition
                if result.ok and d is not None and d.name not in names:
                    names.add(d.name)
                    defs.append(d)
    return defs


RICH = AgentDefinition(
    name="architect-review",
    description="Reviews designs.\n<example>\nuser: review the ADR: is it sound?\n</example>",
    system_prompt="You are an architect.\n\n## Role\nReview designs.\n",
    model="opus",
    tools=("Read", "Grep", "Agent(researcher, code-reviewer)", "mcp__github__*"),
    disallowed_tools=("Write",),
    permission_mode="plan",
    color="blue",
    max_turns=40,
    hooks={
        "PreToolUse": (
            HookMatcher(
                matcher="Bash",
                hooks=(HookCommand(command="./check.sh", timeout=30.0, extra={"async": True}),),
            ),
        ),
        "Stop": (HookMatcher(hooks=(HookCommand(command="echo done"),)),),
    },
    skills=("adr-template", "architecture-patterns"),
    mcp_servers=(
        McpServerSpec(
            name="github",
            command="npx",
            args=("-y", "@modelcontextprotocol/server-github"),
            env={"GITHUB_TOKEN": "${GITHUB_TOKEN}"},
        ),
    ),
    memory="project",
    background=False,
    effort="high",
    isolation="worktree",
    initial_prompt="Start with: the latest ADR",
    version="1.2.0",
    author="Platform Team",
    tags=("architecture", "review"),
    created="2025-01-15",
    modified="2025-02-01",
    keywords=("adr", "design"),
    extra={"x-owner": "platform", "priority": 3},
)


def _fields(d: AgentDefinition) -> dict[str, object]:
    skip = {"dialect", "source", "path", "plugin", "locations", "body_line"}
    out = {k: getattr(d, k) for k in d.__dataclass_fields__ if k not in skip}
    out["system_prompt"] = d.system_prompt.strip()
    return out


# --------------------------------------------------------------------------- writers


def test_claude_writer_round_trips_every_field() -> None:
    text = to_claude_markdown(RICH)
    result = parse_agent_text(text)
    assert result.ok, result.diagnostics
    assert result.definition is not None
    assert _fields(result.definition) == _fields(RICH)
    data = yaml.safe_load(frontmatter(text))
    assert data["tools"] == "Read, Grep, Agent(researcher, code-reviewer), mcp__github__*"
    assert data["description"] == RICH.description
    assert "description: |-\n" in text  # multi-line text is a literal block
    assert list(data)[:2] == ["name", "description"]


def test_json_entry_round_trips_every_field() -> None:
    entry = to_json_entry(RICH)
    assert entry["prompt"] == RICH.system_prompt.strip()
    assert entry["tools"] == list(RICH.tools or ())
    assert entry["disallowedTools"] == ["Write"]
    result = parse_agent_text(json.dumps({RICH.name: entry}), dialect=Dialect.JSON)
    assert result.ok, result.diagnostics
    assert result.definition is not None
    assert _fields(result.definition) == _fields(RICH)


def test_codex_writer_keeps_only_codex_fields() -> None:
    text = to_codex_markdown(RICH)
    data = yaml.safe_load(frontmatter(text))
    assert data == {
        "name": "architect-review",
        "description": RICH.description,
        "model": "opus",
        "tools": list(RICH.tools or ()),
        "keywords": ["adr", "design"],
    }
    assert "keywords: [adr, design]" in text  # the flow list Codex documents


@pytest.mark.parametrize(
    ("target", "dropped"),
    [
        (
            Target.CODEX_MD,
            {
                "disallowedTools",
                "permissionMode",
                "color",
                "maxTurns",
                "hooks",
                "skills",
                "mcpServers",
                "memory",
                "background",
                "effort",
                "isolation",
                "initialPrompt",
                "version",
                "author",
                "tags",
                "created",
                "modified",
            },
        ),
        (
            Target.SDK,
            {
                "color",
                "hooks",
                "isolation",
                "version",
                "author",
                "tags",
                "created",
                "modified",
                "keywords",
            },
        ),
        (Target.JSON, set()),
        (Target.CLAUDE, set()),
    ],
)
def test_every_field_a_target_cannot_carry_is_reported(target: Target, dropped: set[str]) -> None:
    result = convert_definitions([RICH], target)
    assert result.converted == ("architect-review",)
    reported = {
        d.message.split("`")[1]
        for d in result.diagnostics
        if d.rule == "CV001" and not d.message.startswith("unknown key")
    }
    assert reported == dropped
    unknown = {
        d.message.split("`")[1] for d in result.diagnostics if d.message.startswith("unknown key")
    }
    # Codex and the SDK cannot carry unknown keys either; JSON and Claude keep them
    assert unknown == ({"x-owner", "priority"} if target in (Target.CODEX_MD, Target.SDK) else set())
    assert all(d.severity.value == "warning" for d in result.diagnostics)


def test_loss_report_points_at_the_source_line(tmp_path: Path) -> None:
    src = tmp_path / "a.md"
    src.write_text(to_claude_markdown(RICH))
    defn = read_agent_file(src).definition
    assert defn is not None
    result = convert_definitions([defn], Target.SDK)
    hooks = next(d for d in result.diagnostics if "`hooks`" in d.message)
    text_lines = src.read_text().splitlines()
    assert hooks.path == str(src)
    assert hooks.line is not None and text_lines[hooks.line - 1].startswith("hooks:")


def test_sdk_permission_mode_manual_is_reported_as_changed() -> None:
    result = convert_definitions([RICH.evolve(permission_mode="manual")], Target.SDK)
    changed = [d for d in result.diagnostics if d.rule == "CV002"]
    assert len(changed) == 1 and "permissionMode" in changed[0].message
    assert "'manual' became 'default'" in changed[0].message


def test_codex_name_rule() -> None:
    bad = RICH.evolve(name="Code Reviewer")
    result = convert_definitions([bad, RICH.evolve(name="ok")], Target.CODEX_MD)
    assert result.converted == ()
    assert result.failed == ("Code Reviewer", "ok")
    codes = [d.rule for d in result.diagnostics if d.severity.value == "error"]
    assert codes == ["CV003", "CV003"]
    assert "name: code-reviewer" in (result.diagnostics[0].hint or "")


def test_unsafe_file_names_are_refused_for_markdown_targets() -> None:
    for name in ("../evil", "a/b", "x\\y"):
        result = convert_definitions([RICH.evolve(name=name)], Target.CLAUDE)
        assert result.outputs == () and result.failed == (name,)


def test_names_that_are_not_file_names_get_a_slug_file_and_keep_their_name() -> None:
    result = convert_definitions([RICH.evolve(name="C# Expert"),
                                  RICH.evolve(name="c expert")], Target.CLAUDE)
    assert [o.filename for o in result.outputs] == ["c-expert.md"]
    assert "name: C# Expert" in result.outputs[0].text
    assert [d.rule for d in result.diagnostics] == ["CV004"]  # the second would share the file


def test_duplicate_names_keep_the_first() -> None:
    result = convert_definitions([RICH, RICH.evolve(description="other")], Target.JSON)
    assert result.converted == ("architect-review",)
    assert [d.rule for d in result.diagnostics] == ["CV004"]
    data = json.loads(result.outputs[0].text)
    assert data["architect-review"]["description"] == RICH.description


def test_field_losses_compares_prompts_without_outer_whitespace() -> None:
    a = RICH.evolve(system_prompt="\nYou are X.\n\n")
    b = RICH.evolve(system_prompt="You are X.")
    assert field_losses(a, b, "json") == []
    assert field_losses(a, RICH.evolve(system_prompt="You are Y."), "json")


# --------------------------------------------------------------------------- the corpus


@needs_corpus
def test_corpus_claude_to_json_to_claude_preserves_every_field() -> None:
    defs = _corpus_claude_definitions()
    assert len(defs) > 250
    as_json = convert_definitions(defs, Target.JSON)
    assert not as_json.diagnostics, as_json.diagnostics[:3]
    (agents_json,) = as_json.outputs
    reread = parse_agent_text(agents_json.text, dialect=Dialect.JSON)
    assert not reread.diagnostics
    assert len(reread.definitions) == len(defs)
    back = convert_definitions(reread.definitions, Target.CLAUDE)
    assert not back.diagnostics
    assert len(back.outputs) == len(defs)
    for src, out in zip(defs, back.outputs, strict=True):
        final = parse_agent_text(out.text)
        assert final.ok, (src.path, final.diagnostics)
        assert final.definition is not None
        assert _fields(final.definition) == _fields(src), src.path


@needs_corpus
def test_corpus_to_codex_and_sdk_reports_instead_of_dropping() -> None:
    defs = _corpus_claude_definitions()
    for target in (Target.CODEX_MD, Target.SDK):
        result = convert_definitions(defs, target)
        for out in result.outputs:
            if target is Target.CODEX_MD:
                back = parse_agent_text(out.text, dialect=Dialect.CODEX_MD).definition
                src = next(d for d in defs if d.name == out.names[0])
                losses = field_losses(src, back, target.value)
                reported = [
                    d for d in result.diagnostics if d.path == str(src.path) and d.rule != "CV003"
                ]
                assert [d.message for d in losses] == [d.message for d in reported]
        # every agent with a colour gets a warning saying it was dropped
        coloured = [d for d in defs if d.color]
        warned = [d for d in result.diagnostics if "`color`" in d.message]
        assert len(warned) == len(coloured) - sum(1 for d in coloured if d.name in result.failed)


@needs_corpus
def test_corpus_codex_files_to_claude_and_back_keep_the_codex_fields() -> None:
    folder = CATLOG / "files" / ".codex" / "agents"
    defs = []
    for path in sorted(folder.glob("*.md")):
        result = read_agent_file(path)
        assert result.dialect is Dialect.CODEX_MD
        if result.ok and result.definition is not None:
            defs.append(result.definition)
    assert len(defs) >= 15
    as_claude = convert_definitions(defs, Target.CLAUDE)
    assert not as_claude.diagnostics  # Claude carries everything
    reread = [parse_agent_text(o.text).definition for o in as_claude.outputs]
    back = convert_definitions([d for d in reread if d is not None], Target.CODEX_MD)
    for src, out in zip(defs, back.outputs, strict=True):
        final = parse_agent_text(out.text, dialect=Dialect.CODEX_MD).definition
        assert final is not None
        for attr in ("name", "description", "model", "tools", "keywords"):
            assert getattr(final, attr) == getattr(src, attr), (src.path, attr)
        assert final.system_prompt.strip() == src.system_prompt.strip()
    # whatever Codex cannot carry from these files was reported, one warning per field
    dropped = {d.message for d in back.diagnostics if d.rule == "CV001"}
    expected = {
        f"`{k}` cannot be carried by codex-md: dropped"
        for d in defs
        for k, v in (("color", d.color),)
        if v
    }
    assert expected <= dropped


def test_mcp_servers_are_written_as_the_list_claude_code_reads() -> None:
    """Claude Code 2.1.330 ignores a `{name: config}` mapping under `mcpServers` (measured);
    a converted agent's servers must start there, so they are written as a list."""
    from subagents.claude_code import read_claude_code
    from subagents.claude_code.definition import definition_from_view

    defn = AgentDefinition(
        name="mcp-user", description="Uses servers.", system_prompt="You use them.",
        mcp_servers=(McpServerSpec(name="github", command="npx", args=("-y", "gh")),
                     McpServerSpec(name="docs", command="docs-server")),
    )
    view = read_claude_code(to_claude_markdown(defn).encode())
    assert view.loaded and view.notes == ()
    assert isinstance(view.frontmatter["mcpServers"], list)
    again = definition_from_view(view, path=None)
    assert [s.name for s in again.mcp_servers] == ["github", "docs"]
    assert again.mcp_servers[0].command == "npx"
