"""The other harnesses' recordings: data-file shape, the fake model API, the compare helper,
and (slow, root and the CLI needed) re-recording a few cases of each harness."""

from __future__ import annotations

import hashlib
import json
import os
import re
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from corpus_helpers import CORPUS
from subagents.conformance import (
    compare_harness,
    data_dir,
    harness_data_path,
    load_harness_recording,
)
from subagents.conformance.__main__ import main
from subagents.conformance.clis import CLIS, cli_spec
from subagents.conformance.fakeapi import REPLY, FakeModelAPI, offered_tool_names
from subagents.conformance.harness import netns_available
from subagents.conformance.hcases import HARNESS_CASES, MARK
from subagents.conformance.hcompare import compare_harness as compare_recording
from subagents.conformance.hcompare import compare_reader
from subagents.conformance.hmodel import HRecording, HSpawn
from subagents.conformance.hrecord import _NOISE, _NOT_CONTINUED
from subagents.conformance.model import DataFileError, dump_json
from subagents.conformance.runner import find_cli

# computed at import, before conftest.py points HOME at a fresh folder for each test
_REAL_CACHE = Path(os.environ.get("XDG_CACHE_HOME")
                   or os.path.join(os.path.expanduser("~"), ".cache"))

RECORDED = sorted(p.stem.rsplit("-", 1)[0] for p in data_dir().glob("*.json")
                  if not p.stem.startswith("claude-code")
                  and not p.stem.endswith(("-corpus", "-converted")))


def test_every_harness_is_recorded_at_its_pinned_version() -> None:
    assert set(RECORDED) <= set(CLIS)
    for name in RECORDED:
        assert harness_data_path(name, cli_spec(name).version).exists()


@pytest.mark.parametrize("name", RECORDED)
def test_data_file_shape(name: str) -> None:
    path = harness_data_path(name, cli_spec(name).version)
    text = path.read_text("utf-8")
    recording = load_harness_recording(name)
    assert dump_json(recording.to_json()) == text  # sorted, stable, round-trips
    assert "/tmp/" not in text and "sa-harness-" not in text
    assert recording.harness == name and recording.package == cli_spec(name).package
    assert len(recording.recorded) == 10 and recording.recorded[4] == "-"
    if name != "copilot":  # Copilot CLI lists only custom agents by description
        assert recording.builtin_agents, "the empty project offered built-in agents"
    ids = [c.id for c in recording.cases]
    assert ids == sorted(ids)
    assert set(ids) == {c.id for c in HARNESS_CASES[name]}
    assert 10 <= len(ids) <= 25
    builtin = {b.id: b.description for b in recording.builtin_agents}
    for case in recording.cases:
        assert not case.errors, f"{case.id}: {case.errors}"
        for agent in case.agents:  # built-ins are left out unless a file replaced one
            assert agent.id not in builtin or agent.overrides_builtin
    for case in recording.cases:  # only lines about loading agents, no transcript or runtime
        for line in case.messages:
            assert not _NOT_CONTINUED.match(line) and not _NOISE.search(line), (case.id, line)
    minimal = recording.case("minimal-valid")
    assert minimal.exit_code == 0 and len(minimal.agents) == 1
    assert minimal.spawned is not None and minimal.spawned.requested
    assert minimal.spawned.body_in_prompt


def test_recorded_facts_that_the_docs_rely_on() -> None:
    if "gemini" in RECORDED:
        gemini = load_harness_recording("gemini")
        assert gemini.case("unacknowledged").agents == ()
        assert gemini.case("project-beats-user").agents[0].description == "Project copy."
        assert any("Expected array" in m for m in gemini.case("tools-string").messages)
        spawned = gemini.case("minimal-valid").spawned
        assert spawned is not None
        assert set(spawned.tools) == {"read_file", "grep_search", "glob", "complete_task"}
    if "opencode" in RECORDED:
        opencode = load_harness_recording("opencode")
        assert opencode.case("tools-string-fatal").exit_code != 0
        assert opencode.case("nested-id").agents[0].id == "sub/nested"


