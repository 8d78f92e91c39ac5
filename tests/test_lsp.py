"""``subagents lsp``: the analysis (same findings as ``validate FILE``), hover, completion, code
actions, and the real server over stdio with a JSON-RPC client, hostile input included."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lsp_helpers import LspClient
from subagents.definition import Dialect
from subagents.lint.validate import validate_paths
from subagents.lsp.analysis import Checker, agent_dialect, code_actions, line_edits
from subagents.lsp.assist import completions, hover_text

CLAUDE_BAD = ("---\nname: rev\ndescription: Reviews code: use it after edits\n"
              "tools: Read, Reed\n---\nYou review.\n")

# one agent file per harness, each with something to say about it
HARNESS_FILES = {
    ".claude/agents/rev.md": CLAUDE_BAD,
    ".codex/agents/rev.toml": 'name = "rev"\ndescription = 3\n',
    ".codex/agents/rev.md": "---\nname: rev\ndescription: Reviews.\nmodel: 7\n---\nHi\n",
    ".gemini/agents/rev.md": "---\nname: Rev Iewer\ndescription: Reviews.\ntools: [nope]\n---\nHi\n",
    ".opencode/agent/rev.md": "---\ndescription: Reviews.\nmode: sideways\n---\nHi\n",
    ".github/agents/rev.agent.md": "---\ndescription: 5\ntools: [bash]\n---\nHi\n",
    ".cursor/agents/rev.md": "---\nname: rev\nreadonly: maybe\n---\nHi\n",
    ".qwen/agents/rev.md": "---\nname: rev\n---\nHi\n",
    ".factory/droids/rev.md": "---\nname: rev\ndescription: Reviews.\nmodel: [x]\n---\nHi\n",
    "agents.json": '{"rev": {"description": 5}}',
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    return root


def _shape(diags: list) -> list[tuple[str, int | None, str]]:
    return sorted((d.rule, d.line, str(d.severity)) for d in diags)


# ---------------------------------------------------------------------- the analysis


@pytest.mark.parametrize("rel", sorted(HARNESS_FILES))
def test_findings_are_validate_on_the_file(project: Path, rel: str) -> None:
    """For every harness, the editor's findings are those of `validate FILE` on the same text."""
    path = project / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HARNESS_FILES[rel])
    expected = validate_paths([str(path)]).diagnostics
    checker = Checker()
    try:
        got = checker.check(path, HARNESS_FILES[rel])
    finally:
        checker.close()
    assert expected, f"the case for {rel} should have findings"
    assert _shape([f.diagnostic for f in got]) == _shape(expected)
    assert all(f.diagnostic.path == str(path) for f in got)
    assert not any(str(checker.root) in f.diagnostic.message for f in got)


def test_configuration_of_the_real_folder_applies(project: Path) -> None:
    path = project / ".claude/agents/rev.md"
    path.parent.mkdir(parents=True)
    checker = Checker()
    try:
        assert "SA104" in {f.diagnostic.rule for f in checker.check(path, CLAUDE_BAD)}
        (project / ".subagents.toml").write_text('ignore = ["SA104"]\n')
        assert "SA104" not in {f.diagnostic.rule for f in checker.check(path, CLAUDE_BAD)}
        (project / ".subagents.toml").write_text('[per-file-ignores]\n"rev.md" = ["SA010"]\n')
        rules = {f.diagnostic.rule for f in checker.check(path, CLAUDE_BAD)}
        assert "SA010" not in rules and "SA104" in rules
        (project / ".subagents.toml").write_text("ignore = [\n")  # broken: said, not fatal
        got = checker.check(path, CLAUDE_BAD)
        assert got[0].diagnostic.rule == "config"
        assert "SA104" in {f.diagnostic.rule for f in got}
    finally:
        checker.close()


def test_only_agent_files_are_checked(tmp_path: Path) -> None:
    assert agent_dialect(tmp_path / "README.md") is None
    assert agent_dialect(tmp_path / ".claude/agents/README.md") is None
    assert agent_dialect(tmp_path / "package.json") is None
    assert agent_dialect(tmp_path / "pyproject.toml") is None
    assert agent_dialect(tmp_path / "docs/notes.md") is None
    assert agent_dialect(tmp_path / ".claude/agents/a.md") is Dialect.CLAUDE
    assert agent_dialect(tmp_path / ".codex/agents/a.toml") is Dialect.CODEX
    assert agent_dialect(tmp_path / ".github/agents/a.agent.md") is Dialect.COPILOT
    assert agent_dialect(tmp_path / "opencode.json") is Dialect.OPENCODE
    assert agent_dialect(tmp_path / "team.agents.json") is Dialect.JSON
    checker = Checker()
    try:
        assert checker.check(tmp_path / "README.md", CLAUDE_BAD) == []
    finally:
        checker.close()


