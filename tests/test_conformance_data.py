"""The recorded Claude Code conformance data: well-formed, complete, and still true.

* every data file reads into typed objects, and records every case of ``cases.py`` (a case
  added without recording it fails here);
* the loaders and the case writer work;
* the fake server's spawn mode answers the real ``anthropic`` SDK as Claude Code needs;
* (slow) a representative subset re-recorded with the real Claude Code matches the data.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hypothesis_helpers import examples
from subagents.conformance import (
    CASES,
    DataFileError,
    Recording,
    available_versions,
    case_by_id,
    data_path,
    load_corpus_expectations,
    load_expectations,
    materialise_case,
)
from subagents.conformance.__main__ import main as conformance_main
from subagents.conformance.extract import parse_listing, subagent_body
from subagents.conformance.harness import cache_root, find_installed, netns_available
from subagents.conformance.model import dump_json
from subagents.conformance.record import match_sources, name_guess
from subagents.testing.server import (
    SPAWN_MAIN_MARKER,
    SPAWN_SUB_MARKER,
    FakeLLMServer,
    spawn_responder,
)

# computed at import, before the per-test HOME redirection of conftest.py
_CACHE = cache_root()
_SUBSET = (
    "baseline", "dup-code-unit-order", "precedence-project-over-user", "fallback-colon-space",
    "fallback-col0-continuation", "name-fullwidth-colon", "tools-null", "model-sonnet-capital",
    # plugins, --agents, trust, a live MCP server, request parameters, an alias bomb
    "plugin-ids", "plugin-manifest-agents", "plugin-ignored-fields", "cli-agents-valid",
    "cli-agents-tools-string", "mcp-list-trusted", "mcp-list-untrusted", "mcp-bad-items",
    "field-effort-values", "yaml-alias-bomb", "files-user-folder-link",
    # whitespace around the --- lines: a form feed closing, a lone CR opening
    "block-ff-after-clos", "block-lone-cr-open",
)


def test_there_is_a_recorded_version() -> None:
    versions = available_versions()
    assert "2.1.330" in versions
    assert load_expectations().version == versions[-1]


@pytest.mark.parametrize("version", available_versions())
def test_every_case_is_recorded_and_nothing_else(version: str) -> None:
    """The newest version holds every case; an older one every case that existed when it was
    recorded (a case added later, for behaviour first measured on a newer version, is not
    re-recorded on old releases)."""
    recording = load_expectations(version)
    recorded = set(recording.case_ids)
    defined = {case.id for case in CASES}
    if version != available_versions()[-1]:
        newer = set(load_expectations().case_ids) - recorded
        defined -= newer
    assert defined - recorded == set(), (
        "cases without a recording; run `python -m subagents.conformance record "
        + " ".join(f"--case {c}" for c in sorted(defined - recorded)) + "`")
    assert recorded - defined == set(), "recorded cases that cases.py no longer defines"


@pytest.mark.parametrize("version", available_versions())
def test_data_file_is_stable_and_clean(version: str) -> None:
    path = data_path(version)
    text = path.read_text(encoding="utf-8")
    recording = load_expectations(version)
    assert dump_json(recording.to_json()) == text, "the file is not in the stable form"
    assert "/tmp/" not in text and "cc-conformance-" not in text
    assert recording.harness == "claude-code"
    assert recording.version == version
    assert {b.name for b in recording.builtin_agents} >= {"general-purpose"}
    troubled = {c.id: c.errors for c in recording.cases if c.errors}
    assert troubled == {}
    for case in recording.cases:
        spawn = case_by_id(case.id).spawn
        assert tuple(s.name for s in case.spawned) == spawn
        paths = {f.path for f in case.files}
        for agent in case.agents:
            assert agent.source is None or agent.source in paths


def test_recorded_facts_match_the_measured_behaviour() -> None:
    """A few rows of BEHAVIOUR-2.1.330.md, read from the data (guards the extraction)."""
    rec = load_expectations("2.1.330")
    dup = rec.case("dup-code-unit-order")
    assert [(a.name, a.source) for a in dup.agents] == [("dup-za", "project/a.md")]
    assert rec.case("name-fullwidth-colon").agents == ()
    assert rec.case("name-257").agents == () and len(rec.case("name-256").agents) == 1
    colon = rec.case("fallback-colon-space").agent("fb-colon")
    assert colon is not None and colon.description == "Use when: the user asks. Example: PRs"
    null_tools = rec.case("tools-null")
    assert null_tools.agents[0].tools == "All tools"
    assert null_tools.spawned[0].tools == ()
    refused = rec.case("tools-only-unknown").spawned[0]
    assert refused.error is not None and "zero tools" in refused.error
    assert rec.case("model-sonnet-capital").spawned[0].model == \
        rec.case("baseline").spawned[0].model
    assert rec.case("model-inherit").spawned[0].model == rec.parent_model
    override = rec.case("precedence-builtin-override")
    assert {a.name for a in override.agents if a.overrides_builtin} == {
        "Explore", "general-purpose"}


def test_corpus_recording_reads() -> None:
    corpus = load_corpus_expectations("2.1.330")
    assert len(corpus.files) == 592
    loaded = [f for f in corpus.files if f.loaded]
    assert len(loaded) == 582
    for entry in loaded:
        assert entry.name and entry.description_sha1 and len(entry.description_sha1) == 40
        assert entry.description_len is not None and entry.description_len > 0
    text = data_path("2.1.330", corpus=True).read_text(encoding="utf-8")
    assert '"description":' not in text, "the corpus data must not hold description text"


def test_loaders_refuse_bad_input(tmp_path: Path) -> None:
    with pytest.raises(DataFileError, match=r"no recording for Claude Code 0\.0\.1"):
        load_expectations("0.0.1")
    good = load_expectations().to_json()
    broken = json.loads(json.dumps(good))
    broken["cases"][0]["agents"] = [{"name": 3}]
    with pytest.raises(DataFileError, match=r"where\.json case .*'name' must be a string"):
        Recording.from_json(broken, "where.json")
    with pytest.raises(DataFileError, match="format"):
        Recording.from_json(dict(good, format=99), "x.json")
    with pytest.raises(DataFileError, match="expected an object"):
        Recording.from_json([], "x.json")


def test_materialise_case_writes_exact_bytes(tmp_path: Path) -> None:
    case = case_by_id("precedence-project-over-user")
    agents, user = materialise_case(case.id, tmp_path / "p", tmp_path / "h")
    assert user is not None
    for rel, data in case.files.items():
        assert (agents / rel).read_bytes() == data
    for rel, data in case.user_files.items():
        assert (user / rel).read_bytes() == data
    bom = case_by_id("encoding-bom-crlf")
    agents, _ = materialise_case(bom, tmp_path / "q")
    assert (agents / "bc.md").read_bytes().startswith(b"\xef\xbb\xbf---\r\n")


def test_case_files_cannot_escape(tmp_path: Path) -> None:
    from subagents.conformance.casekit import Case

    with pytest.raises(ValueError, match="inside the agents folder"):
        Case("bad", "x", {"../evil.md": b"x"}).materialise(tmp_path)


def test_parse_listing_multiline_and_prefix_names() -> None:
    text = ("intro\nAvailable agent types for the Agent tool:\n"
            "- rev: short (Tools: Read)\n- rev-long: line one\nline two (Tools: All tools)\n"
            "\n\nWhen you launch multiple agents ...")
    entries = parse_listing(text, ["rev", "rev-long"])
    assert entries["rev"].tools == "Read"
    assert entries["rev-long"].description == "line one\nline two"
    assert parse_listing("nothing here", ["rev"]) == {}


def test_subagent_body_and_name_guess() -> None:
    system = ("x-anthropic-billing-header: a\nYou are a Claude agent, built on it.\nBody\r\nmore"
              "\n\nMessages from the agent that launched you, etc.")
    assert subagent_body(system) == "Body\r\nmore"
    assert name_guess(b"\xef\xbb\xbf---\r\nname: a b\r\n---\r\n") == "a b"
    assert name_guess(b"---\nname: x: y\ndescription: z\n---\n") == "x: y"
    assert name_guess(b"no block") is None


def test_match_sources_uses_the_duplicate_line() -> None:
    from subagents.conformance.model import LoadedAgent

    case = case_by_id("dup-last-wins")
    agent = LoadedAgent("dup-ab", "From b-dup.", None, "All tools", None, None)
    line = ("DEBUG [agents] Duplicate agent name 'dup-ab' (projectSettings): project/b-dup.md, "
            "project/a-dup.md — active: project/b-dup.md")
    agents, files = match_sources(case, [agent], [line])
    assert agents[0].source == "project/b-dup.md"
    assert [(f.path, f.loaded_as) for f in files] == [
        ("project/a-dup.md", None), ("project/b-dup.md", "dup-ab")]


def test_cli_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert conformance_main(["list"]) == 0
    out = capsys.readouterr().out
    assert len(out.splitlines()) == len(CASES)
    assert "baseline" in out


def test_cli_compare_prints_the_agreement(capsys: pytest.CaptureFixture[str]) -> None:
    code = conformance_main(["compare"])
    out = capsys.readouterr().out
    assert "recorded cases agree" in out and f"of {len(CASES)} " in out
    assert code == (1 if "DIFFERS" in out else 0)
    assert conformance_main(["compare", "--claude-code", "0.0.1"]) == 2


def test_cli_bad_usage_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert conformance_main(["diff", "--case", "no-such-case", "--claude", "/nonexistent"]) == 2
    assert "no conformance case 'no-such-case'" in capsys.readouterr().err
    assert conformance_main(["diff", "--case", "baseline", "--claude", "/nonexistent"]) == 2
    assert "/nonexistent: no such file" in capsys.readouterr().err
    assert conformance_main(["diff", "--claude-code", "0.0.1", "--claude", "/nonexistent"]) == 2
    assert "no committed data for Claude Code 0.0.1" in capsys.readouterr().err


# --- the fake server's spawn mode, through the real SDK -----------------------------------------

_AGENT_TOOL = {"name": "Agent", "description": "launch an agent",
               "input_schema": {"type": "object", "properties": {}}}


@pytest.mark.parametrize("stream", [False, True])
def test_spawn_mode_through_the_anthropic_sdk(tmp_path: Path, stream: bool) -> None:
    anthropic = pytest.importorskip("anthropic")
    log = tmp_path / "requests.jsonl"
    with FakeLLMServer(default=spawn_responder(["alpha", "beta"]), record_to=str(log)) as server:
        client = anthropic.Anthropic(base_url=server.anthropic_base_url, api_key="test-key",
                                     max_retries=0)
        main_messages = [{"role": "user", "content": f"{SPAWN_MAIN_MARKER} hello"}]
        if stream:
            with client.messages.stream(model="m-main", max_tokens=50, tools=[_AGENT_TOOL],
                                        messages=main_messages) as events:
                first = events.get_final_message()
        else:
            first = client.messages.create(model="m-main", max_tokens=50, tools=[_AGENT_TOOL],
                                           messages=main_messages)
        calls = [b for b in first.content if b.type == "tool_use"]
        assert first.stop_reason == "tool_use"
        assert [(c.name, c.input["subagent_type"]) for c in calls] == [
            ("Agent", "alpha"), ("Agent", "beta")]
        assert calls[0].input["prompt"] == f"{SPAWN_SUB_MARKER} name=alpha"
        sub = client.messages.create(
            model="m-sub", max_tokens=50, system="You are alpha.",
            messages=[{"role": "user", "content": calls[0].input["prompt"]}])
        assert [b.text for b in sub.content if b.type == "text"] == ["ok"]
        done = client.messages.create(model="m-main", max_tokens=50, tools=[_AGENT_TOOL], messages=[
            *main_messages, {"role": "assistant", "content": [c.model_dump() for c in calls]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": c.id,
                                          "content": "ok"} for c in calls]}])
        assert done.stop_reason == "end_turn"
        count = client.messages.count_tokens(model="m", messages=main_messages)
        assert count.input_tokens == 10
    recorded = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["json"]["model"] for r in recorded] == ["m-main", "m-sub", "m-main", "m"]
    assert recorded[1]["json"]["system"] == "You are alpha."


def test_default_reply_leaves_the_queue_first() -> None:
    anthropic = pytest.importorskip("anthropic")
    from subagents.testing import text

    with FakeLLMServer([text("scripted")], default=text("fallback")) as server:
        client = anthropic.Anthropic(base_url=server.anthropic_base_url, api_key="k",
                                     max_retries=0)
        answers = [client.messages.create(model="m", max_tokens=5, messages=[
            {"role": "user", "content": "hi"}]).content[0].text for _ in range(2)]
    assert answers == ["scripted", "fallback"]


# --- re-record a representative subset with the real Claude Code (slow) -------------------------


@pytest.mark.slow
def test_rerecorded_subset_matches_the_data() -> None:
    version = load_expectations().version
    named = os.environ.get("SUBAGENTS_CLAUDE_CODE", "")  # the binary, as the runtime test takes
    claude = Path(named) if named else find_installed(version, _CACHE)
    if claude is None or not claude.exists():
        pytest.skip(f"Claude Code {version} not installed; set SUBAGENTS_CLAUDE_CODE to its "
                    "binary, or run `python -m subagents.conformance record` to install it")
    usable, why = netns_available()
    if not usable:
        pytest.skip(f"no network namespace for Claude Code ({why}); the recorder needs root")
    from subagents.conformance.record import record_cases

    fresh = record_cases(claude, [case_by_id(c) for c in _SUBSET], version=version, jobs=2)
    committed = load_expectations(version)
    assert fresh.builtin_agents == committed.builtin_agents
    assert fresh.parent_model == committed.parent_model
    for case_id in _SUBSET:
        assert fresh.case(case_id).to_json() == committed.case(case_id).to_json(), case_id


# --- hostile input and environments --------------------------------------------------------------


def test_install_without_npm_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    from subagents.conformance import harness

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    real_which = shutil.which
    monkeypatch.setattr(harness.shutil, "which",
                        lambda name: None if name == "npm" else real_which(name))
    with pytest.raises(harness.HarnessError, match="npm is not installed"):
        harness.install("9.9.9")
    assert conformance_main(["record", "--claude-code", "9.9.9", "--case", "baseline"]) == 2
    assert "npm is not installed" in capsys.readouterr().err
    assert not (tmp_path / "cache" / "subagents" / "claude-code" / "9.9.9").exists()


def test_without_root_the_recorder_says_so(monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    import argparse

    from subagents.conformance import __main__ as cli
    from subagents.conformance import harness

    monkeypatch.setattr(harness.os, "geteuid", lambda: 1000)
    assert harness.netns_available() == (False, "not running as root")
    monkeypatch.setattr(cli, "netns_available", harness.netns_available)
    assert cli._netns(argparse.Namespace(no_netns=False)) is False
    assert "no network namespace (not running as root)" in capsys.readouterr().err


def test_bad_data_file_names_the_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import subagents.conformance as conformance

    (tmp_path / "claude-code-1.0.0.json").write_text("{not json", encoding="utf-8")
    monkeypatch.setattr(conformance, "data_dir", lambda: tmp_path)
    assert conformance.available_versions() == ["1.0.0"]
    with pytest.raises(DataFileError, match=r"claude-code-1\.0\.0\.json"):
        conformance.load_expectations()
    with pytest.raises(DataFileError, match="no corpus recording"):
        conformance.load_corpus_expectations()


_NAME = st.text(st.sampled_from("abcXYZ-_ 09é/"), min_size=1, max_size=12).filter(
    lambda n: n.strip() == n)
_DESC = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r"),
                min_size=1, max_size=40).filter(lambda d: "\n- " not in d and "\n\n" not in d)


@settings(max_examples=examples(60), deadline=None)
@given(st.dictionaries(_NAME, st.tuples(_DESC, st.sampled_from(["All tools", "Read, Grep"])),
                       min_size=1, max_size=6))
def test_parse_listing_round_trips(agents: dict[str, tuple[str, str]]) -> None:
    lines = [f"- {n}: {d} (Tools: {t})" for n, (d, t) in sorted(agents.items())]
    text = "Available agent types for the Agent tool:\n" + "\n".join(lines)
    entries = parse_listing(text, list(agents))
    assert {n: (e.description, e.tools) for n, e in entries.items()} == agents
