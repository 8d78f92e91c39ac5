"""SA1xx: required fields and values, each with its code and the line/column it points at."""

from __future__ import annotations

import pytest

from subagents.definition import Dialect
from subagents.diagnostics import Severity
from subagents.lint.config import Config
from validate_helpers import BODY, GOOD_FRONT, agent, codes, diags, only


def test_good_file_has_no_errors() -> None:
    ds = diags(agent(GOOD_FRONT))
    assert [d for d in ds if d.severity is Severity.ERROR] == []


@pytest.mark.parametrize(
    ("name", "why"), [("team:reviewer", "contains `:`"), ("-reviewer", "starts with `-`")]
)
def test_invalid_name_points_at_value(name: str, why: str) -> None:
    ds = diags(agent(f"description: Reviews recent diffs carefully\nname: '{name}'"))
    (d,) = only(ds, "SA101")
    assert (d.line, d.column) == (3, 7)
    assert why in d.message and d.severity is Severity.ERROR


def test_missing_name_and_description() -> None:
    ds = diags(agent("model: sonnet"))
    (n,) = only(ds, "SA102")  # Claude Code stops at the first reason: one finding
    assert n.line == 1  # nothing to point at: the opening ---
    assert "missing" in n.message and "skips this file without a word" in n.message
    (de,) = only(diags(agent("name: x-agent\nmodel: sonnet")), "SA103")
    assert de.line == 1 and "`description` is missing" in de.message


def test_wrong_type_name_is_not_also_missing() -> None:
    ds = diags(agent("name: [a]\ndescription: [x, y]\nmaxTurns: 3"))
    assert [(d.rule, d.line) for d in ds if d.severity is Severity.ERROR] == [
        ("SA014", 2), ("SA014", 3)]
    (skip,) = [d for d in ds if d.line == 2]
    assert "Claude Code 2.1.332 skips this file" in skip.message


def test_skip_at_a_wrong_typed_key_is_one_finding() -> None:
    """Claude Code's skip at a key replaces the strict reader's finding of the same code there
    (one problem, one error); a wrong-typed value elsewhere keeps its own finding."""
    ds = diags(agent("name: b-agent\ndescription: Reviews diffs\nmaxTurns: ten\nhooks: \"x\""))
    (hooks,) = only(ds, "SA110")
    assert hooks.line == 5 and "skips this file" in hooks.message
    (turns,) = only(ds, "SA108")
    assert turns.line == 4


def test_empty_description_points_at_key() -> None:
    ds = diags(agent("name: x-agent\ndescription: ''"))
    (d,) = only(ds, "SA103")
    assert (d.line, d.column) == (3, 14) and "empty" in d.message


def test_unknown_tools_point_at_each_item_in_comma_string() -> None:
    ds = diags(agent("name: x-agent\ndescription: Reviews diffs for problems\n"
                     "tools: Read, Frobnicate, Grep, Bash(git diff:*), Zap"))
    found = only(ds, "SA104")
    assert [(d.line, d.column) for d in found] == [(4, 14), (4, 50)]
    assert "Frobnicate" in found[0].message and "Zap" in found[1].message
    ds = diags(agent("name: x-agent\ndescription: Reviews diffs for problems\ntools: Read, Serach"))
    assert "did you mean 'Search'" not in only(ds, "SA104")[0].message
    # `Serach` is a misspelt "search": Grep is Claude Code's search tool
    assert (only(ds, "SA104")[0].hint or "").startswith("did you mean 'Grep'?")
    ds = diags(agent("name: x-agent\ndescription: Reviews diffs for problems\ntools: websearch"))
    assert (only(ds, "SA104")[0].hint or "").startswith("did you mean 'WebSearch'?")


def test_unknown_tools_in_yaml_list_and_disallowed() -> None:
    ds = diags(agent("name: x-agent\ndescription: Reviews diffs for problems\n"
                     "disallowedTools:\n  - Write\n  - Wrte\n"))
    (d,) = only(ds, "SA104")
    assert (d.line, d.column) == (6, 5) and "disallowedTools" in d.message