def test_hostile_text_is_findings(project: Path) -> None:
    path = project / ".claude/agents/rev.md"
    checker = Checker()
    try:
        big = checker.check(path, "---\nname: a\n---\n" + "x" * (10 << 20))
        assert [f.diagnostic.rule for f in big] == ["SA002"]  # too large: not read
        binary = checker.check(path, "---\nname: a\x00b\n---\n")
        assert any("binary" in f.diagnostic.message for f in binary)
        lone = checker.check(path, "---\nname: \ud800\ndescription: x\n---\n")
        assert any(f.diagnostic.severity == "error" for f in lone)
    finally:
        checker.close()


def _apply(text: str, edits: tuple) -> str:
    lines = text.splitlines(keepends=True)
    for e in sorted(edits, key=lambda e: e.start, reverse=True):
        if e.end_column is not None:
            lines[e.start:e.end + 1] = [e.text]
        else:
            lines[e.start:e.end] = [e.text]
    return "".join(lines)


@given(st.lists(st.sampled_from(["a\n", "b\n", "c", "\n", "d\r\n"]), max_size=8),
       st.lists(st.sampled_from(["a\n", "b\n", "c", "\n", "x\r\n"]), max_size=8))
def test_line_edits_turn_old_into_new(old: list[str], new: list[str]) -> None:
    a, b = "".join(old), "".join(new)
    assert _apply(a, line_edits(a, b)) == b


def test_code_actions_repair_suggest_and_silence(project: Path) -> None:
    path = project / ".claude/agents/rev.md"
    checker = Checker()
    try:
        findings = checker.check(path, CLAUDE_BAD)
        actions = code_actions(path, CLAUDE_BAD, findings)
        titles = [a.title for a in actions]
        fix_all = next(a for a in actions if a.kind == "source.fixAll")
        repaired = _apply(CLAUDE_BAD, fix_all.edits)
        assert "SA010" not in {f.diagnostic.rule for f in checker.check(path, repaired)}
        suggest = next(a for a in actions if "'Read'" in a.title)
        assert "tools: Read, Read\n" in _apply(CLAUDE_BAD, suggest.edits)
        silence = next(a for a in actions if a.title.startswith("Silence SA104"))
        silenced = _apply(CLAUDE_BAD, silence.edits)
        assert "SA104" not in {f.diagnostic.rule for f in checker.check(path, silenced)}
        assert any(t.startswith("Repair SA010") for t in titles)
        listed = CLAUDE_BAD.replace("tools: Read, Reed", "tools:\n  - Read\n  - Grep")
        strict = Checker()
        try:
            sa207 = [f for f in strict.check(path, listed, strict=True)
                     if f.diagnostic.rule == "SA207"]
        finally:
            strict.close()
        assert sa207
        comma = next(a for a in code_actions(path, listed, sa207)
                     if "comma-separated" in a.title)
        assert "tools: Read, Grep\n" in _apply(listed, comma.edits)
    finally:
        checker.close()


def test_hover_key_and_rule(project: Path) -> None:
    path = project / ".claude/agents/rev.md"
    checker = Checker()
    try:
        findings = checker.check(path, CLAUDE_BAD)
    finally:
        checker.close()
    lines = CLAUDE_BAD.split("\n")
    on_key = hover_text(lines, 3, 2, Dialect.CLAUDE, findings)
    assert on_key is not None and on_key.startswith("**tools** (Claude Code)")
    on_rule = hover_text(lines, 3, 14, Dialect.CLAUDE, findings)
    assert on_rule is not None and "SA104 unknown-tool" in on_rule
    assert hover_text(lines, 5, 2, Dialect.CLAUDE, findings) is None  # the body
    gemini = ["---", "max_turns: 3", "---"]
    text = hover_text(gemini, 1, 1, Dialect.GEMINI, ())
    assert text is not None and "Gemini CLI" in text and "maxTurns" in text


def _labels(lines: list[str], line: int, dialect: Dialect = Dialect.CLAUDE) -> set[str]:
    return {c.label for c in completions(lines, line, len(lines[line]), dialect)}


def test_completion_by_context() -> None:
    from subagents.claude_code import get_profile

    profile = get_profile()
    doc = ["---", "name: rev", "", "model: ", "color: ", "tools: Read, ", "hooks:", "  Pre",
           "disallowedTools:", "  - ", "---", "body"]
    keys = _labels(doc, 2)
    assert {"description", "maxTurns", "permissionMode"} <= keys and "name" not in keys
    assert {"sonnet", "opus", "haiku", "inherit"} <= _labels(doc, 3)
    assert _labels(doc, 4) == set(profile.colors)
    assert {"Read", "Grep", "Bash"} <= _labels(doc, 5)
    assert _labels(doc, 7) == set(profile.hook_events)
    assert {"Read", "WebFetch"} <= _labels(doc, 9)
    assert _labels(doc, 11) == set()  # the body is the prompt
    gem = ["---", "", "tools:", "  - ", "---"]
    assert {"max_turns", "temperature"} <= _labels(gem, 1, Dialect.GEMINI)
    assert "read_file" in _labels(gem, 3, Dialect.GEMINI)
    toml = ["name = \"x\"", ""]
    assert "developer_instructions" in _labels(toml, 1, Dialect.CODEX)


