"""Tool filtering (allow/deny/MCP/specifiers), permission modes, the working folder, restrict()."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import pytest

from runtime_helpers import ctx_for
from subagents.definition import AgentDefinition
from subagents.runtime.permissions import (
    PermissionMode,
    PermissionPolicy,
    PermissionRequest,
    ToolFilter,
    ToolRules,
)
from subagents.runtime.tools import builtin_tools
from subagents.runtime.tools.base import Tool, ToolContext, ToolOutput

TOOLS = builtin_tools()


class McpTool(Tool):
    input_schema: ClassVar[Mapping[str, Any]] = {"type": "object"}

    def __init__(self, name: str, read_only: bool = False) -> None:
        self.name = name  # type: ignore[misc]
        self.read_only = read_only  # type: ignore[misc]

    async def run(self, input: object, ctx: ToolContext) -> ToolOutput:  # type: ignore[override]
        return ToolOutput("ok")


def offered(tools: list[str] | None, disallowed: list[str] | None = None,
            extra: tuple[str, ...] = ()) -> list[str]:
    everything: dict[str, Tool] = dict(TOOLS)
    for n in extra:
        everything[n] = McpTool(n)
    return list(ToolFilter((ToolRules.from_lists(tools, disallowed),)).apply(everything))


def test_allowlist_denylist_order() -> None:
    assert offered(None) == list(TOOLS)
    assert offered([]) == []
    assert offered(["Read", "Grep", "Bash"], ["Bash"]) == ["Read", "Grep"]
    assert offered(None, ["Write", "Edit"]) == [n for n in TOOLS if n not in ("Write", "Edit")]
    assert offered(["*"]) == list(TOOLS)


def test_mcp_patterns() -> None:
    extra = ("mcp__github__create_issue", "mcp__github__list_issues", "mcp__slack__post")
    assert offered(["mcp__github"], extra=extra) == list(extra[:2])
    assert offered(["mcp__github__*"], extra=extra) == list(extra[:2])
    assert offered(["mcp__github__list_issues"], extra=extra) == ["mcp__github__list_issues"]
    assert "mcp__slack__post" not in offered(None, ["mcp__slack"], extra=extra)
    assert "mcp__github__list_issues" in offered(None, ["mcp__slack"], extra=extra)


def _refusal(entries: list[str] | None, command: str, deny: list[str] | None = None,
             cwd: Path = Path("/tmp")) -> str | None:
    f = ToolFilter((ToolRules.from_lists(entries, deny),))
    return f.refusal("Bash", {"command": command}, cwd)


@pytest.mark.parametrize(
    ("command", "allowed"),
    [
        ("git diff", True),
        ("git diff --stat HEAD~1", True),
        ("git  diff   src/", True),
        ("git difftool", False),
        ("git status", False),
        ("rm -rf /", False),
        ("git diff; rm -rf /", False),
        ("git diff && git push", False),
        ("git diff | tee out.txt", False),
        ("git diff > out.txt", False),
        ("git diff $(rm -rf /)", False),
        ("git diff `whoami`", False),
        ("git diff 'unclosed", False),
    ],
)
def test_bash_prefix_specifier(command: str, allowed: bool) -> None:
    assert (_refusal(["Read", "Bash(git diff:*)"], command) is None) is allowed
    assert "Bash" in offered(["Read", "Bash(git diff:*)"])


def test_bash_specifier_combinations() -> None:
    # every part of a compound command must be covered
    assert _refusal(["Bash(git diff:*)", "Bash(wc:*)"], "git diff | wc -l") is None
    # plain Bash next to a specifier: no restriction
    assert _refusal(["Bash", "Bash(git diff:*)"], "make") is None
    # exact form
    assert _refusal(["Bash(npm test)"], "npm test") is None
    assert _refusal(["Bash(npm test)"], "npm test --watch") is not None
    # denylist specifiers refuse matching parts, even inside compounds
    assert _refusal(None, "rm -rf build", ["Bash(rm:*)"]) is not None
    assert _refusal(None, "ls && rm x", ["Bash(rm:*)"]) is not None
    assert _refusal(None, "ls -la", ["Bash(rm:*)"]) is None
    assert "Bash" in offered(None, ["Bash(rm:*)"])


def test_other_specifiers(tmp_path: Path) -> None:
    f = ToolFilter((ToolRules.from_lists(["Edit(src/**)", "Task(reviewer, tester)",
                                          "WebFetch(domain:example.com)"]),))
    assert f.refusal("Edit", {"file_path": "src/a/b.py"}, tmp_path) is None
    assert f.refusal("Edit", {"file_path": "setup.py"}, tmp_path) is not None
    assert f.refusal("Task", {"subagent_type": "Reviewer"}, tmp_path) is None
    assert f.refusal("Agent", {"subagent_type": "deployer"}, tmp_path) is not None
    assert f.refusal("WebFetch", {"url": "https://docs.example.com/a"}, tmp_path) is None
    assert f.refusal("WebFetch", {"url": "https://evil.com/?example.com"}, tmp_path) is not None


def test_restrict_intersects_and_never_loosens() -> None:
    parent = PermissionPolicy(
        mode="default",
        tools=ToolFilter((ToolRules.from_lists(["Read", "Grep", "Bash", "Write"], ["Write"]),)),
    )
    child = AgentDefinition(name="c", tools=("Read", "Write", "Edit"), permission_mode="acceptEdits")
    eff = parent.restrict(child)
    assert list(eff.tools.apply(TOOLS)) == ["Read"]  # Write: parent denies; Edit: parent lacks
    assert eff.effective_mode is PermissionMode.DEFAULT  # acceptEdits is looser than default
    plan_child = AgentDefinition(name="p", permission_mode="plan")
    assert parent.restrict(plan_child).effective_mode is PermissionMode.PLAN
    # A child without a tools field inherits the parent's tools, never more
    assert list(parent.restrict(AgentDefinition(name="x")).tools.apply(TOOLS)) == [
        "Read", "Bash", "Grep"]
    # Grandchild keeps every layer
    deeper = eff.restrict(AgentDefinition(name="g", tools=None, disallowed_tools=("Read",)))
    assert list(deeper.tools.apply(TOOLS)) == []
    # bypass requested by a child under a parent that does not allow it: default
    bypass_child = AgentDefinition(name="b", permission_mode="bypassPermissions")
    assert parent.restrict(bypass_child).effective_mode is PermissionMode.DEFAULT
    # Bash specifier of the parent still binds the child
    p2 = PermissionPolicy(tools=ToolFilter((ToolRules.from_lists(["Bash(git diff:*)"]),)))
    c2 = p2.restrict(AgentDefinition(name="c2", tools=("Bash",)))
    assert c2.tools.refusal("Bash", {"command": "rm -rf /"}, Path("/tmp")) is not None


async def _decide(policy: PermissionPolicy, name: str, input: dict[str, object],
                  cwd: Path) -> tuple[bool, str]:
    tool = TOOLS[name]
    d = await policy.decide(tool, input, ctx_for(cwd, policy=policy))
    return d.allowed, d.reason


async def test_modes(tmp_path: Path) -> None:
    write = {"file_path": "a.txt", "content": "x"}
    bash = {"command": "echo"}
    read = {"file_path": "a.txt"}
    default = PermissionPolicy()
    assert (await _decide(default, "Read", read, tmp_path))[0]
    ok, reason = await _decide(default, "Write", write, tmp_path)
    assert not ok and "--yes" in reason
    plan = PermissionPolicy(mode="plan")
    assert (await _decide(plan, "Read", read, tmp_path))[0]
    assert not (await _decide(plan, "Bash", bash, tmp_path))[0]
    ok, reason = await _decide(plan, "Write", write, tmp_path)
    assert not ok and "plan" in reason
    accept = PermissionPolicy(mode="acceptEdits")
    assert (await _decide(accept, "Edit", {"file_path": "a.txt", "old_string": "a",
                                           "new_string": "b"}, tmp_path))[0]
    assert not (await _decide(accept, "Bash", bash, tmp_path))[0]
    bypass_off = PermissionPolicy(mode="bypassPermissions")
    assert bypass_off.effective_mode is PermissionMode.DEFAULT
    assert bypass_off.warnings
    assert not (await _decide(bypass_off, "Bash", bash, tmp_path))[0]
    bypass_on = PermissionPolicy(mode="bypassPermissions", allow_bypass=True)
    assert (await _decide(bypass_on, "Bash", bash, tmp_path))[0]
    dont = PermissionPolicy(mode="dontAsk", allow_rules=("Bash(echo:*)",))
    assert (await _decide(dont, "Bash", bash, tmp_path))[0]
    assert not (await _decide(dont, "Bash", {"command": "ls"}, tmp_path))[0]
    manual = PermissionPolicy(mode="manual")
    assert manual.effective_mode is PermissionMode.DEFAULT


async def test_ask_callback_and_allow_rules(tmp_path: Path) -> None:
    seen: list[PermissionRequest] = []

    async def ask(req: PermissionRequest) -> bool:
        seen.append(req)
        return req.tool == "Write"

    policy = PermissionPolicy(ask=ask, allow_rules=("Bash(git status:*)",))
    assert (await _decide(policy, "Bash", {"command": "git status -s"}, tmp_path))[0]
    assert seen == []  # allow rule: no question
    assert (await _decide(policy, "Write", {"file_path": "a", "content": ""}, tmp_path))[0]
    ok, reason = await _decide(policy, "Bash", {"command": "ls"}, tmp_path)
    assert not ok and "refused" in reason
    assert [r.tool for r in seen] == ["Write", "Bash"]


async def test_mcp_tool_permission(tmp_path: Path) -> None:
    policy = PermissionPolicy()
    ro = McpTool("mcp__docs__search", read_only=True)
    rw = McpTool("mcp__github__create_issue")
    assert (await policy.decide(ro, {}, ctx_for(tmp_path))).allowed
    assert not (await policy.decide(rw, {}, ctx_for(tmp_path))).allowed


async def test_writes_outside_the_working_folder(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, work / "link")
    policy = PermissionPolicy(mode="bypassPermissions", allow_bypass=True)
    for path in ("../outside/x.txt", str(outside / "x.txt"), "link/x.txt", "~/x.txt"):
        ok, reason = await _decide(policy, "Write", {"file_path": path, "content": ""}, work)
        assert not ok, path
        assert "outside the working folder" in reason
    assert (await _decide(policy, "Write", {"file_path": "sub/x.txt", "content": ""}, work))[0]
    extra = PermissionPolicy(mode="acceptEdits", writable_dirs=(outside,))
    assert (await _decide(extra, "Write", {"file_path": "link/x.txt", "content": ""}, work))[0]


@pytest.mark.parametrize(("command", "hint"), [
    ("git diff --stat", "Bash(git diff:*)"),
    ("git diff | wc -l", "Bash(git diff:*) and Bash(wc -l:*)"),
    ("echo hi > out.txt", "Bash"),          # a prefix rule never covers redirection
    ("echo $(whoami)", "Bash"),             # nor command substitution
])
async def test_refusal_hint_suggests_a_rule_that_would_work(
    tmp_path: Path, command: str, hint: str
) -> None:
    decision = await PermissionPolicy().decide(TOOLS["Bash"], {"command": command},
                                               ctx_for(tmp_path))
    assert not decision.allowed and decision.unasked
    assert f"e.g. {hint})" in decision.reason
    # ... and the suggested rule really lets the same call through without asking
    rules = tuple(hint.split(" and "))
    allowed = await PermissionPolicy(allow_rules=rules).decide(
        TOOLS["Bash"], {"command": command}, ctx_for(tmp_path))
    assert allowed.allowed


async def test_only_a_missing_callback_counts_as_unasked(tmp_path: Path) -> None:
    async def no(req: PermissionRequest) -> bool:
        return False

    write = {"file_path": "a.txt", "content": "x"}
    for policy in (PermissionPolicy(mode="plan"), PermissionPolicy(mode="dontAsk"),
                   PermissionPolicy(ask=no)):
        decision = await policy.decide(TOOLS["Write"], write, ctx_for(tmp_path))
        assert not decision.allowed and not decision.unasked, policy.mode
    outside = await PermissionPolicy().decide(
        TOOLS["Write"], {"file_path": "../x.txt", "content": ""}, ctx_for(tmp_path))
    assert not outside.allowed and not outside.unasked


async def test_an_agents_own_mode_that_cannot_apply_is_warned_about(tmp_path: Path) -> None:
    from subagents.runtime.runner import AgentRunner
    from subagents.testing import ScriptedModel, text, tool_call

    agent = AgentDefinition(name="yolo", system_prompt="x", tools=("Write",),
                            permission_mode="bypassPermissions")
    model = ScriptedModel([tool_call("Write", {"file_path": "a.txt", "content": "x"}),
                           text("ok")])
    result = await AgentRunner(model, cwd=tmp_path, transcripts=False, parent_model="m").run(
        agent, "go")
    assert any("bypassPermissions" in w and "allow-bypass-permissions" in w
               for w in result.warnings)
    assert not (tmp_path / "a.txt").exists()  # default mode, nobody to ask: refused
    allowed = PermissionPolicy(allow_bypass=True)
    assert allowed.warnings_for(agent) == ()
    odd = AgentDefinition(name="odd", system_prompt="x", permission_mode="yolo")
    assert "unknown permissionMode 'yolo'" in PermissionPolicy().warnings_for(odd)[0]
    assert PermissionPolicy().warnings_for(AgentDefinition(name="n", system_prompt="x")) == ()
