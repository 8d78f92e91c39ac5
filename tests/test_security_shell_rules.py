"""Issue 12, item 2: permission rules judged on a parsed command, failing closed.

Every spelling below got through the old string-prefix checks (0.1.0); each is an attack a
hostile model can type.  Allow rules must cover only plain literal commands; deny rules must
find the program wherever bash would run it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hypothesis_helpers import examples
from runtime_helpers import ctx_for
from subagents.definition import AgentDefinition
from subagents.dispatch.dispatcher import AgentDispatcher
from subagents.runtime.permissions import PermissionPolicy, ToolFilter, ToolRules
from subagents.runtime.runner import AgentRunner
from subagents.runtime.shellparse import deny_matches, plain_commands
from subagents.testing import ScriptedModel, text, tool_call


def refusal(allow: list[str] | None, command: str, deny: list[str] | None = None) -> str | None:
    f = ToolFilter((ToolRules.from_lists(allow, deny),))
    return f.refusal("Bash", {"command": command}, Path("/tmp"))


# ------------------------------------------------------------------ allow rules

ALLOW_ESCAPES = [
    "git diff ${x@P}",                          # prompt-string expansion runs $(...) inside
    "git diff ${a[$'\\x24(id)']}",               # array subscript with ANSI-C quoting
    "git diff --output=/tmp/anywhere",          # an option that writes a file
    "git diff --output /tmp/anywhere",
    "git diff --ext-diff",
    "git diff $HOME",
    "git diff $(id)",
    "git diff `id`",
    "git diff > /tmp/x",
    "git diff 2>/tmp/x",
    "git diff <<< x",
    "git diff <(id)",
    "GIT_EXTERNAL_DIFF=/tmp/evil git diff",     # an assignment that changes what runs
    "git diff & id",
    "git diff\nid",
    "(git diff)",
    "{ git diff; }",
    "git diff *",                               # pathname expansion
    "git diff {a,b}",                           # brace expansion
    "git diff ~root",                           # tilde expansion
    "git diff $((1+1))",
    "git diff 'unterminated",
    "if true; then git diff; fi",
    "f() { id; }; git diff",
    "git -c core.pager=id diff",
]


@pytest.mark.parametrize("command", ALLOW_ESCAPES)
def test_an_allow_rule_covers_only_a_plain_literal_command(command: str) -> None:
    assert refusal(["Bash(git diff:*)"], command) is not None, command


@pytest.mark.parametrize("command", [
    "git diff", "git diff --stat HEAD~1", "git diff -- 'src/a b.py'", 'git diff "HEAD"',
    "git diff HEAD@{1}", "git diff --cached  # what is staged",
])
def test_plain_commands_are_still_covered(command: str) -> None:
    assert refusal(["Bash(git diff:*)"], command) is None, command


def test_a_rule_that_names_the_option_covers_it() -> None:
    assert refusal(["Bash(git diff --output:*)"], "git diff --output x.patch") is None
    assert refusal(["Bash(git diff:*)", "Bash(wc:*)"], "git diff | wc -l") is None
    assert refusal(["Bash(find:*)"], "find . -name '*.py' -exec rm {} ;") is not None
    assert refusal(["Bash(sort:*)"], "sort -o /etc/x a") is not None


# ------------------------------------------------------------------ deny rules

DENY_SPELLINGS = [
    "rm -rf x", "env rm x", "/bin/rm x", "X=1 rm x", "{ rm x; }", "$'rm' x", '"rm" x',
    "r\\m x", "r''m x", "\\rm x", "$'\\x72m' x", "echo hi\nrm x", "echo ok; rm x",
    "true && rm x", "false || rm x", "ls | rm x", "echo $(rm x)", "echo `rm x`", "(rm x)",
    "cat <(rm x)", "ls >(rm x)", "command rm x", "exec rm x", "nice -n 5 rm x",
    "sudo -u root rm x", "nohup rm x", "timeout 5 rm x", "xargs rm", "env -i PATH=/bin rm x",
    "env -S 'rm x'", "bash -c 'rm x'", "sh -c \"rm x\"", "eval 'rm x'", "eval \"$cmd\"",
    "if true; then rm x; fi", "for f in a; do rm $f; done", "f() { rm x; }; f",
    "case a in a) rm x;; esac", "x=$(rm x)", "declare y=$(rm x)", "! rm x",
    "find . -exec rm {} ;", "watch 'rm x'", "cat <<EOF\n$(rm x)\nEOF",
    "$cmd x",                 # a program we cannot know: counts as a match
    "/bin/r? x",              # a glob that may expand to rm
    "echo 'unterminated",     # cannot parse: counts as a match
    "bash -c \"eval 'sh -c \\\"rm x\\\"'\"",
]


@pytest.mark.parametrize("command", DENY_SPELLINGS)
def test_a_deny_rule_catches_every_spelling(command: str) -> None:
    assert refusal(None, command, ["Bash(rm:*)"]) is not None, command


@pytest.mark.parametrize("command", ["ls -la", "echo rm", "grep -r rm .", "git status",
                                     "find . -name '*.py'", "rmdir x", "cat rm.txt"])
def test_a_deny_rule_leaves_other_commands_alone(command: str) -> None:
    assert refusal(None, command, ["Bash(rm:*)"]) is None, command


def test_deny_rule_with_arguments_finds_them_in_order() -> None:
    assert deny_matches("git push:*", "git -C sub push origin")
    assert deny_matches("git push:*", "git --no-pager push")
    assert not deny_matches("git push:*", "git status")


@settings(max_examples=examples(200), deadline=None)
@given(st.text(max_size=200))
def test_parsing_never_raises(command: str) -> None:
    plain_commands(command)
    deny_matches("rm:*", command)


def test_a_long_chain_of_wrappers_stays_linear() -> None:
    assert deny_matches("rm:*", "xargs " * 3000 + "rm")
    assert not deny_matches("rm:*", "xargs " * 3000 + "ls")


# ------------------------------------------------------------------ Agent rules

@pytest.mark.parametrize("name", ["deployer", "de-ployer", "Deploy_Er", "  deployer  ",
                                  "DEPLOYER", "deploy.er", "plugin:deployer"])
def test_agent_deny_uses_the_lookups_normalisation(name: str) -> None:
    f = ToolFilter((ToolRules.from_lists(None, ["Agent(deployer)"]),))
    assert f.refusal("Agent", {"subagent_type": name, "prompt": "x"}, Path("/tmp")), name
    assert f.refusal("Task", {"subagent_type": name, "prompt": "x"}, Path("/tmp")), name
    assert f.refusal("Agent", {"subagent_type": "reviewer", "prompt": "x"}, Path("/tmp")) is None


def test_agent_rules_cover_the_per_agent_tools() -> None:
    deny = ToolFilter((ToolRules.from_lists(None, ["Agent(deployer)"]),))
    assert deny.refusal("agent__deployer", {"prompt": "x"}, Path("/tmp"))
    assert deny.refusal("agent__Deploy-er_2", {"prompt": "x"}, Path("/tmp"))
    assert deny.refusal("agent__reviewer", {"prompt": "x"}, Path("/tmp")) is None
    # a plain ``Agent`` in the denylist removes them all; an allowlist names them by agent
    assert not ToolFilter((ToolRules.from_lists(None, ["Agent"]),)).offers("agent__reviewer")
    allow = ToolFilter((ToolRules.from_lists(["Agent(reviewer)"]),))
    assert allow.offers("agent__reviewer")
    assert allow.refusal("agent__reviewer", {"prompt": "x"}, Path("/tmp")) is None
    assert allow.refusal("agent__deployer", {"prompt": "x"}, Path("/tmp"))


async def test_a_denied_agent_is_not_run_through_its_own_tool(tmp_path: Path) -> None:
    deployer = AgentDefinition(name="deployer", description="deploys", system_prompt="deploy")
    main = AgentDefinition(name="main", description="m", system_prompt="m",
                           disallowed_tools=["Agent(deployer)"])
    model = ScriptedModel([tool_call("agent__deployer", {"prompt": "ship it"}),
                           tool_call("Agent", {"prompt": "ship", "subagent_type": "De-Ployer"}),
                           text("done")])
    runner = AgentRunner(model, cwd=tmp_path, transcripts=False)
    dispatcher = AgentDispatcher([deployer], runner=runner)
    result = await runner.run(main, "go", extra_tools=[*dispatcher.agent_tools(),
                                                       dispatcher.task_tool()])
    assert [c.refusal for c in result.tool_calls] == ["rule", "rule"]
    assert result.children == ()


async def test_policy_allow_rules_use_the_parser_too(tmp_path: Path) -> None:
    from subagents.runtime.tools import builtin_tools

    bash = builtin_tools()["Bash"]
    policy = PermissionPolicy(allow_rules=("Bash(git diff:*)",))
    ok = await policy.decide(bash, {"command": "git diff --stat"}, ctx_for(tmp_path))
    assert ok.allowed
    bad = await policy.decide(bash, {"command": "git diff --output=/tmp/x"}, ctx_for(tmp_path))
    assert not bad.allowed


def test_input_that_crashed_the_grammar_is_judged() -> None:
    # tree-sitter-bash's scanner segfaulted on this (found by hypothesis): the parser now
    # sees ASCII only, and the words are read back from the original text.
    assert plain_commands("echo {\U0009ed29\u00a4") == [["echo", "{\U0009ed29\u00a4"]]
    assert not deny_matches("rm:*", "echo {\U0009ed29\u00a4")
    assert deny_matches("rm:*", "{\U0009ed29\u00a4; rm x")
    assert plain_commands("git diff é.txt") == [["git", "diff", "é.txt"]]
    assert deny_matches("rm:*", "echo é; rm x")


@pytest.mark.parametrize("command", ["rm -rf x", "rm -r -f x", "rm -fr x", "rm -rfv x",
                                     "rm -f -v -r x", "rm $flags x"])
def test_a_deny_rule_with_an_option_bundle_matches_any_spelling_of_it(command: str) -> None:
    assert deny_matches("rm -rf:*", command), command


@pytest.mark.parametrize("command", ["rm x", "rm -r x", "rm -f x"])
def test_an_option_bundle_rule_needs_all_its_letters(command: str) -> None:
    assert not deny_matches("rm -rf:*", command), command


@pytest.mark.parametrize(("rule", "command"), [
    ("rm -rf:*", "rm --recursive --force x"),
    ("rm -rf:*", "rm --force -r x"),
    ("rm -rf:*", "rm -R -f x"),
    ("rm -rf:*", "rm --rec --f x"),  # getopt_long takes unambiguous prefixes
    ("rm -rf:*", "/bin/rm -v --recursive=x -f y"),
    ("rm -r:*", "rm --recursive x"),
    ("rm -r:*", "rm -fr x"),
    ("rm --recursive:*", "rm -r x"),
    ("chmod -R:*", "chmod --recursive 777 /"),
    ("chown -R:*", "chown --recursive me /"),
    ("chgrp -R:*", "chgrp --recursive me /"),
    ("git clean -fd:*", "git clean --force -d"),
    ("git clean -f:*", "git -C sub clean --force"),
])
def test_a_deny_rule_matches_the_long_spelling_of_its_options(rule: str, command: str) -> None:
    assert deny_matches(rule, command), (rule, command)


@pytest.mark.parametrize(("rule", "command"), [
    ("rm -rf:*", "rm --recursive x"),
    ("rm -rf:*", "rm --force x"),
    ("chmod -R:*", "chmod -r x"),  # chmod's -r is a mode (no read), not recursion
    ("git clean -f:*", "git clean --dry-run"),
])
def test_a_long_option_counts_only_for_its_own_letter(rule: str, command: str) -> None:
    assert not deny_matches(rule, command), (rule, command)