# ---------------------------------------------------------------------- the server


@pytest.fixture
def client(project: Path, tmp_path: Path):
    home = tmp_path / "home"
    home.mkdir()
    c = LspClient(project, home, "--debounce", "0.02")
    c.initialize(project)
    yield c
    code = c.close()
    assert code == 0
    assert b"Traceback" not in c.stderr, c.stderr.decode(errors="replace")


@pytest.mark.slow
def test_server_diagnostics_action_hover_completion(client: LspClient, project: Path) -> None:
    path = project / ".claude/agents/rev.md"
    uri = client.open(path, CLAUDE_BAD)
    diags = client.diagnostics(uri, version=1)
    assert {d["code"] for d in diags} == {"SA010", "SA104"}
    sa104 = next(d for d in diags if d["code"] == "SA104")
    assert sa104["range"]["start"] == {"line": 3, "character": 13}
    assert sa104["severity"] == 1 and sa104["source"] == "subagents"

    actions = client.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": sa104["range"],
        "context": {"diagnostics": [sa104]}})["result"]
    suggest = next(a for a in actions if "'Read'" in a["title"])
    (edit,) = suggest["edit"]["changes"][uri]
    assert edit["newText"] == "tools: Read, Read\n"
    fix_all = client.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": sa104["range"],
        "context": {"diagnostics": [], "only": ["source.fixAll"]}})["result"]
    assert [a["kind"] for a in fix_all] == ["source.fixAll"]

    hover = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                  "position": {"line": 3, "character": 14}})
    assert "SA104" in hover["result"]["contents"]["value"]
    hover = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                  "position": {"line": 1, "character": 1}})
    assert hover["result"]["contents"]["value"].startswith("**name**")

    fixed = CLAUDE_BAD.replace("Reed", "Grep").replace(
        "Reviews code: use it after edits", "Reviews code. Use it after edits.")
    client.change(uri, 2, fixed + "color: \n")
    client.change(uri, 3, fixed)
    assert client.diagnostics(uri, version=3) == []
    client.change(uri, 4, fixed.replace("tools: Read, Grep\n", "tools: Read, Grep\ncolor: \n"))
    items = client.request("textDocument/completion", {
        "textDocument": {"uri": uri}, "position": {"line": 4, "character": 7}})["result"]
    assert {"red", "blue"} <= {i["label"] for i in items["items"]}


@pytest.mark.slow
def test_server_positions_in_utf16(client: LspClient, project: Path) -> None:
    text = "---\nname: rev\ndescription: \U0001F600 emoji first\ntools: Reed\n---\nHi\n"
    uri = client.open(project / ".claude/agents/rev.md", text)
    diags = client.diagnostics(uri, version=1)
    sa104 = next(d for d in diags if d["code"] == "SA104")
    assert sa104["range"]["start"] == {"line": 3, "character": 7}


@pytest.mark.slow
def test_server_every_harness(client: LspClient, project: Path) -> None:
    for rel, text in sorted(HARNESS_FILES.items()):
        uri = client.open(project / rel, text)
        assert client.diagnostics(uri, version=1), rel


@pytest.mark.slow
def test_server_answers_bad_input_and_keeps_running(client: LspClient, project: Path) -> None:
    client.send_body(b"{this is not json")
    client._pump(lambda: None in client.responses)
    assert client.responses.pop(None)["error"]["code"] == -32700
    client.send_body(b"\xff\xfe\x00binary")
    client._pump(lambda: None in client.responses)
    assert client.responses.pop(None)["error"]["code"] == -32700
    client.send_body(b"[1, 2, 3]")
    client._pump(lambda: None in client.responses)
    assert client.responses.pop(None)["error"]["code"] == -32600
    client.send_body(b"[" * 100_000)  # deeper than the JSON parser goes
    client._pump(lambda: None in client.responses)
    assert client.responses.pop(None)["error"]["code"] == -32700
    assert client.request("no/such/method", {})["error"]["code"] == -32601
    client.notify("no/such/notification", {})
    bad = client.request("textDocument/hover", {"textDocument": 5, "position": "x"})
    assert bad["error"]["code"] in (-32602, -32603)
    client.send_raw(b"Content-Length: nonsense\r\n\r\n")

    path = project / ".claude/agents/big.md"
    uri = client.open(path, "---\nname: big\ndescription: d\n---\n" + "x" * (10 << 20))
    diags = client.diagnostics(uri, version=1)
    assert [d["code"] for d in diags] == ["SA002"]
    actions = client.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": diags[0]["range"],
        "context": {"diagnostics": diags}})["result"]
    assert actions == []
    uri = client.open(project / ".claude/agents/bin.md", "---\nname: a\x00\ud800\n---\n\x01\x02")
    assert any("binary" in d["message"] for d in client.diagnostics(uri, version=1))
    # still answering, with the right results
    uri = client.open(project / ".claude/agents/ok.md", CLAUDE_BAD)
    assert {d["code"] for d in client.diagnostics(uri, version=1)} == {"SA010", "SA104"}
    assert client.proc.poll() is None