@pytest.mark.parametrize(
    "tools",
    ["mcp__github__create_issue, mcp__github, mcp__db__*", "Agent(a, b), Task(c)",
     "Bash(npm test:*), KillShell, TeamCreate, SendMessage, Skill"],
)
def test_known_tool_forms_accepted(tools: str) -> None:
    ds = diags(agent(f"name: x-agent\ndescription: Reviews diffs for problems\ntools: {tools}"))
    assert only(ds, "SA104") == []


def test_extra_tools_from_config() -> None:
    text = agent("name: x-agent\ndescription: Reviews diffs for problems\ntools: Read, MyTool")
    assert only(diags(text), "SA104")
    assert only(diags(text, config=Config(extra_tools=frozenset({"MyTool"}))), "SA104") == []


@pytest.mark.parametrize("model", ["sonnet", "opus", "haiku", "inherit", "fable",
                                   "claude-sonnet-4-20250514", "claude-opus-4-1", "sonnet[1m]",
                                   "us.anthropic.claude-sonnet-4-5-20250929-v1:0"])
def test_models_accepted(model: str) -> None:
    ds = diags(agent(f"name: x-agent\ndescription: Reviews diffs for problems\nmodel: {model}"))
    assert only(ds, "SA105") == []


@pytest.mark.parametrize("model", ["sonet", "gpt-4o", "Claude Sonnet", "claude-"])
def test_models_rejected(model: str) -> None:
    ds = diags(agent(f"name: x-agent\ndescription: Reviews diffs for problems\nmodel: {model}"))
    (d,) = only(ds, "SA105")
    assert (d.line, d.column) == (4, 8)


def test_model_alias_from_config() -> None:
    text = agent("name: x-agent\ndescription: Reviews diffs for problems\nmodel: fast")
    assert only(diags(text), "SA105")
    cfg = Config(model_aliases={"fast": "claude-haiku-4-5"})
    assert only(diags(text, config=cfg), "SA105") == []


def test_permission_mode_effort_isolation() -> None:
    ds = diags(agent("name: x-agent\ndescription: Reviews diffs for problems\n"
                     "permissionMode: yolo\neffort: extreme\nisolation: container"))
    assert [(d.rule, d.line) for d in ds if d.rule in ("SA106", "SA115", "SA116")] == [
        ("SA106", 4), ("SA115", 5), ("SA116", 6)]


def test_tools_and_disallowed_tools_together() -> None:
    ds = diags(agent("name: x-agent\ndescription: Reviews diffs for problems\n"
                     "tools: Read\ndisallowedTools: Write"), strict=True)
    (d,) = only(ds, "SA107")  # Claude Code subtracts them: portability, so --strict only
    assert (d.line, d.column, d.severity) == (5, 1, Severity.WARNING)


@pytest.mark.parametrize(("value", "code"), [("0", "SA108"), ("-3", "SA108"), ("ten", "SA108"),
                                             ("2.5", "SA108"), ("[1]", "SA108")])
def test_max_turns(value: str, code: str) -> None:
    ds = diags(agent(f"name: x-agent\ndescription: Reviews diffs for problems\nmaxTurns: {value}"))
    (d,) = only(ds, code)
    assert d.line == 4


def test_hooks_unknown_event_and_malformed_entries() -> None:
    front = (
        "name: x-agent\ndescription: Reviews diffs for problems\nhooks:\n"
        "  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n"
        "          command: ./check.sh\n"  # fine
        "  BeforeEverything:\n    - hooks:\n        - type: command\n          command: x\n"
        "  PostToolUse:\n    - matcher: Write\n"  # no hooks list
        "  Stop:\n    - hooks:\n        - type: command\n"  # no command
        "  SubagentStop: not-a-list\n"
    )
    ds = diags(agent(front))
    assert [(d.line, d.column) for d in only(ds, "SA109")] == [(10, 3)]
    assert [d.line for d in only(ds, "SA110")] == [15, 18, 19]


