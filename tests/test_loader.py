"""The reader: file -> text -> YAML nodes with positions -> AgentDefinition, and its guards."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hypothesis_helpers import examples
from subagents import AgentDefinition, DefinitionError, load_agent
from subagents.definition import Dialect
from subagents.diagnostics import Severity
from subagents.harnesses.loader import detect_dialect, parse_agent_text, read_agent_file

GOOD = """---
name: code-reviewer
description: Reviews code for quality and security issues in pull requests.
tools: Read, Grep, Glob, Bash(git diff:*)
model: sonnet
maxTurns: 30
hooks:
  PreToolUse:
    - matcher: Bash
      hooks:
        - type: command
          command: ./check.sh
          timeout: 10
mcpServers:
  github:
    command: npx
    args: ["-y", "@modelcontextprotocol/server-github"]
    env:
      GITHUB_TOKEN: "${GITHUB_TOKEN}"
version: 1.0.0
created: 2025-01-15
tags: [review, security]
favourite-colour: teal
---
You are a reviewer.
"""


def codes(result: object) -> list[tuple[str, int | None]]:
    return [(d.rule, d.line) for d in result.diagnostics]  # type: ignore[attr-defined]


def test_good_file_reads_every_field(tmp_path: Path) -> None:
    f = tmp_path / "r.md"
    f.write_text(GOOD)
    d = load_agent(f)
    assert isinstance(d, AgentDefinition)
    assert d.name == "code-reviewer"
    assert d.tools == ("Read", "Grep", "Glob", "Bash(git diff:*)")
    assert d.model == "sonnet"
    assert d.max_turns == 30
    assert d.hooks["PreToolUse"][0].matcher == "Bash"
    assert d.hooks["PreToolUse"][0].hooks[0].command == "./check.sh"
    assert d.hooks["PreToolUse"][0].hooks[0].timeout == 10
    (server,) = d.mcp_servers
    assert server.name == "github" and server.command == "npx"
    assert server.env == {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}
    assert d.version == "1.0.0"
    assert d.created == "2025-01-15"
    assert d.tags == ("review", "security")
    assert d.extra == {"favourite-colour": "teal"}
    assert d.system_prompt == "You are a reviewer.\n"
    assert d.locations["maxTurns"].line == 6
    assert d.location_of("max_turns") == d.locations["maxTurns"]
    assert d.body_line == 25
    assert d.path == f


def test_bom_and_crlf_accepted() -> None:
    data = ("\ufeff" + GOOD).replace("\n", "\r\n").encode()
    r = parse_agent_text(data)
    assert r.ok, r.diagnostics
    assert r.definition is not None and r.definition.name == "code-reviewer"
    assert r.document is not None and r.document.bom and r.document.crlf
    assert "\r" not in r.definition.system_prompt


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", [("SA012", 1)]),
        ("   \n\n", [("SA012", 1)]),
        ("Just a prompt.\n", [("SA003", 1)]),
        ("---\nname: x\ndescription: y\n", [("SA004", 1)]),
        ("---\n- a\n- b\n---\nbody", [("SA006", 2)]),
        ("---\njust text\n---\nbody", [("SA006", 2)]),
        ("---\nname: x\nname: y\n---\nbody", [("SA007", 3)]),
        ("---\nname: &a x\ndescription: *a\n---\n", [("SA008", 2)]),
        ("---\nname: !!python/object/apply:os.system [ls]\n---\n", [("SA009", 2)]),
        ("---\nname: x\n\tdescription: y\n---\n", [("SA013", 3)]),
        # a wrong type under a field with its own rule gets that rule's code from the reader
        ("---\nname: x\nmaxTurns: ten\n---\nb", [("SA108", 3)]),
        ("---\nname: x\ntags: {a: 1}\n---\nb", [("SA113", 3)]),
        ("---\nname: [x\n---\nb", [("SA005", 3)]),
        ("\n  ---\nname: x\ndescription: y\n---\nb", [("SA018", 2)]),
    ],
)
def test_bad_frontmatter_reports_code_and_line(text: str, expected: list[tuple[str, int]]) -> None:
    assert codes(parse_agent_text(text)) == expected


def test_unquoted_colon_with_examples_is_recovered_for_diagnosis() -> None:
    text = (
        "---\n"
        "name: helper\n"
        "description: Use this agent when: the user asks.\n"
        "  <example>\n"
        "  user: hi there\n"
        "  </example>\n"
        "tools: Read\n"
        "---\n"
        "Body\n"
    )
    r = parse_agent_text(text)
    assert codes(r) == [("SA010", 3)]
    assert not r.ok and r.recovered
    d = r.definition
    assert d is not None
    assert (
        d.description
        == "Use this agent when: the user asks.\n<example>\nuser: hi there\n</example>"
    )
    assert d.tools == ("Read",)
    assert "subagents fix" in (r.diagnostics[0].hint or "")


def test_non_utf8_reports_line_and_column() -> None:
    r = parse_agent_text(b"---\nname: ok\ndescription: caf\xe9\n---\n")
    assert codes(r) == [("SA001", 3)]
    assert r.diagnostics[0].column == 17
    assert "Latin-1" in r.diagnostics[0].message


def test_binary_refused() -> None:
    r = parse_agent_text(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    assert [d.rule for d in r.diagnostics] == ["SA011"]


def test_size_limit_checked_before_reading(tmp_path: Path) -> None:
    f = tmp_path / "big.md"
    f.write_bytes(b"---\nname: x\n---\n" + b"a" * (5 << 20))
    t = time.perf_counter()
    r = read_agent_file(f)
    assert [d.rule for d in r.diagnostics] == ["SA002"]
    assert "5,242," in r.diagnostics[0].message
    assert time.perf_counter() - t < 5  # sanity only: it must not parse 5 MiB


def test_alias_bomb_is_refused_without_expanding() -> None:
    lines = ["---", 'a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [
        f"a{i}: &a{i} [*a{i - 1},*a{i - 1},*a{i - 1},*a{i - 1},*a{i - 1},*a{i - 1}]"
        for i in range(1, 12)
    ]
    lines += ["---", "body"]
    r = parse_agent_text("\n".join(lines))
    assert [d.rule for d in r.diagnostics] == ["SA008"]
    assert r.diagnostics[0].line == 2


def test_unreadable_and_missing_files(tmp_path: Path) -> None:
    assert [d.rule for d in read_agent_file(tmp_path / "nope.md").diagnostics] == ["SA015"]
    assert [d.rule for d in read_agent_file(tmp_path).diagnostics] == ["SA015"]
    f = tmp_path / "locked.md"
    f.write_text(GOOD)
    f.chmod(0)
    try:
        r = read_agent_file(f)
        if os.access(f, os.R_OK):  # root reads anyway: then it must simply load
            assert r.ok
        else:
            assert [d.rule for d in r.diagnostics] == ["SA015"]
    finally:
        f.chmod(0o644)


def test_load_agent_raises_with_diagnostics(tmp_path: Path) -> None:
    f = tmp_path / "bad.md"
    f.write_text("no frontmatter")
    with pytest.raises(DefinitionError) as info:
        load_agent(f)
    assert info.value.diagnostics[0].rule == "SA003"
    assert "bad.md:1:1" in str(info.value)


def test_include_body_false_skips_prompt() -> None:
    r = parse_agent_text(GOOD, include_body=False)
    assert r.definition is not None and r.definition.system_prompt == ""


def test_json_dialect_positions_and_wire_forms() -> None:
    text = """{
  "researcher": {
    "description": "Performs deep research.",
    "prompt": "You research. \\"name\\": not a key",
    "tools": ["WebSearch", "Read"],
    "maxTurns": 5,
    "disallowedTools": ["Write"]
  },
  "coder": {"description": "Writes code.", "prompt": "Code.", "model": "opus",
            "max_turns": "many"},
  "broken": 3
}"""
    r = parse_agent_text(text, dialect=Dialect.JSON)
    by_name = {d.name: d for d in r.definitions}
    assert set(by_name) == {"researcher", "coder"}
    res = by_name["researcher"]
    assert res.system_prompt.startswith("You research.")
    assert res.tools == ("WebSearch", "Read") and res.max_turns == 5
    assert res.disallowed_tools == ("Write",)
    assert res.locations["maxTurns"].line == 6
    assert res.locations["name"].line == 2
    assert codes(r) == [("SA108", 10), ("SA014", 11)]


@pytest.mark.parametrize(
    ("text", "code", "line"),
    [("{", "SA016", 1), ("[1, 2]", "SA016", 1), ('{"a": {}}\n}', "SA016", 2), ("", "SA012", 1)],
)
def test_json_bad_input(text: str, code: str, line: int) -> None:
    assert codes(parse_agent_text(text, dialect=Dialect.JSON)) == [(code, line)]


def test_json_duplicate_agent_names_reported() -> None:
    r = parse_agent_text(
        '{"a": {"description": "x", "prompt": "y"},\n "a": {}}', dialect=Dialect.JSON
    )
    assert ("SA007", 1) in codes(r)


@pytest.mark.parametrize(
    ("path", "dialect"),
    [
        ("proj/.claude/agents/x.md", Dialect.CLAUDE),
        ("notes/x.md", Dialect.CLAUDE),
        ("proj/.codex/agents/x.md", Dialect.CODEX_MD),
        ("agents.json", Dialect.JSON),
        ("proj/.opencode/agent/core/x.md", Dialect.OPENCODE),
        ("proj/.opencode/agents/x.md", Dialect.OPENCODE),
        ("proj/.github/agents/x.md", Dialect.COPILOT),
        ("x.agent.md", Dialect.COPILOT),
        ("x.txt", None),
    ],
)
def test_detect_dialect(path: str, dialect: Dialect | None) -> None:
    assert detect_dialect(path) is dialect


def test_another_harness_file_is_read_by_that_harness(tmp_path: Path) -> None:
    """A Copilot file is read by Copilot's own reader (it used to get one SA017 info from the
    Claude reader while `validate` reported Copilot's error): one reading for every caller."""
    f = tmp_path / ".github" / "agents" / "x.md"
    f.parent.mkdir(parents=True)
    f.write_text("---\nname: Display Name\ntools: ['search']\n---\nhi")
    r = read_agent_file(f)
    assert [(d.rule, d.severity) for d in r.diagnostics] == [("CP004", Severity.ERROR)]
    assert r.definitions == () and r.harness_agents[0].outcome.value == "skipped"
    f.write_text("---\nname: x\ndescription: Reviews code\ntools: ['search']\n---\nhi")
    r = read_agent_file(f)
    assert r.ok and r.definition is not None and r.definition.name == "x"
    assert r.definition.dialect is Dialect.COPILOT