@pytest.mark.slow
def test_server_publishes_only_the_newest_text(client: LspClient, project: Path) -> None:
    """Many changes at once: the last version's findings arrive, and no older version's after
    a newer one (stale results are dropped)."""
    uri = client.open(project / ".claude/agents/rev.md", CLAUDE_BAD)
    client.diagnostics(uri, version=1)
    for v in range(2, 40):
        client.change(uri, v, CLAUDE_BAD.replace("Reed", f"Reed{v}"))
    last = client.diagnostics(uri, version=39)
    assert any("Reed39" in d["message"] for d in last)
    published = [n["params"]["version"] for n in client.notifications
                 if n["method"] == "textDocument/publishDiagnostics"]
    assert published == sorted(published)
    assert all(v < 39 for v in published)


@pytest.mark.slow
def test_non_agent_documents_get_nothing(client: LspClient, project: Path) -> None:
    readme = client.open(project / "README.md", CLAUDE_BAD)
    assert client.request("textDocument/hover", {
        "textDocument": {"uri": readme}, "position": {"line": 3, "character": 2}})["result"] is None
    uri = client.open(project / ".claude/agents/rev.md", CLAUDE_BAD)
    client.diagnostics(uri, version=1)
    assert not [n for n in client.notifications
                if (n.get("params") or {}).get("uri") == readme]


def test_lsp_is_not_imported_by_validate(tmp_path: Path) -> None:
    import subprocess

    code = ("import sys; from subagents.cli.main import main\n"
            "try:\n    main(['validate', sys.argv[1]])\nexcept SystemExit:\n    pass\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('pygls', 'lsprotocol', 'cattrs') or m.startswith('subagents.lsp'))))")
    agent = tmp_path / "a.md"
    agent.write_text("---\nname: a\ndescription: An agent.\n---\nHi\n")
    out = subprocess.run([sys.executable, "-c", "import json\n" + code, str(agent)],
                         capture_output=True, text=True, check=True, cwd=tmp_path)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


async def test_a_slow_check_blocks_nothing_and_its_stale_result_is_dropped(
        project: Path) -> None:
    """In process: while a check hangs in the worker, the event loop goes on (changes arrive,
    a newer check is scheduled); the hung check's result, for an old text, is never
    published; the newer text's is."""
    import asyncio
    import threading

    from lsprotocol import types as lsp
    from pygls.workspace import Workspace

    from subagents.lsp.server import build_server

    server = build_server(debounce=0)
    server.protocol._workspace = Workspace(project.as_uri())
    published: list[tuple[int | None, list[str]]] = []
    server.text_document_publish_diagnostics = (  # type: ignore[method-assign]
        lambda p: published.append((p.version, [str(d.code) for d in p.diagnostics])))
    release = threading.Event()
    started = threading.Event()
    real_check = server.checker.check

    def slow_check(path: Path, text: str, *, strict: bool = False):  # a rule that hangs
        if "SLOW" in text:
            started.set()
            release.wait(30)
        return real_check(path, text, strict=strict)

    server.checker.check = slow_check  # type: ignore[method-assign]
    uri = (project / ".claude/agents/rev.md").as_uri()
    try:
        server.workspace.put_text_document(lsp.TextDocumentItem(
            uri=uri, language_id="markdown", version=1, text=CLAUDE_BAD + "SLOW\n"))
        server.schedule(uri, 0)
        while not started.is_set():
            await asyncio.sleep(0.005)
        # the check hangs in the worker; the loop still runs: a change comes in
        server.workspace.put_text_document(lsp.TextDocumentItem(
            uri=uri, language_id="markdown", version=2, text=CLAUDE_BAD))
        server.schedule(uri, 0)
        await asyncio.sleep(0.05)
        assert published == []  # nothing yet, and the loop was not blocked to get here
        release.set()
        while not published:
            await asyncio.sleep(0.005)
        await asyncio.sleep(0.05)
        assert published == [(2, ["SA010", "SA104"])]
    finally:
        release.set()
        server.shutdown()