def test_mcp_server_without_command_or_url() -> None:
    front = ("name: x-agent\ndescription: Reviews diffs for problems\nmcpServers:\n"
             "  - github:\n      command: npx\n  - broken:\n      env:\n        A: b\n"
             "  - remote:\n      url: https://example.invalid/mcp\n")
    ds = diags(agent(front))
    (d,) = only(ds, "SA111")
    assert d.line is not None and "broken" in d.message


def test_mcp_servers_as_a_mapping_are_ignored_by_claude_code() -> None:
    front = ("name: x-agent\ndescription: Reviews diffs for problems\nmcpServers:\n"
             "  github:\n    command: npx\n")
    (d,) = only(diags(agent(front)), "SA021")
    assert d.line == 4 and d.severity is Severity.ERROR
    assert "Claude Code 2.1.332 ignores" in d.message and "must be a list" in d.message


def test_mcp_server_names_only_is_fine() -> None:
    ds = diags(agent("name: x-agent\ndescription: Reviews diffs for problems\n"
                     "mcpServers: [github, slack]"))
    assert only(ds, "SA111") == []


@pytest.mark.parametrize(("value", "bad"), [('"1.0.0"', False), ('"2.10.3-rc.1"', False),
                                            ("1.0", True), ('"v1.0.0"', True)])
def test_version_semver(value: str, bad: bool) -> None:
    ds = diags(agent(f"name: x-agent\ndescription: Reviews diffs for problems\nversion: {value}"),
               strict=True)
    assert [d.line for d in only(ds, "SA112")] == ([4] if bad else [])


def test_tags_must_be_list_of_strings() -> None:
    ds = diags(agent("name: x-agent\ndescription: Reviews diffs for problems\ntags: a, b"),
               strict=True)
    assert [d.line for d in only(ds, "SA113")] == [4] and not only(ds, "SA014")
    ds = diags(agent("name: x-agent\ndescription: Reviews diffs for problems\n"
                     "tags: [ok, '']"), strict=True)
    (d,) = only(ds, "SA113")
    assert (d.line, d.column) == (4, 12)


def test_empty_system_prompt_points_at_body() -> None:
    ds = diags(agent(GOOD_FRONT, body="\n   \n"))
    (d,) = only(ds, "SA114")
    # Claude Code loads it (the agent gets only its fixed text): a warning
    assert d.line == 7 and d.severity is Severity.WARNING  # line after the closing ---


def test_json_dialect_fields() -> None:
    text = ('{\n  "helper": {\n    "description": "Answers questions about the code",\n'
            '    "prompt": "",\n    "model": "sonet"\n  }\n}\n')
    ds = diags(text, dialect=Dialect.JSON)
    assert codes(ds)["SA114"] == 1 and codes(ds)["SA105"] == 1
    (m,) = only(ds, "SA105")
    assert m.line == 5
    assert BODY  # the helper body is what good files use


@pytest.mark.parametrize(("line", "code"), [("version: [1, 0]", "SA112"), ("model: 4", "SA105"),
                                            ("permissionMode: [plan]", "SA106"),
                                            ("hooks: not-a-map", "SA110"),
                                            ("background: maybe", "SA014")])
def test_wrong_type_findings_carry_the_fields_rule(line: str, code: str) -> None:
    ds = diags(agent(f"name: x-agent\ndescription: Reviews diffs for problems\n{line}"),
               strict=True)
    found = [d for d in ds if d.rule in (code, "SA014")]
    if line.startswith("hooks:"):
        # Claude Code 2.1.332 does not load an agent whose hooks are a string (measured): one
        # reading gives one finding, the skip, an error under the field's own rule
        (d,) = found
        assert "skips this file" in d.message and d.severity is Severity.ERROR
        assert (d.rule, d.line) == (code, 4)
        return
    (d,) = found
    # the finding points at the value, which is what is wrong
    assert (d.rule, d.line, d.column) == (code, 4, line.index(":") + 3)
