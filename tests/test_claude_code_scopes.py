"""Plugins, ``--agents``, trusted folders, live MCP servers and an alias bomb, each fact read
against what the real Claude Code 2.1.332 did (``subagents/conformance/data``, recorded cases of
``cases_scopes`` and ``cases_details``).  No Claude Code is needed: the tests lay each recorded
case out and read it with this project's registry, ``validate`` and launch rules."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from subagents.claude_code.agents_flag import agents_flag_problem
from subagents.claude_code.launch import effort_sent, servers_started
from subagents.claude_code.profile import get_profile
from subagents.claude_code.reader import read_claude_code
from subagents.cli.main import cli
from subagents.conformance import case_by_id, load_expectations
from subagents.conformance.casekit import fill
from subagents.conformance.model import CaseResult
from subagents.definition import Scope
from subagents.registry.core import AgentRegistry

VERSION = "2.1.332"


@pytest.fixture(scope="module")
def recording():  # type: ignore[no-untyped-def]
    return load_expectations(VERSION)


def _lay_out(case_id: str, tmp: Path) -> tuple[Path, Path]:
    case = case_by_id(case_id)
    project, home = tmp / "project", tmp / "home"
    (project / ".git").mkdir(parents=True)
    home.mkdir()
    case.materialise(project, home)
    return project, home


def _registry(case_id: str, tmp: Path) -> tuple[AgentRegistry, Path, Path]:
    case = case_by_id(case_id)
    project, home = _lay_out(case_id, tmp)
    cli_text = fill(case.cli_agents, project, home) if case.cli_agents is not None else None
    reg = AgentRegistry(project, home=home, claude_code=VERSION, cli_agents=cli_text,
                        plugin_dirs=[project / p for p in case.plugin_dirs]).load_all()
    return reg, project, home


def _ids(result: CaseResult) -> set[str]:
    return {a.name for a in result.agents}


# --------------------------------------------------------------------------------- plugins


def test_plugin_ids_stems_stock_descriptions_and_colons(recording, tmp_path: Path) -> None:
    result = recording.case("plugin-ids")
    assert _ids(result) == {"acme:reviewer", "acme:team:deep:lead", "acme:nameless-helper",
                            "acme:quiet", "acme:ns:inner"}
    assert result.agent("acme:quiet").description == "Agent from acme plugin"
    reg, _, _ = _registry("plugin-ids", tmp_path)
    got = {e.name: e for e in reg.list()}
    assert _ids(result) <= set(got)
    for agent in result.agents:
        assert got[agent.name].description == agent.description


def test_plugin_names_come_from_the_manifest_or_the_folder(recording, tmp_path: Path) -> None:
    result = recording.case("plugin-names")
    assert _ids(result) == {"acme-tools:fmt", "loose:helper"}
    reg, _, _ = _registry("plugin-names", tmp_path)
    assert {e.name for e in reg.list() if e.source is Scope.PLUGIN} == _ids(result)


def test_a_manifest_agents_list_replaces_the_agents_folder(recording, tmp_path: Path) -> None:
    result = recording.case("plugin-manifest-agents")
    assert _ids(result) == {"acme:listed"}
    assert any("not auto-loaded" in line for line in result.debug)
    reg, _, _ = _registry("plugin-manifest-agents", tmp_path)
    assert {e.name for e in reg.list() if e.source is Scope.PLUGIN} == {"acme:listed"}


def test_a_plugin_agent_whose_yaml_fails_twice_still_loads(recording, tmp_path: Path) -> None:
    result = recording.case("plugin-bad-yaml")
    broken = result.agent("acme:broken")
    assert broken is not None and broken.description == "Agent from acme plugin"
    assert broken.tools == "All tools"  # its `tools: Read` is lost
    reg, _, _ = _registry("plugin-bad-yaml", tmp_path)
    entry = reg.entry("acme:broken")
    assert entry.description == "Agent from acme plugin" and entry.header.tools is None
    assert reg.entry("acme:lenient").header.tools == ("Read",)


def test_fields_ignored_for_plugin_agents_are_ignored_and_are_errors(
    recording, tmp_path: Path,
) -> None:
    result = recording.case("plugin-ignored-fields")
    warned = [line for line in result.debug if "ignored for plugin agents" in line]
    assert [w.split(" sets ")[1].split(",")[0] for w in warned] == [
        "permissionMode", "hooks", "mcpServers"]
    (spawned,) = result.spawned
    assert spawned.mcp == ()  # its MCP server never started, although the folder is trusted
    reg, project, home = _registry("plugin-ignored-fields", tmp_path)
    defn = reg.entry("acme:guarded").definition
    assert defn.permission_mode is None and not defn.hooks and not defn.mcp_servers
    assert servers_started(defn, cwd=project, home=home) == ()
    agent_file = project / "plugins/acme/agents/guarded.md"
    out = CliRunner().invoke(cli, ["validate", "--format", "json", str(agent_file)])
    found = json.loads(out.output)["diagnostics"]
    ignored = [d for d in found if d["rule"] == "SA021" and "plugin" in d["message"]]
    assert [d["severity"] for d in ignored] == ["error"] * 3, out.output
    assert out.exit_code == 1


def test_a_project_agent_and_a_plugin_agent_of_one_name_stay_apart(
    recording, tmp_path: Path,
) -> None:
    result = recording.case("plugin-precedence")
    assert _ids(result) == {"shared", "acme:shared"}
    reg, _, _ = _registry("plugin-precedence", tmp_path)
    assert {"shared", "acme:shared"} <= set(reg.names())


# --------------------------------------------------------------------------------- --agents


def test_valid_agents_values_load_beat_the_folders_and_may_hold_a_colon(
    recording, tmp_path: Path,
) -> None:
    result = recording.case("cli-agents-valid")
    assert _ids(result) == {"cli-over", "cli:colon"}
    assert result.agent("cli-over").description == "From --agents."
    (spawned,) = result.spawned
    assert spawned.param("output_config") == '{"effort":"high"}'
    reg, _, _ = _registry("cli-agents-valid", tmp_path)
    assert reg.entry("cli-over").source is Scope.CLI
    assert reg.entry("cli:colon").description == "A colon key."
    assert effort_sent(reg.entry("cli-over").definition.effort,
                       get_profile(VERSION).efforts) == "high"


REFUSED = ("cli-agents-no-description", "cli-agents-tools-string", "cli-agents-dash-key",
           "cli-agents-bad-json", "cli-agents-tools-null", "cli-agents-no-prompt")


@pytest.mark.parametrize("case_id", REFUSED)
def test_one_bad_agents_entry_and_nothing_starts(recording, case_id: str,
                                                 tmp_path: Path) -> None:
    result = recording.case(case_id)
    assert result.startup_error is not None
    assert result.startup_error.startswith("Error: Invalid --agents configuration")
    assert result.agents == () and result.spawned == ()
    text = case_by_id(case_id).cli_agents
    assert text is not None and agents_flag_problem(text) is not None
    # the registry loads none of the value and says why, as an error
    reg, project, _ = _registry(case_id, tmp_path)
    assert not [e for e in reg.list() if e.source is Scope.CLI]
    refusal = [d for d in reg.diagnostics() if d.path == "--agents"]
    assert refusal and refusal[0].severity.value == "error"
    assert "refuses to start" in refusal[0].message
    # a command given the value refuses to run anything, with a clear message, exit 2
    out = CliRunner().invoke(cli, ["list", "--cwd", str(project), "--agents", text])
    said = "not valid JSON" if case_id.endswith("bad-json") else "refuses to start"
    assert out.exit_code == 2 and said in out.output
    assert "Traceback" not in out.output
    ran = CliRunner().invoke(cli, ["run", "--cwd", str(project), "--agents", text,
                                   "cli-present", "hello"])
    assert ran.exit_code == 2 and said in ran.output
    # validate of the same JSON as a file says so as an error
    agents_file = tmp_path / "agents.json"
    agents_file.write_text(text, encoding="utf-8")
    out = CliRunner().invoke(cli, ["validate", "--format", "json", str(agents_file)])
    found = json.loads(out.output)["diagnostics"]
    assert any(d["severity"] == "error" and "refuse to start" in d["message"] for d in found)
    assert out.exit_code == 1


def test_the_agents_check_lets_a_colon_through_and_points_at_the_entry() -> None:
    assert agents_flag_problem('{"a:b": {"description": "d", "prompt": "p"}}') is None
    problem = agents_flag_problem(
        '{\n  "ok": {"description": "d", "prompt": "p"},\n  "bad": {"prompt": "p"}\n}')
    assert problem is not None and (problem.line, problem.column) == (3, 3)
    assert problem.agent == "bad" and problem.rule == "SA103"


# --------------------------------------------------------------------------------- MCP and trust


@pytest.mark.parametrize("case_id", ["mcp-list-trusted", "mcp-list-untrusted",
                                     "mcp-map-trusted", "mcp-named-server", "mcp-bad-items",
                                     "field-mcp-servers-list", "field-mcp-servers-map"])
def test_the_mcp_servers_a_launched_agent_gets(recording, case_id: str,
                                               tmp_path: Path) -> None:
    result = recording.case(case_id)
    (spawned,) = result.spawned
    theirs = sorted({n.split("__")[1] for n in spawned.mcp})
    reg, project, home = _registry(case_id, tmp_path)
    defn = reg.entry(spawned.name).definition
    assert sorted(servers_started(defn, cwd=project, home=home)) == theirs


def test_the_recorded_mcp_facts(recording) -> None:
    assert recording.case("mcp-list-trusted").spawned[0].mcp == ("mcp__probelist__zaplist",)
    assert recording.case("mcp-named-server").spawned[0].mcp == ("mcp__homeprobe__zaphome",)
    assert recording.case("mcp-bad-items").spawned[0].mcp == ("mcp__goodprobe__zapgood",)
    assert recording.case("mcp-map-trusted").spawned[0].mcp == ()
    assert any("not trusted" in line for line in recording.case("mcp-list-untrusted").debug)


def test_mcp_items_that_are_not_servers_are_errors(tmp_path: Path) -> None:
    case = case_by_id("mcp-bad-items")
    project, _ = _lay_out("mcp-bad-items", tmp_path)
    path = project / ".claude" / "agents" / next(iter(case.files))
    out = CliRunner().invoke(cli, ["validate", "--format", "json", str(path)])
    found = json.loads(out.output)["diagnostics"]
    dropped = [d for d in found if "not servers" in d["message"]]
    assert dropped and dropped[0]["severity"] == "error" and dropped[0]["rule"] == "SA021"


@pytest.mark.parametrize("case_id", ["hooks-untrusted", "mcp-list-untrusted"])
def test_doctor_says_the_folder_is_not_trusted(recording, case_id: str, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    result = recording.case(case_id)
    assert any(line.startswith("ERROR Skipping frontmatter") and "not trusted" in line
               for line in result.debug)
    assert len(result.agents) == 1  # the agent itself loads
    project, home = _lay_out(case_id, tmp_path)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(project)
    out = CliRunner().invoke(cli, ["doctor"], env={"HOME": str(home)})
    assert "does not trust" in out.output and result.agents[0].name in out.output


def test_a_trusted_folder_is_not_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                          ) -> None:
    project, home = _lay_out("mcp-list-trusted", tmp_path)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(project)
    out = CliRunner().invoke(cli, ["doctor"], env={"HOME": str(home)})
    assert "does not trust" not in out.output


# --------------------------------------------------------------------------------- the rest


def test_an_alias_bomb_loads_with_literal_values(recording, tmp_path: Path) -> None:
    result = recording.case("yaml-alias-bomb")
    bomb = result.agent("yaml-bomb")
    assert bomb is not None and bomb.tools == "*i"
    reg, _, _ = _registry("yaml-alias-bomb", tmp_path)
    assert reg.entry("yaml-bomb").header.tools == ("*i",)


def test_effort_as_claude_code_sends_it(recording) -> None:
    result = recording.case("field-effort-values")
    case = case_by_id("field-effort-values")
    efforts = get_profile(VERSION).efforts
    by_name = {s.name: s for s in result.spawned}
    assert by_name["effort-none"].param("output_config") == '{"effort":"medium"}'
    assert by_name["effort-number"].param("output_config") == "(absent)"
    for data in case.files.values():
        view = read_claude_code(data)
        assert view.name is not None
        sent = effort_sent(view.frontmatter.get("effort"), efforts)
        want = "(absent)" if sent is None else json.dumps({"effort": sent},
                                                          separators=(",", ":"))
        assert by_name[view.name].param("output_config") == want


def test_user_scope_precedence(recording, tmp_path: Path) -> None:
    result = recording.case("user-scope-precedence")
    assert result.agent("Explore") is not None and result.agent("Explore").overrides_builtin
    assert {"Helper", "helper"} <= _ids(result)
    reg, _, _ = _registry("user-scope-precedence", tmp_path)
    assert reg.entry("Explore").source is Scope.USER
    assert reg.entry("Helper").source is Scope.USER and reg.entry("helper").source is (
        Scope.PROJECT)


def test_every_new_case_is_recorded_without_run_errors(recording) -> None:
    from subagents.conformance.cases_details import DETAIL_CASES
    from subagents.conformance.cases_scopes import SCOPE_CASES

    for case in (*DETAIL_CASES, *SCOPE_CASES):
        result = recording.case(case.id)
        assert result.errors == (), (case.id, result.errors)


def test_cases_write_their_paths_into_home_and_links(tmp_path: Path) -> None:
    project, home = _lay_out("files-user-folder-link", tmp_path)
    assert os.path.islink(home / ".claude" / "agents")
    assert os.readlink(home / ".claude" / "agents") == str(home / "shared-agents")
    project, home = _lay_out("mcp-list-trusted", tmp_path / "two")
    trust = json.loads((home / ".claude.json").read_text())
    assert trust["projects"] == {str(project): {"hasTrustDialogAccepted": True}}


@settings(max_examples=200, deadline=None)
@given(st.one_of(
    st.text(max_size=200),
    st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                 lambda inner: st.lists(inner, max_size=3)
                 | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                 max_leaves=12).map(json.dumps),
))
def test_the_agents_check_never_raises(text: str) -> None:
    problem = agents_flag_problem(text)
    assert problem is None or (problem.line >= 1 and problem.column >= 1 and problem.message)


def test_the_agents_check_on_hostile_values() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    problem = agents_flag_problem(deep)
    assert problem is not None and problem.rule == "SA016"
    assert agents_flag_problem('{"a": {"description": "d", "tools": null}}') is not None
    assert agents_flag_problem('{"\\u00e9t\\u00e9": {"prompt": "p"}}') is not None


def test_validate_reads_a_plugin_agent_on_its_own_terms(recording, tmp_path: Path) -> None:
    """No name and no description: Claude Code loads a plugin's agent anyway (plugin-ids), so
    validate counts it and does not call it skipped."""
    assert {"acme:quiet", "acme:nameless-helper"} <= _ids(recording.case("plugin-ids"))
    project, _ = _lay_out("plugin-ids", tmp_path)
    files = [str(project / "plugins/acme/agents" / f) for f in ("quiet.md", "nameless-helper.md")]
    out = CliRunner().invoke(cli, ["validate", "--format", "json", *files])
    report = json.loads(out.output)
    assert report["summary"]["agents"] == 2 and report["summary"]["errors"] == 0, out.output
    assert out.exit_code == 0


def test_hooks_that_keep_a_project_agent_out_do_not_keep_a_plugin_agent_out(
    recording, tmp_path: Path,
) -> None:
    result = recording.case("plugin-broken-hooks")
    assert _ids(result) == {"acme:hooks-string", "acme:hooks-guard"}
    reg, project, _ = _registry("plugin-broken-hooks", tmp_path)
    assert {"acme:hooks-string", "acme:hooks-guard"} <= set(reg.names())
    assert not reg.entry("acme:hooks-guard").definition.hooks
    out = CliRunner().invoke(cli, ["validate", "--format", "json",
                                   str(project / "plugins/acme/agents/hooks-guard.md")])
    found = json.loads(out.output)["diagnostics"]
    ignored = [d for d in found if d["rule"] == "SA021" and "plugin" in d["message"]]
    assert ignored and ignored[0]["severity"] == "error", out.output
    assert "not loaded" not in out.output