def test_a_malformed_data_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(DataFileError, match="format"):
        HRecording.from_json({"format": 99}, "x.json")
    with pytest.raises(DataFileError, match="cases"):
        HRecording.from_json({"format": 1, "harness": "gemini", "version": "1", "package": "p",
                              "recorded": "2026-01-01", "cases": "no"}, "x.json")


def test_fake_api_speaks_each_dialect_and_logs_bodies(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    call = {"name": "task", "arguments": {"subagent_type": "x"}}
    with FakeModelAPI(log, toolcall=call) as api:
        def post(path: str, body: dict[str, object]) -> bytes:
            request = urllib.request.Request(api.url + path, data=json.dumps(body).encode(),
                                             method="POST")
            with urllib.request.urlopen(request, timeout=10) as reply:
                return bytes(reply.read())

        chat = {"model": "m", "tools": [{"type": "function", "function": {"name": "task"}}]}
        first = json.loads(post("/v1/chat/completions", chat))
        assert first["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "task"
        again = json.loads(post("/v1/chat/completions", chat))  # the call fires once only
        assert again["choices"][0]["message"]["content"] == REPLY
        streamed = post("/v1/chat/completions", {"stream": True})
        assert streamed.endswith(b"data: [DONE]\n\n")
        sse = post("/v1/responses", {"model": "m"}).decode()
        assert "event: response.completed" in sse and REPLY in sse
        gemini = post("/v1beta/models/g:streamGenerateContent?alt=sse", {"contents": []})
        assert gemini.startswith(b"data: ") and gemini.endswith(b"\n\n")
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    assert next(entry["path"] for entry in logged) == "/v1/chat/completions"
    assert logged[0]["body"]["model"] == "m" and len(logged) == 5


def test_offered_tool_names_reads_namespaces_and_declarations() -> None:
    body = {"tools": [{"type": "namespace", "name": "multi_agent_v1",
                       "tools": [{"name": "spawn_agent"}]},
                      {"functionDeclarations": [{"name": "invoke_agent"}]}]}
    assert offered_tool_names(body) == ["multi_agent_v1", "spawn_agent", "invoke_agent"]


@dataclass
class _Agent:
    agent_id: str
    description: str | None
    model: str | None = None
    native_tools: tuple[str, ...] | None = None  # None: not stated
    outcome: str = "loaded"


def _naive_reader(text: str, path: str) -> list[_Agent]:
    """Loads every file whose frontmatter has name and description (no harness rules)."""
    fields = dict(line.split(": ", 1) for line in text.splitlines() if ": " in line)
    if "name" in fields and "description" in fields:
        return [_Agent(fields["name"], fields["description"])]
    return []


@pytest.mark.skipif("gemini" not in RECORDED, reason="no Gemini CLI recording")
def test_compare_helper_reports_what_a_reader_gets_wrong() -> None:
    differences = compare_harness("gemini", _naive_reader)
    # the naive reader loads a colour-keyed file Gemini CLI rejects, and a nested one
    assert "unknown-key" in differences and "nested-folder" in differences
    assert any("did not offer" in d for d in differences["unknown-key"])
    assert "minimal-valid" not in differences  # it does agree on the documented example


def test_compare_helper_with_a_reader_that_agrees() -> None:
    recording = HRecording.from_json({
        "format": 1, "harness": "gemini", "version": "0", "package": "p",
        "recorded": "2026-01-01", "builtin_agents": [],
        "cases": [{"id": "user-agent", "about": "", "files": [], "exit_code": 0,
                   "agents": [{"id": "helper", "description": "User level helper."}],
                   "messages": [], "spawned": None, "errors": []}]}, "inline")
    assert compare_recording(recording, _naive_reader) == {}
    assert compare_recording(recording, lambda text, path: []) == {
        "user-agent": ["'helper': gemini 0 offered it; the reader does not load it"]}


def test_list_names_every_case(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "--harness", "opencode"]) == 0
    out = capsys.readouterr().out
    assert all(case.id in out for case in HARNESS_CASES["opencode"])


def test_cases_that_delegate_carry_the_marker() -> None:
    for cases in HARNESS_CASES.values():
        for case in cases:
            if case.spawn:
                assert any(MARK in text for text in case.all_files().values()), case.id


SLOW_CASES = {
    "gemini": ["minimal-valid", "tools-string", "unacknowledged"],
    "opencode": ["minimal-valid", "color-name-fatal", "nested-id"],
    "codex": ["minimal-valid", "untrusted-project", "unknown-field"],
    "copilot": ["minimal-valid", "nested", "name-is-id"],
    "qwen": ["minimal-valid", "nested-skipped", "project-beats-user"],
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SLOW_CASES))
def test_rerecord_matches_committed(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = cli_spec(name)
    monkeypatch.setenv("XDG_CACHE_HOME", str(_REAL_CACHE))  # the real install, not the test HOME
    binary = find_cli(name, spec.version, spec.binary)
    if binary is None:
        pytest.skip(f"{spec.title} {spec.version} is not installed "
                    f"(python -m subagents.conformance record --harness {name} installs it)")
    usable, why = netns_available()
    if not usable:
        pytest.skip(f"recording needs a loopback-only network namespace: {why}")
    if name not in RECORDED:
        pytest.skip(f"no committed recording for {spec.title}")
    from subagents.conformance.hrecord import record_harness

    committed = load_harness_recording(name)
    fresh = record_harness(spec, binary, case_ids=SLOW_CASES[name], jobs=3)
    for case_id in SLOW_CASES[name]:
        old, new = committed.case(case_id), fresh.case(case_id)
        assert new.exit_code == old.exit_code, case_id
        assert new.agents == old.agents, case_id
        if old.spawned is not None and new.spawned is not None:
            assert (new.spawned.model, new.spawned.tools) == (old.spawned.model,
                                                              old.spawned.tools)


# ----------------------------------------------------------------------------- each reader

# Where this project's reader differs from the recorded CLI on purpose: (harness, case) -> why.
# docs/conformance.md lists the same table.  The test below fails when a difference appears
# that is not listed here, and when a listed one stops differing.
DELIBERATE: dict[tuple[str, str], str] = {
    ("opencode", "no-description"):
        "the reader reports the file's own description (none) and says in OC007 that OpenCode "
        "1.18.33 lists the agent with a stock text; taking the stock text as the description "
        "would make convert carry a description the file never had",
}


@pytest.mark.parametrize("name", RECORDED)
def test_each_reader_agrees_with_its_recorded_cli(name: str) -> None:
    """Every recorded case through subagents.harnesses (load_project): the same agents, ids,
    descriptions, and the launched child's model and tools where the reader states them."""
    recording = load_harness_recording(name)
    differences = compare_reader(recording)
    unexplained = {k: v for k, v in differences.items() if (name, k) not in DELIBERATE}
    assert unexplained == {}
    stale = [k for (h, k) in DELIBERATE if h == name and k not in differences]
    assert stale == [], "listed as deliberate but no longer different"
    assert recording.cases and len(differences) < len(recording.cases)


def _tampered(recording: HRecording, case_id: str, **change: object) -> HRecording:
    import dataclasses

    cases = tuple(dataclasses.replace(c, **change) if c.id == case_id else c  # type: ignore[arg-type]
                  for c in recording.cases)
    return dataclasses.replace(recording, cases=cases)


def test_compare_reader_notices_each_kind_of_difference() -> None:
    gemini = load_harness_recording("gemini")
    case = gemini.case("minimal-valid")
    assert case.spawned is not None
    agent = case.agents[0]
    wrong_text = _tampered(gemini, "minimal-valid",
                           agents=(type(agent)(agent.id, "Something else."),))
    assert "description" in compare_reader(wrong_text)["minimal-valid"][0]
    spawned = case.spawned
    other_tools = _tampered(gemini, "minimal-valid", spawned=HSpawn(
        spawned.agent, True, spawned.model, ("complete_task", "read_file"),
        spawned.body_in_prompt, spawned.prompt_starts_with_body))
    assert "tools" in compare_reader(other_tools)["minimal-valid"][0]
    model_case = gemini.case("temperature-model")
    assert model_case.spawned is not None
    other_model = _tampered(gemini, "temperature-model", spawned=HSpawn(
        model_case.spawned.agent, True, "gemini-1.0-pro"))
    assert "model" in compare_reader(other_model)["temperature-model"][0]
    refused = _tampered(gemini, "minimal-valid", exit_code=1)
    found = compare_reader(refused)["minimal-valid"]
    assert any("exited 1" in d for d in found) and any("did not offer" in d for d in found)
    assert compare_reader(_tampered(gemini, "minimal-valid", agents=())) == {
        "minimal-valid": ["'reviewer': the reader loads it; gemini 0.61.0 did not offer it"]}


# ----------------------------------------------------------------------------- convert output

CONVERTED = {name: data_dir() / f"{name}-{cli_spec(name).version}-converted.json"
             for name in sorted(CLIS)}


def _corpus_definitions() -> dict[str, list[object]]:
    """The corpus agents Claude Code loads, per collection (as `convert` reads them)."""
    from subagents.harnesses import get_harness

    claude = get_harness("claude")
    by_collection: dict[str, list[object]] = {}
    for path in sorted(CORPUS.rglob("*.md")):
        rel = path.relative_to(CORPUS)
        if rel.parts == ("README.md",):
            continue
        for agent in claude.read_text(path.read_text("utf-8", errors="replace"), path):
            if agent.outcome.value == "loads" and agent.definition is not None:
                by_collection.setdefault(rel.parts[0], []).append(agent.definition)
    return by_collection


@pytest.fixture(scope="module")
def corpus_definitions() -> dict[str, list[object]]:
    if not CORPUS.is_dir():
        pytest.skip("the shared corpus is not beside the project")
    return _corpus_definitions()


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@pytest.mark.parametrize("name", sorted(CLIS))
def test_every_converted_corpus_file_is_loaded_by_the_cli(
        name: str, corpus_definitions: dict[str, list[object]]) -> None:
    """`convert --to NAME` on the corpus: the real CLI (recorded with record-files) offered
    every file it writes, under the id and with the description the reader expects."""
    from subagents.conformance.hrecord import load_files_recording
    from subagents.harnesses import get_harness
    from subagents.repair.convert import convert_definitions

    path = CONVERTED[name]
    if not path.exists():
        pytest.fail(f"no recording of the converted corpus for {name}: {path.name}")
    recording = load_files_recording(path)
    assert recording.version == cli_spec(name).version
    verdicts = {v.sha256: v for v in recording.files}
    harness = get_harness(name)
    problems: list[str] = []
    checked = 0
    for collection, definitions in sorted(corpus_definitions.items()):
        result = convert_definitions(definitions, name)  # type: ignore[arg-type]
        for output in result.outputs:
            where = f"{collection}/{output.filename}"
            verdict = verdicts.get(_sha(output.text))
            if verdict is None:
                problems.append(f"{where}: not in {path.name} (re-record it)")
                continue
            back = [a for a in harness.read_text(output.text, Path(output.filename))
                    if a.outcome.value == "loads"]
            assert len(back) == 1, where
            expected_id, expected_text = back[0].agent_id, (back[0].description or "").strip()
            checked += 1
            if not verdict.loaded:
                problems.append(f"{where}: the CLI did not offer it {verdict.messages}")
            elif verdict.ids != (expected_id,):
                problems.append(f"{where}: offered as {verdict.ids}, expected {expected_id!r}")
            elif verdict.descriptions_sha256 != (_sha(expected_text),):
                problems.append(f"{where}: the offered description differs from the file's")
    assert problems == []
    assert checked >= 500  # the corpus holds ~580 agents Claude Code loads


# ----------------------------------------------------------------------------- record-files logic


def _fake_opencode(monkeypatch: pytest.MonkeyPatch, runs: list[list[str]]) -> None:
    """OpenCode as a function: a file holding FATAL stops start-up; the others are offered
    under their file name (the real CLI's behaviour, recorded in the tools-string-fatal case)."""
    from subagents.conformance import hrecord
    from subagents.conformance.runner import CliRun

    def run_case(spec: object, binary: object, case: object, *, netns: bool = True,
                 known: frozenset[str] | None = None) -> tuple[CliRun, dict[str, str]]:
        files = dict(getattr(case, "project", {}))
        names = sorted(Path(rel).name for rel in files)
        runs.append(names)
        fatal = any("FATAL" in text for text in files.values())
        offered = {} if fatal else {"explore": "Built in."}
        if not fatal:
            offered.update({Path(rel).stem: f"About {Path(rel).stem}." for rel in files})
        run = CliRun(Path("/p"), Path("/h"), [], "", "boom FATAL" if fatal else "", "",
                     1 if fatal else 0, False)
        return run, offered

    def builtins(spec: object, binary: object, *, netns: bool = True) -> dict[str, str]:
        return {k: v for k, v in run_case(spec, binary, object())[1].items() if k == "explore"}

    monkeypatch.setattr(hrecord, "run_case", run_case)
    monkeypatch.setattr(hrecord, "record_builtins", builtins)


def test_record_files_batches_and_bisects_to_the_file_that_stops_start_up(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from subagents.conformance.hrecord import record_files

    runs: list[list[str]] = []
    _fake_opencode(monkeypatch, runs)
    paths = []
    for i in range(8):
        path = tmp_path / f"a{i}.md"
        path.write_text("---\nmode: subagent\n---\n" + ("FATAL\n" if i == 5 else "x\n"))
        paths.append(path)
    result = record_files(cli_spec("opencode"), Path("opencode"), paths,
                          placement=".opencode/agents", batch_size=8, jobs=1, keep_names=True)
    by_name = {Path(v.path).name: v for v in result.files}
    assert [Path(v.path).name for v in result.files] == [p.name for p in paths]  # input order
    assert by_name["a5.md"].blocks_startup and not by_name["a5.md"].loaded
    assert by_name["a5.md"].decided_by == "bisect"
    for i in (0, 1, 2, 3, 4, 6, 7):
        verdict = by_name[f"a{i}.md"]
        assert verdict.loaded and verdict.ids == (f"a{i}",) and not verdict.blocks_startup
        assert verdict.descriptions_sha256 == (_sha(f"About a{i}."),)
    assert runs[0] == [] and len(runs[1]) == 8  # built-ins, then the whole batch
    assert len(runs) < 1 + 8  # bisection, not one run per file


def test_record_files_keeps_clashing_names_apart(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from subagents.conformance.hrecord import record_files

    runs: list[list[str]] = []
    _fake_opencode(monkeypatch, runs)
    paths = []
    for folder in ("one", "two"):
        (tmp_path / folder).mkdir()
        path = tmp_path / folder / "same.md"
        path.write_text(f"---\nmode: subagent\n---\n{folder}\n")
        paths.append(path)
    result = record_files(cli_spec("opencode"), Path("opencode"), paths,
                          placement=".opencode/agents", batch_size=10, jobs=1, keep_names=True)
    assert all(len(set(run)) == len(run) for run in runs)
    assert [v.ids for v in result.files] == [("same",), ("same",)]
    assert result.files[0].sha256 != result.files[1].sha256


def test_listing_parsers_keep_multiline_descriptions_and_known_ids() -> None:
    from subagents.conformance.clis import _listing

    text = ("Available:\n- alpha: First line.\nSecond line.\n\nExamples:\n- Context: a case\n\n"
            "- beta: Short.\n\nTrailing prose.")
    entry = re.compile(r"^- ([^:\n]+): ?(.*)$", re.M)
    assert _listing(text, "Available:", entry, known=frozenset({"alpha", "beta"})) == {
        "alpha": "First line.\nSecond line.\n\nExamples:\n- Context: a case",
        "beta": "Short."}
    assert _listing(text, "Available:", entry)["Context"] == "a case"  # without known ids
    assert _listing(text, "Available:", entry, "$", frozenset({"beta"}))["beta"] == (
        "Short.\n\nTrailing prose.")


def test_messages_leave_out_transcript_and_runtime_noise() -> None:
    from subagents.conformance.hrecord import _messages
    from subagents.conformance.runner import CliRun

    stderr = ("OpenAI Codex v0.169.0\n--------\nworkdir: /tmp/p\nmodel: gpt-5\n--------\nuser\n"
              "Say hello.\nwarning: Model metadata for `gpt-5` not found.\n"
              "warning: Ignoring malformed agent role definition: agent role `x` must define a "
              "description\ncodex\nOK-FAKE\ntokens used\n2\n")
    logs = ("2026-01-01T00:00:00Z [WARNING] CAFE metrics startup did not settle\n"
            "2026-01-01T00:00:00Z [WARNING] /tmp/p/.github/agents/u.agent.md: unknown fields "
            "ignored: color\n")
    run = CliRun(Path("/tmp/p"), Path("/tmp/h"), [], "", stderr, logs, 0, False)
    assert _messages(run) == (
        "warning: Ignoring malformed agent role definition: agent role `x` must define a "
        "description",
        "[WARNING] <project>/.github/agents/u.agent.md: unknown fields ignored: color")


def test_a_definition_the_writer_refuses_is_reported_not_raised() -> None:
    """Copilot CLI does not load a prompt over 30,000 characters: convert says so (CV008)."""
    from subagents.definition import AgentDefinition
    from subagents.repair.convert import convert_definitions

    long = AgentDefinition(name="huge", description="Too long.", system_prompt="x" * 30_001)
    short = AgentDefinition(name="small", description="Fine.", system_prompt="Do it.")
    result = convert_definitions([long, short], "copilot")
    assert [o.filename for o in result.outputs] == ["small.agent.md"]
    assert result.failed == ("huge",)
    (finding,) = [d for d in result.diagnostics if d.rule == "CV008"]
    assert "30,000" in finding.message and finding.severity.value == "error"


@pytest.mark.parametrize("name", ["gemini", "qwen"])
def test_the_corpus_as_it_is_agrees_with_the_cli(name: str) -> None:
    """Every corpus file copied unchanged into the harness's folder: the real CLI's verdict
    (recorded with record-files; `data/<harness>-<version>-corpus.json`) is the reader's."""
    from subagents.conformance.hrecord import load_files_recording
    from subagents.harnesses import get_harness

    if not CORPUS.is_dir():
        pytest.skip("the shared corpus is not beside the project")
    recording = load_files_recording(
        data_dir() / f"{name}-{cli_spec(name).version}-corpus.json")
    verdicts = {v.sha256: v for v in recording.files}
    harness = get_harness(name)
    folder = Path("/p") / recording.placement
    checked, differ = 0, []
    for path in sorted(CORPUS.rglob("*.md")):
        data = path.read_bytes()
        verdict = verdicts.get(hashlib.sha256(data).hexdigest())
        if verdict is None:
            continue
        checked += 1
        agents = harness.read_text(data.decode("utf-8", errors="replace"), folder / path.name)
        loads = any(a.outcome.value == "loads" for a in agents)
        if loads != verdict.loaded:
            differ.append(f"{path.relative_to(CORPUS)}: CLI {verdict.loaded}, reader {loads}")
    assert checked >= 570 and differ == []
