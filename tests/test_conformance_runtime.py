"""`subagents run` against the runtime recording of the real Claude Code, aspect by aspect.

The recording (``subagents/conformance/data/claude-code-2.1.332-runtime.json``) holds what
Claude Code sent the model in each scenario of ``subagents.conformance.runtime_cases``, reduced
to structure.  These tests run the same scenarios through ``subagents run`` against the scripted
fake API (offline, in-process) and compare.  Every difference must be a documented deliberate
one or a listed gap (``data/claude-code-2.1.332-runtime-differences.json``); a listed gap that agrees now fails the
test too, so the list cannot go stale (a ratchet).

The slow test re-records with the real CLI when ``SUBAGENTS_CLAUDE_CODE`` names the binary.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from subagents.conformance.__main__ import main as conformance_main
from subagents.conformance.harness import netns_available
from subagents.conformance.model import DataFileError, dump_json
from subagents.conformance.runtime_cases import (
    AGENTS,
    SCENARIOS,
    build_project,
    conversation_marker,
    responder,
    scenario_by_id,
)
from subagents.conformance.runtime_compare import (
    Deliberate,
    Differences,
    check,
    compare_scenario,
    differences_path,
    load_differences,
    load_runtime_recording,
    runtime_data_path,
)
from subagents.conformance.runtime_fingerprint import classify, fingerprint, mask
from subagents.conformance.runtime_record import Capture, fingerprint_ours
from subagents.testing.server import RecordedRequest

DOCS = Path(__file__).resolve().parents[1] / "docs"


# --- the comparison with our run (the point of it all) ----------------------------------------


@pytest.mark.parametrize("scenario_id", [s.id for s in SCENARIOS])
def test_scenario_agrees_or_is_a_listed_difference(scenario_id: str) -> None:
    recording = load_runtime_recording()
    differences = load_differences()
    scenario = scenario_by_id(scenario_id)
    ours = fingerprint_ours(scenario)
    assert ours["problems"] == [], ours["problems"]
    report = compare_scenario(scenario_id, recording["scenarios"][scenario_id], ours,
                              differences)
    assert report.total > 0
    problems = check([report], differences, stale=False)
    assert problems == [], "\n".join(problems)


def test_every_deliberate_entry_still_differs() -> None:
    """Each deliberate entry is checked on the first scenario whose recording it matches."""
    recording = load_runtime_recording()["scenarios"]
    differences = load_differences()
    chosen: dict[str, list[Deliberate]] = {}
    for entry in differences.deliberate:
        where = [s.id for s in SCENARIOS if fnmatch.fnmatchcase(s.id, entry.scenario)
                 and any(fnmatch.fnmatchcase(a, entry.aspect) for a in recording[s.id]["aspects"])]
        assert where, f"{entry.aspect}: no recorded scenario has it"
        chosen.setdefault(where[0], []).append(entry)
    for scenario_id, entries in chosen.items():
        ours = fingerprint_ours(scenario_by_id(scenario_id))
        only = Differences(tuple(entries), differences.gaps)
        report = compare_scenario(scenario_id, recording[scenario_id], ours, only)
        stale = [p for p in check([report], only) if "matches no difference" in p]
        assert stale == [], stale


# --- the data files ---------------------------------------------------------------------------


def test_recording_covers_every_scenario_in_the_stable_form() -> None:
    path = runtime_data_path()
    text = path.read_text(encoding="utf-8")
    data = json.loads(text)
    assert dump_json(data) == text, "not in the stable form (sorted keys, 2-space indent)"
    assert data["version"] == "2.1.332" and data["harness"] == "claude-code"
    assert sorted(data["scenarios"]) == sorted(s.id for s in SCENARIOS)
    for scenario_id, recorded in data["scenarios"].items():
        assert recorded["problems"] == [], scenario_id
        assert recorded["aspects"], scenario_id
        assert recorded["about"] == scenario_by_id(scenario_id).about


_OURS = {s.about for s in SCENARIOS}


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for k, v in value.items() for s in [str(k), *_strings(v)]]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def test_recording_keeps_no_text_of_claude_codes_own() -> None:
    """Names, kinds, tags, counts and hashes only: no sentence survives the fingerprint."""
    data = load_runtime_recording()
    prose = [s for s in _strings(data) if s not in _OURS and (" " in s or len(s) > 60)]
    assert prose == []


def test_differences_file_names_real_scenarios_and_gives_reasons() -> None:
    differences = load_differences()
    ids = {s.id for s in SCENARIOS}
    assert set(differences.gaps) <= ids
    recording = load_runtime_recording()
    for scenario_id, gaps in differences.gaps.items():
        for aspect, area in gaps.items():
            assert area.strip(), (scenario_id, aspect)
            assert aspect.startswith(("main.", "child:", "result.", "outcome.")), aspect
        # a gap names an aspect one side has (else it could never close)
        known = set(recording["scenarios"][scenario_id]["aspects"])
        ours_only = {a for a in gaps if a not in known}
        assert all(".tool." in a or ".schema." in a or a.startswith("result.")
                   for a in ours_only), ours_only
    for entry in differences.deliberate:
        assert len(entry.reason) > 20
    both = [(s, a) for s, gaps in differences.gaps.items() for a in gaps
            if differences.why_deliberate(s, a) is not None]
    assert both == [], "listed as a gap and as deliberate"


def test_every_deliberate_reason_is_in_the_runtime_docs() -> None:
    text = (DOCS / "runtime.md").read_text(encoding="utf-8")
    assert "2.1.332" in text and "What stays ours" in text
    for entry in load_differences().deliberate:
        assert f"`{entry.aspect}`" in text, f"{entry.aspect} is not listed in docs/runtime.md"


def test_bad_differences_file_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "d.json"
    bad.write_text('{"deliberate": [{"scenario": "*", "aspect": "x"}]}')
    with pytest.raises(DataFileError, match="deliberate entry 1 needs"):
        load_differences(bad)
    bad.write_text('{"gaps": {"main-thread": ["x"]}}')
    with pytest.raises(DataFileError, match="'gaps' must map"):
        load_differences(bad)
    bad.write_text("{not json")
    with pytest.raises(DataFileError, match=r"d\.json"):
        load_differences(bad)


# --- the comparison itself cannot pass vacuously ----------------------------------------------


def _fp(aspects: dict[str, Any]) -> dict[str, Any]:
    return {"about": "x", "aspects": aspects, "info": {}, "problems": []}


def test_a_new_difference_is_reported() -> None:
    diff = Differences((), {})
    report = compare_scenario("s", _fp({"main.max_tokens": 128000}),
                              _fp({"main.max_tokens": 8192}), diff)
    assert [a.status for a in report.aspects] == ["new"]
    assert any("main.max_tokens differs and is not listed" in p for p in check([report], diff))


def test_a_closed_gap_fails_until_it_leaves_the_list() -> None:
    diff = Differences((), {"s": {"main.max_tokens": "context"}})
    same = compare_scenario("s", _fp({"main.max_tokens": 1}), _fp({"main.max_tokens": 1}), diff)
    assert same.closed_gaps == ("main.max_tokens",)
    assert any("agrees now" in p for p in check([same], diff))
    still = compare_scenario("s", _fp({"main.max_tokens": 1}), _fp({"main.max_tokens": 2}),
                             diff)
    assert [a.status for a in still.aspects] == ["gap"] and check([still], diff) == []


def test_an_aspect_only_one_side_has_is_a_difference() -> None:
    diff = Differences((), {})
    report = compare_scenario("s", _fp({"main.tool.Agent": True}), _fp({}), diff)
    assert report.aspects[0].status == "new" and report.aspects[0].ours is None


def test_a_deliberate_entry_with_a_value_covers_that_value_only() -> None:
    entry = Deliberate("*", "*.context.environment", "placed elsewhere on purpose, any provider",
                       ["system"])
    diff = Differences((entry,), {})
    moved = compare_scenario("s", _fp({"main.context.environment": ["system-message"]}),
                             _fp({"main.context.environment": ["system"]}), diff)
    assert moved.aspects[0].status == "deliberate"
    lost = compare_scenario("s", _fp({"main.context.environment": ["system-message"]}),
                            _fp({"main.context.environment": []}), diff)
    assert lost.aspects[0].status == "new"


def test_deliberate_patterns_match_and_go_stale() -> None:
    entry = Deliberate("*", "*.tool.Workflow", "a product tool of theirs, not ours at all")
    diff = Differences((entry,), {})
    report = compare_scenario("s", _fp({"child:x.tool.Workflow": True}), _fp({}), diff)
    assert report.aspects[0].status == "deliberate" and check([report], diff) == []
    agreeing = compare_scenario("s", _fp({"a": 1}), _fp({"a": 1}), diff)
    assert any("matches no difference" in p for p in check([agreeing], diff))


# --- fingerprints -----------------------------------------------------------------------------

CTX = {"project": "/w/proj", "home": "/w/home", "date": "2026-01-02", "model": "m-1"}


def test_classify_recognises_what_this_project_wrote() -> None:
    assert classify("<system-reminder>\nRT-RULE-MARKER: x\n</system-reminder>", CTX) == \
        ["claude-md", "reminder"]
    assert classify("cwd /w/proj on linux\n\nToday is 2026-01-02", CTX) == ["date",
                                                                           "environment"]
    assert classify("- code-reviewer: reviews (Tools: Read)", CTX) == ["agent-listing"]
    assert classify("Some harness sentence.\n\nRT-MAIN x", CTX) == ["other", "prompt"]
    assert classify("please use code-reviewer now", CTX) == ["invocation"]
    assert classify("Read\nBash\nWebFetch", CTX) == ["deferred-tools"]


def test_mask_hides_paths_ids_dates_and_numbers() -> None:
    text = ("/w/proj/a.txt at 2026-01-02 took 1234 ms; agentId: a1b2c3d4e5f6 (a1b2c3d) "
            "saved to /w/home/.claude/x/y.txt and /tmp/abc/def; 0f3e9c")
    assert mask(text, CTX) == ("<proj>/a.txt at <date> took <n> ms; agentId: <id> (<id>) "
                               "saved to <home-path> and <tmp>; <id>")


def _capture(requests: list[dict[str, Any]], **kw: Any) -> Capture:
    return Capture(requests=requests, exit_code=kw.get("exit_code", 0),
                   stop=kw.get("stop", "success"), project="/w/proj", home="/w/home")


def _tool_result(tool_id: str, content: Any, is_error: bool = False) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": content,
            "is_error": is_error}


def test_fingerprint_of_a_small_run() -> None:
    first = {"model": "m-1", "max_tokens": 10, "system": "body",
             "tools": [{"name": "Read", "input_schema": {"properties": {"file_path": {}},
                                                         "required": ["file_path"]}}],
             "messages": [{"role": "user", "content": "RT-MAIN tools-read go"}]}
    second = dict(first, messages=[
        *first["messages"],
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_rt_read_found",
                                           "name": "Read", "input": {}}]},
        {"role": "user", "content": [_tool_result("toolu_rt_read_found",
                                                  "1\tone\n2\ttwo")]}])
    scenario = scenario_by_id("main-thread")
    fp = fingerprint(scenario, _capture([first, second]))
    assert fp["aspects"]["main.requests"] == 2
    assert fp["aspects"]["main.tool.Read"] is True
    assert fp["aspects"]["main.schema.Read.file_path"] == "required"
    assert fp["aspects"]["main.max_tokens"] == 10 and fp["aspects"]["main.thinking"] is None
    assert fp["aspects"]["main.context.prompt"] == ["first-user"]
    assert fp["info"]["threads"]["main"]["first_request_chars"] == len(json.dumps(first))
    results = fingerprint(scenario_by_id("tools-read"), _capture([first, second]))["aspects"]
    assert results["result.read_found.shape"] == ["num"]
    assert results["result.read_found.lines"] == 2
    assert results["result.read_found.is_error"] is False


def test_result_shapes_tell_padded_numbers_and_tags_apart() -> None:
    base = {"model": "m", "messages": [{"role": "user", "content": "RT-MAIN tools-read"}]}

    def result(content: Any, is_error: bool = False) -> dict[str, Any]:
        body = dict(base, messages=[*base["messages"], {"role": "user", "content": [
            _tool_result("toolu_rt_x", content, is_error)]}])
        fp = fingerprint(scenario_by_id("tools-read"), _capture([body]))["aspects"]
        return {k.removeprefix("result.x."): v for k, v in fp.items()}

    padded = result("     1\tone\n     2\ttwo")
    plain = result("1\tone\n2\ttwo")
    assert padded["shape"] == ["num-padded"] and plain["shape"] == ["num"]
    assert padded["text"] != plain["text"]
    wrapped = result([{"type": "text", "text": "<tool_use_error>No</tool_use_error>"}], True)
    assert wrapped["tags"] == ["tool_use_error"] and wrapped["form"] == "blocks:text"
    assert wrapped["is_error"] is True
    # the same format with other numbers and paths hashes the same
    assert result("Exit code 3\n/w/proj/x")["text"] == result("Exit code 4\n/w/proj/x")["text"]


# --- the scripted model -----------------------------------------------------------------------


def _ask(answer: Any, body: dict[str, Any]) -> Any:
    return answer(RecordedRequest("POST", "/v1/messages", {}, b"", body))


def test_responder_follows_each_script(tmp_path: Path) -> None:
    answer = responder(tmp_path)
    tools = [{"name": "Read"}, {"name": "Agent", "input_schema": {
        "properties": {"run_in_background": {}}}}]
    first = _ask(answer, {"tools": tools, "messages": [
        {"role": "user", "content": "RT-MAIN tools-read Read some files."}]})
    call = first.content[0]
    assert call.name == "Read" and call.id == "toolu_rt_read_found"
    assert call.input == {"file_path": f"{tmp_path}/a.txt"}
    delegate = _ask(answer, {"tools": tools, "messages": [
        {"role": "user", "content": "RT-MAIN delegate-foreground go"}]}).content[0]
    assert delegate.name == "Agent" and delegate.input["run_in_background"] is False
    assert delegate.input["subagent_type"] == "code-reviewer"
    child = {"tools": tools, "messages": [{"role": "user", "content": delegate.input["prompt"]}]}
    assert conversation_marker(child) == ("child", "delegate-foreground", "code-reviewer")
    assert _ask(answer, child).content[0].name == "Read"
    background = _ask(answer, {"tools": tools, "messages": [
        {"role": "user", "content": "RT-MAIN delegate-background go"}]}).content[0]
    assert "run_in_background" not in background.input
    assert _ask(answer, {"messages": [{"role": "user", "content": "hello"}]}).text


def test_responder_continues_the_agent_it_was_given(tmp_path: Path) -> None:
    answer = responder(tmp_path)
    body = {"tools": [{"name": "Task"}, {"name": "SendMessage"}], "messages": [
        {"role": "user", "content": "RT-MAIN continue-agent go"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_rt_delegate",
                                           "name": "Task", "input": {}}]},
        {"role": "user", "content": [_tool_result("toolu_rt_delegate",
                                                  "done.\nagentId: abc123def (use it)")]}]}
    call = _ask(answer, body).content[0]
    assert call.name == "SendMessage" and call.input["to"] == "abc123def"


def test_project_is_a_committed_repository(tmp_path: Path) -> None:
    build_project(tmp_path / "p", tmp_path / "h")
    assert sorted(p.stem for p in (tmp_path / "p" / ".claude" / "agents").iterdir()) == \
        sorted(AGENTS)
    assert (tmp_path / "p" / "CLAUDE.md").read_text().count("RT-RULE-MARKER") == 1
    head = tmp_path / "p" / ".git" / "HEAD"
    if head.exists():  # git is installed
        assert head.read_text().strip() == "ref: refs/heads/rt-branch"


# --- the command line -------------------------------------------------------------------------


def test_cli_list_and_unknown_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    assert conformance_main(["runtime", "list"]) == 0
    out = capsys.readouterr().out
    assert all(s.id in out for s in SCENARIOS)
    assert conformance_main(["runtime", "compare", "--scenario", "nope"]) == 2
    assert "no runtime scenario 'nope'" in capsys.readouterr().err


def test_cli_show_lays_out_both_sides(capsys: pytest.CaptureFixture[str]) -> None:
    assert conformance_main(["runtime", "show", "agent-flag"]) == 0
    out = capsys.readouterr().out
    assert "Claude Code 2.1.332, main:" in out and "subagents, main:" in out
    assert re.search(r"first-user\s+[\d,]+\s+prompt", out)


def test_cli_record_refuses_a_missing_or_wrong_binary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("subagents.conformance.runtime_cli.netns_available",
                        lambda: (True, ""))
    assert conformance_main(["runtime", "record", "--claude", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err
    assert "no such file" in err and "Traceback" not in err
    fake = tmp_path / "claude"
    fake.write_text("#!/bin/sh\necho '9.9.9 (Claude Code)'\n")
    fake.chmod(0o755)
    assert conformance_main(["runtime", "record", "--claude", str(fake)]) == 2
    err = capsys.readouterr().err
    assert "is Claude Code 9.9.9, not 2.1.332" in err
    other = tmp_path / "other"
    other.write_text("#!/bin/sh\necho hello\n")
    other.chmod(0o755)
    assert conformance_main(["runtime", "record", "--claude", str(other)]) == 2
    assert "does not report a Claude Code version" in capsys.readouterr().err


def test_cli_record_needs_the_namespace_or_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("subagents.conformance.runtime_cli.netns_available",
                        lambda: (False, "not running as root"))
    assert conformance_main(["runtime", "record", "--claude", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert "not running as root" in err and "--no-netns" in err and "Traceback" not in err


def test_cli_compare_one_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    assert conformance_main(["runtime", "compare", "--scenario", "tools-write"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"tools-write\s+\d+/\d+", out) and "Claude Code 2.1.332" in out
    assert conformance_main(["runtime", "compare", "--scenario", "tools-write", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data[0]["scenario"] == "tools-write" and data[0]["new"] == 0
    assert conformance_main(["runtime", "compare", "--scenario", "tools-write",
                             "--markdown"]) == 0
    table = capsys.readouterr().out
    assert f"| tools-write | {data[0]['agree']} / {data[0]['total']} |" in table


def test_cli_prune_takes_closed_gaps_off_a_copy_of_the_list(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    listed = json.loads(differences_path().read_text(encoding="utf-8"))
    recorded = load_runtime_recording()["scenarios"]["tools-write"]["aspects"]
    agreeing = next(a for a in recorded if a.endswith(".is_error"))
    listed.setdefault("gaps", {}).setdefault("tools-write", {})[agreeing] = "test: closed"
    copy = tmp_path / "differences.json"
    copy.write_text(json.dumps(listed))
    args = ["runtime", "compare", "--scenario", "tools-write", "--differences", str(copy)]
    assert conformance_main(args) == 1
    assert f"{agreeing} agrees now" in capsys.readouterr().err
    assert conformance_main([*args, "--prune-closed"]) == 0
    assert "took 1 closed gap(s) off" in capsys.readouterr().err
    assert agreeing not in json.loads(copy.read_text())["gaps"].get("tools-write", {})
    assert conformance_main(args) == 0


# --- re-recording with the real Claude Code (slow) --------------------------------------------

_STABLE = ("main-thread", "delegate-foreground", "tools-read", "max-turns-main")


@pytest.mark.slow
def test_rerecording_with_the_real_claude_code_matches_the_data() -> None:
    from subagents.conformance.runtime_record import record_runtime

    path = os.environ.get("SUBAGENTS_CLAUDE_CODE", "")
    if not path or not Path(path).is_file():
        pytest.skip("set SUBAGENTS_CLAUDE_CODE to the Claude Code 2.1.332 binary "
                    "(e.g. node_modules/.bin/claude) to re-record")
    usable, why = netns_available()
    if not usable:
        pytest.skip(f"the recorder runs Claude Code inside `unshare -n` ({why})")
    fresh = record_runtime(Path(path), "2.1.332", [scenario_by_id(s) for s in _STABLE], jobs=2)
    committed = load_runtime_recording()
    for scenario_id in _STABLE:
        assert fresh["scenarios"][scenario_id]["problems"] == []
        assert fresh["scenarios"][scenario_id]["aspects"] == \
            committed["scenarios"][scenario_id]["aspects"], scenario_id