@settings(max_examples=examples(300), deadline=None)
@given(st.binary(max_size=2048))
def test_fuzz_any_bytes_give_diagnostics_not_exceptions(data: bytes) -> None:
    t = time.perf_counter()
    for dialect in (Dialect.CLAUDE, Dialect.JSON):
        r = parse_agent_text(data, dialect=dialect)
        for d in r.diagnostics:
            assert d.line is None or d.line >= 1
    assert time.perf_counter() - t < 2


_yamlish = st.text(alphabet=st.sampled_from(list("ab:-&*!|>'\"#[]{},\t \n<>example")), max_size=300)


@settings(max_examples=examples(300), deadline=None)
@given(_yamlish)
def test_fuzz_yaml_shaped_frontmatter(body: str) -> None:
    text = f"---\nname: x\n{body}\n---\nprompt"
    r = parse_agent_text(text)
    n_lines = text.count("\n") + 1
    for d in r.diagnostics:
        assert d.line is not None and 1 <= d.line <= n_lines, d


def test_broken_nested_value_is_not_mistaken_for_a_broken_description() -> None:
    text = '---\nname: x\nhooks:\n  PreToolUse:\n    - command: "a "b" c"\n---\nbody'
    assert [d.rule for d in parse_agent_text(text).diagnostics] == ["SA005"]


def test_block_scalar_as_last_key_keeps_its_final_newline() -> None:
    r = parse_agent_text("---\nname: x\ndescription: |\n  line one\n  line two\n---\nbody")
    assert r.definition is not None
    assert r.definition.description == "line one\nline two\n"


@pytest.mark.parametrize(
    "value",
    [
        "[" * 5000 + "]" * 5000,
        "{a: " * 3000 + "1" + "}" * 3000,
        "\n".join("  " * i + "- " for i in range(200)),
    ],
)
def test_deep_nesting_is_a_diagnostic_not_a_recursion_error(value: str) -> None:
    # the second form has `!*&` in a quoted string, which sends it down the event path
    for text in (
        f"---\nname: a\ntools: {value}\n---\nb",
        f"---\nname: a\nx: '!*&'\ntools: {value}\n---\nb",
    ):
        r = parse_agent_text(text)
        assert [d.rule for d in r.diagnostics] == ["SA005"], r.diagnostics


def test_reader_findings_carry_the_key_they_are_about() -> None:
    """Code that re-codes or re-words a reader finding reads typed facts, not the message: a
    finding keeps its key and the construct it names, and neither reaches the JSON."""
    text = "---\nname: a\nmaxTurns: ten\nmaxTurns: 3\ntags: !!binary x\n---\nPrompt.\n"
    found = {d.rule: d for d in parse_agent_text(text).diagnostics}
    assert found["SA007"].key == "maxTurns"
    assert found["SA009"].subject == "YAML tag `!!binary`"
    wrong = parse_agent_text("---\nname: a\ndescription: d\nmaxTurns: ten\n---\nP.\n")
    (d,) = [d for d in wrong.diagnostics if d.rule == "SA108"]  # the reader's own code
    assert d.key == "maxTurns"
    assert set(d.to_dict()) == {"path", "line", "column", "rule", "severity", "message", "hint"}
    from dataclasses import replace

    assert replace(d, key="other", subject="x") == d
    assert d.with_severity(Severity.INFO).key == "maxTurns"


def test_wrong_type_is_recoded_by_key_not_by_wording() -> None:
    from subagents.lint.validate import validate_text

    text = "---\nname: a\ndescription: Reviews diffs.\nmaxTurns: ten\n---\nYou review.\n"
    assert "SA108" in {d.rule for d in validate_text(text, path="a.md")}
