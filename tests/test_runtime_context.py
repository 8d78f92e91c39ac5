"""The context a run works in: CLAUDE.md files, the git snapshot, the environment, the harness
text, and where each goes for the main thread, a subagent and an agent run as the main thread.

The expected orders and limits were measured on Claude Code 2.1.332 (runtime/context/*.py say
how); hostile files are bounded and noted, and the run goes on.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hypothesis_helpers import examples
from subagents.definition import AgentDefinition
from subagents.providers.base import ModelRequest, TextBlock
from subagents.runtime.context import (
    HANDBACK_RULES,
    MAIN_THREAD_PROMPT,
    ContextCache,
    environment_block,
    find_instructions,
    git_snapshot,
    load_project_context,
)
from subagents.runtime.context.claude_md import MAX_IMPORT_DEPTH, import_targets
from subagents.runtime.context.git import STATUS_MAX_CHARS
from subagents.runtime.runner import AgentRunner
from subagents.testing import ScriptedModel, text, tool_call

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git is not installed")


def write(path: Path, content: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8")
    return path


def names(found: object, root: Path) -> list[str]:
    return [os.path.relpath(f.path, root) for f in found.files]  # type: ignore[attr-defined]


def git_init(folder: Path, *, commit: bool = True) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e"}
    subprocess.run(["git", "init", "-q", "-b", "main", str(folder)], check=True, env=env)
    if commit:
        subprocess.run(["git", "-C", str(folder), "add", "-A"], check=True, env=env)
        subprocess.run(["git", "-C", str(folder), "commit", "-qm", "first commit",
                        "--allow-empty"], check=True, env=env)


# ------------------------------------------------------------------------ which files, in order


def test_files_in_claude_codes_order(tmp_path: Path) -> None:
    home, top = tmp_path / "home", tmp_path / "w"
    proj = top / "proj"
    write(home / ".claude" / "CLAUDE.md", "USER")
    write(home / ".claude" / "rules" / "u1.md", "USER RULE")
    write(top / "CLAUDE.md", "ABOVE THE PROJECT")
    write(proj / "CLAUDE.md", "ROOT")
    write(proj / ".claude" / "CLAUDE.md", "DOT CLAUDE")
    write(proj / ".claude" / "rules" / "b.md", "RULE B")
    write(proj / ".claude" / "rules" / "a" / "nested.md", "NESTED RULE")
    write(proj / ".claude" / "rules" / "notes.txt", "not a rule")
    write(proj / ".claude" / "rules" / "scoped.md", "---\npaths:\n  - src/**\n---\nSCOPED")
    write(proj / "CLAUDE.local.md", "LOCAL")
    write(proj / "sub" / "CLAUDE.md", "SUB")
    write(proj / "sub" / "deeper" / "CLAUDE.md", "BELOW THE WORKING FOLDER")
    write(proj / "other" / "CLAUDE.md", "A SIBLING")
    found = find_instructions(proj / "sub", home=home, stop_at=tmp_path)
    assert names(found, tmp_path) == [
        "home/.claude/CLAUDE.md", "home/.claude/rules/u1.md", "w/CLAUDE.md",
        "w/proj/CLAUDE.md", "w/proj/.claude/CLAUDE.md", "w/proj/.claude/rules/a/nested.md",
        "w/proj/.claude/rules/b.md", "w/proj/CLAUDE.local.md", "w/proj/sub/CLAUDE.md"]
    assert [f.scope for f in found.files] == ["user", "user", "project", "project", "project",
                                              "project", "project", "local", "project"]
    assert found.notes == ()


def test_no_files_no_block(tmp_path: Path) -> None:
    found = find_instructions(tmp_path, home=tmp_path / "home", stop_at=tmp_path)
    assert found.files == () and found.render() is None


def test_render_is_one_reminder_with_every_path(tmp_path: Path) -> None:
    write(tmp_path / "CLAUDE.md", "Always answer in English.\n")
    block = find_instructions(tmp_path, home=tmp_path / "h", stop_at=tmp_path).render()
    assert block is not None
    assert block.startswith("<system-reminder>\n") and block.endswith("\n</system-reminder>")
    assert f"{tmp_path / 'CLAUDE.md'} (project instructions" in block
    assert "Always answer in English." in block


# ------------------------------------------------------------------------ imports


def test_import_syntax() -> None:
    doc = ("See @a.md and @./b/c.md, @~/h.md @/abs/x.md @sp\\ ace.md\n"
           "mail foo@bar.com (@paren.md) `@code.md`\n```\n@fenced.md\n```\n@after.md\n")
    assert import_targets(doc) == ["a.md", "./b/c.md,", "~/h.md", "/abs/x.md", "sp ace.md",
                                   "after.md"]


def test_imports_depth_first_relative_to_the_importer(tmp_path: Path) -> None:
    write(tmp_path / "CLAUDE.md", "ROOT @notes.md @docs/a.md @missing.md @folder/ @blob.dat")
    write(tmp_path / "notes.md", "NOTES")
    write(tmp_path / "docs" / "a.md", "A then @b.md")
    write(tmp_path / "docs" / "b.md", "B")
    (tmp_path / "folder").mkdir()
    (tmp_path / "blob.dat").write_bytes(b"DATA")
    found = find_instructions(tmp_path, home=tmp_path / "h", stop_at=tmp_path)
    assert names(found, tmp_path) == ["CLAUDE.md", "notes.md", "docs/a.md", "docs/b.md"]
    assert found.files[3].imported_by == tmp_path / "docs" / "a.md"
    assert found.notes == ()  # missing files, folders and binary extensions are quiet


def test_import_depth_limit(tmp_path: Path) -> None:
    write(tmp_path / "CLAUDE.md", "@d1.md")
    for i in range(1, 8):
        write(tmp_path / f"d{i}.md", f"D{i} @d{i + 1}.md")
    found = find_instructions(tmp_path, home=tmp_path / "h", stop_at=tmp_path)
    assert names(found, tmp_path) == ["CLAUDE.md"] + [f"d{i}.md" for i in
                                                      range(1, MAX_IMPORT_DEPTH + 1)]


def test_import_cycles_end(tmp_path: Path) -> None:
    write(tmp_path / "CLAUDE.md", "@a.md")
    write(tmp_path / "a.md", "A @b.md")
    write(tmp_path / "b.md", "B @a.md @CLAUDE.md @b.md")
    found = find_instructions(tmp_path, home=tmp_path / "h", stop_at=tmp_path)
    assert names(found, tmp_path) == ["CLAUDE.md", "a.md", "b.md"]


def test_imports_out_of_the_project_are_not_followed(tmp_path: Path) -> None:
    outside = write(tmp_path / "secret" / "key.md", "SECRET")
    proj = tmp_path / "proj"
    write(proj / "CLAUDE.md", f"@{outside} @../secret/key.md @link.md")
    (proj / "link.md").symlink_to(outside)
    found = find_instructions(proj, home=tmp_path / "h", stop_at=proj)
    assert names(found, proj) == ["CLAUDE.md"]
    assert all("SECRET" not in f.text for f in found.files)
    assert found.notes and all("outside the working folder" in n for n in found.notes)


def test_user_files_may_import_from_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write(home / ".claude" / "CLAUDE.md", "@~/shared.md @rel.md")
    write(home / "shared.md", "SHARED")
    write(home / ".claude" / "rel.md", "REL")
    found = find_instructions(tmp_path / "proj", home=home, stop_at=tmp_path / "proj")
    assert [f.text for f in found.files] == ["@~/shared.md @rel.md", "SHARED", "REL"]


def test_rules_symlinked_out_of_the_project_are_skipped(tmp_path: Path) -> None:
    outside = write(tmp_path / "elsewhere.md", "ELSEWHERE")
    proj = tmp_path / "proj"
    (proj / ".claude" / "rules").mkdir(parents=True)
    (proj / ".claude" / "rules" / "link.md").symlink_to(outside)
    found = find_instructions(proj, home=tmp_path / "h", stop_at=proj)
    assert found.files == ()


# ------------------------------------------------------------------------ hostile files


def test_huge_file_is_cut_and_noted(tmp_path: Path) -> None:
    write(tmp_path / "CLAUDE.md", "x" * 5000)
    found = find_instructions(tmp_path, home=tmp_path / "h", stop_at=tmp_path,
                              max_file_bytes=1000)
    (only,) = found.files
    assert only.truncated and only.text.startswith("x" * 1000) and "cut here" in only.text
    assert len(only.text) < 1200
    assert any("first 1,000 bytes" in n for n in found.notes)


def test_total_budget_leaves_later_files_out(tmp_path: Path) -> None:
    write(tmp_path / "CLAUDE.md", "a" * 600 + " @b.md")
    write(tmp_path / "b.md", "b" * 600)
    write(tmp_path / "CLAUDE.local.md", "LOCAL")
    found = find_instructions(tmp_path, home=tmp_path / "h", stop_at=tmp_path,
                              max_total_chars=1000)
    assert names(found, tmp_path) == ["CLAUDE.md"]
    assert any("left out" in n for n in found.notes)


def test_binary_file_is_skipped_with_a_note(tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").write_bytes(b"text\x00\x01binary")
    found = find_instructions(tmp_path, home=tmp_path / "h", stop_at=tmp_path)
    assert found.files == ()
    assert any("NUL bytes" in n for n in found.notes)


def test_undecodable_bytes_are_replaced(tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").write_bytes(b"caf\xe9 rules")
    (only,) = find_instructions(tmp_path, home=tmp_path / "h", stop_at=tmp_path).files
    assert only.text == "caf\ufffd rules"


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_symlink_to_dev_zero_is_not_read(tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").symlink_to("/dev/zero")
    write(tmp_path / "CLAUDE.local.md", "@zero.md")
    (tmp_path / "zero.md").symlink_to("/dev/zero")
    found = find_instructions(tmp_path, home=tmp_path / "h", stop_at=tmp_path)
    assert names(found, tmp_path) == ["CLAUDE.local.md"]
    regular, outside = found.notes
    assert "CLAUDE.md: not read: not a regular file" in regular
    assert "@zero.md not followed" in outside  # its real path is /dev/zero


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_does_not_hang(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "CLAUDE.md")
    found = find_instructions(tmp_path, home=tmp_path / "h", stop_at=tmp_path)
    assert found.files == () and found.notes


@pytest.mark.skipif(os.geteuid() == 0 if hasattr(os, "geteuid") else True,
                    reason="root reads unreadable files")
def test_unreadable_file_is_noted(tmp_path: Path) -> None:
    path = write(tmp_path / "CLAUDE.md", "hidden")
    path.chmod(0)
    try:
        found = find_instructions(tmp_path, home=tmp_path / "h", stop_at=tmp_path)
    finally:
        path.chmod(0o644)
    assert found.files == () and any("not read" in n for n in found.notes)


def test_symlink_loop_is_quiet(tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").symlink_to(tmp_path / "CLAUDE.md")
    found = find_instructions(tmp_path, home=tmp_path / "h", stop_at=tmp_path)
    assert found.files == ()


# ------------------------------------------------------------------------ git


@needs_git
def test_git_snapshot_fields(tmp_path: Path) -> None:
    write(tmp_path / "a.txt", "a")
    git_init(tmp_path)
    write(tmp_path / "a.txt", "changed")
    write(tmp_path / "new.txt", "n")
    snap = git_snapshot(tmp_path)
    assert snap is not None
    assert snap.branch == "main" and snap.main_branch == "main"
    assert snap.status.splitlines() == [" M a.txt", "?? new.txt"]
    assert snap.commits.endswith(" first commit")
    block = snap.render()
    assert block.startswith("<system-reminder>\n") and block.endswith("</system-reminder>")
    for label in ("Current branch: main", "Main branch", "Status:", "Recent commits:"):
        assert label in block


@needs_git
def test_git_status_is_cut(tmp_path: Path) -> None:
    git_init(tmp_path)
    for i in range(300):
        write(tmp_path / f"untracked_file_with_a_long_name_{i:03d}.txt", "u")
    snap = git_snapshot(tmp_path)
    assert snap is not None and snap.status_cut and len(snap.status) == STATUS_MAX_CHARS
    assert "[cut at 2,000 characters" in snap.render()


@needs_git
def test_git_no_commits_and_clean(tmp_path: Path) -> None:
    git_init(tmp_path, commit=False)
    snap = git_snapshot(tmp_path)
    assert snap is not None and snap.branch == "main"
    block = snap.render()
    assert "(clean)" in block and "(no commits yet)" in block


def test_not_a_repository_no_block(tmp_path: Path) -> None:
    assert git_snapshot(tmp_path) is None
    context = load_project_context(tmp_path, home=tmp_path / "h", stop_at=tmp_path)
    assert context.git is None and context.blocks("main") == []


def test_no_git_binary_no_block(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".git").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    assert git_snapshot(tmp_path) is None


@needs_git
def test_repository_commands_never_run(tmp_path: Path) -> None:
    """fsmonitor, a clean filter and a signature program planted in the repository's own
    config: the snapshot runs none of them (a plain ``git status`` would)."""
    proj = tmp_path / "proj"
    write(proj / "a.txt", "content\n")
    write(proj / ".gitattributes", "*.txt filter=evil\n")
    git_init(proj)
    marks = tmp_path / "marks"
    marks.mkdir()
    script = write(tmp_path / "evil.sh", f"#!/bin/sh\ntouch {marks}/$1\ncat\n")
    script.chmod(0o755)
    for key, value in (("core.fsmonitor", f"{script} fsmonitor"),
                       ("filter.evil.clean", f"{script} clean"),
                       ("log.showSignature", "true"), ("gpg.program", f"{script} gpg")):
        subprocess.run(["git", "-C", str(proj), "config", key, value], check=True)
    os.utime(proj / "a.txt", (1, 1))  # stat changed: status must look at the content
    snap = git_snapshot(proj)
    assert snap is not None and list(marks.iterdir()) == []
    # the control: the same repository does run them for an ordinary git status
    subprocess.run(["git", "-C", str(proj), "status", "--short"], capture_output=True,
                   check=False)
    assert {p.name for p in marks.iterdir()} & {"fsmonitor", "clean"}


# ------------------------------------------------------------------------ environment


def test_environment_block(tmp_path: Path) -> None:
    block = environment_block(tmp_path, "claude-opus-5-5", git=False)
    assert block.startswith("# Environment")
    assert f"Working directory: {tmp_path}" in block and "Git repository: no" in block
    assert "Opus 5.5" in block and "claude-opus-5-5" in block
    assert "Platform:" in block and "Shell:" in block and "OS version:" in block
    assert "Today's date:" in block
    assert "my-model" in environment_block(tmp_path, "my-model", git=True)


# ------------------------------------------------------------------------ in a run

AGENT = AgentDefinition(name="reviewer", description="Reviews.", system_prompt="You review.")


def first_request(model: ScriptedModel) -> ModelRequest:
    return model.requests[0]


def lead_texts(request: ModelRequest) -> list[str]:
    return [b.text for b in request.messages[0].content if isinstance(b, TextBlock)]


@pytest.fixture(name="project")
def project_fixture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    proj = tmp_path / "proj"
    write(proj / "CLAUDE.md", "PROJECT-RULE: answer in English.\n")
    if GIT:
        git_init(proj)
    return proj


def runner_for(model: ScriptedModel, proj: Path, **kw: object) -> AgentRunner:
    return AgentRunner(model, cwd=proj, include_env=True, project_context=True,
                       handback_rules=True, **kw)  # type: ignore[arg-type]


@needs_git
def test_agent_as_main_thread_gets_claude_md_only(project: Path) -> None:
    model = ScriptedModel([text("ok")])
    runner_for(model, project).run_sync(AGENT, "Review it.")
    request = first_request(model)
    texts = lead_texts(request)
    assert len(texts) == 2 and "PROJECT-RULE" in texts[0] and texts[1] == "Review it."
    assert request.system.startswith("You review.") and HANDBACK_RULES not in request.system
    assert "# Environment" in request.system and "Git repository: yes" in request.system


@needs_git
def test_main_thread_gets_claude_md_and_git(project: Path) -> None:
    model = ScriptedModel([text("ok")])
    main = AgentDefinition(name="main", description="d", system_prompt=MAIN_THREAD_PROMPT)
    runner_for(model, project).run_sync(main, "Hello.", role="main")
    texts = lead_texts(first_request(model))
    assert "PROJECT-RULE" in texts[0] and "Current branch: main" in texts[1]
    assert texts[2] == "Hello."


@needs_git
def test_subagent_gets_claude_md_git_and_handback_rules(project: Path) -> None:
    from subagents.runtime.tools.base import ToolContext

    model = ScriptedModel([text("child report")])
    runner = runner_for(model, project)
    parent = ToolContext(cwd=project, agent_name="main", model="claude-opus-5-5", depth=0)
    result = runner.run_sync(AGENT, "Check notes.", parent=parent)
    assert result.final_text == "child report"
    request = first_request(model)
    texts = lead_texts(request)
    assert "PROJECT-RULE" in texts[0] and "Current branch" in texts[1]
    assert texts[2] == "Check notes."
    body, rules = request.system.index("You review."), request.system.index(HANDBACK_RULES)
    assert body < rules < request.system.index("# Environment")


def test_library_default_adds_nothing(project: Path) -> None:
    model = ScriptedModel([text("ok")])
    AgentRunner(model, cwd=project).run_sync(AGENT, "Review it.")
    request = first_request(model)
    assert lead_texts(request) == ["Review it."] and request.system == "You review."


def test_non_git_folder_has_no_git_block(tmp_path: Path) -> None:
    write(tmp_path / "CLAUDE.md", "RULE")
    model = ScriptedModel([text("ok")])
    runner_for(model, tmp_path).run_sync(AGENT, "Go.", role="main")
    texts = lead_texts(first_request(model))
    assert len(texts) == 2 and "RULE" in texts[0] and "Git repository: no" in \
        first_request(model).system


def test_hostile_claude_md_is_noted_and_the_run_goes_on(tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").write_bytes(b"\x00" * 100)
    write(tmp_path / "CLAUDE.local.md", "@a.md")
    write(tmp_path / "a.md", "@CLAUDE.local.md A")
    model = ScriptedModel([text("fine")])
    result = runner_for(model, tmp_path).run_sync(AGENT, "Go.")
    assert result.final_text == "fine" and result.stop_reason == "end_turn"
    assert any("NUL bytes" in w for w in result.warnings)
    assert "A" in lead_texts(first_request(model))[0]


def test_project_is_read_once_per_runner(tmp_path: Path) -> None:
    write(tmp_path / "CLAUDE.md", "ONE")
    cache = ContextCache()
    first, fresh = cache.get(tmp_path)
    write(tmp_path / "CLAUDE.md", "TWO")
    again, fresh_again = cache.get(tmp_path)
    assert fresh and not fresh_again and again is first


# ------------------------------------------------------------------------ the CLI, end to end

CLI_REVIEWER = """---
name: code-reviewer
description: Reviews code for bugs.
tools: Read
model: sonnet
effort: low
---
You are a meticulous code reviewer.
"""


@needs_git
def test_cli_run_sends_context_and_parameters(project: Path, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """``subagents run`` through the real Anthropic SDK: the main thread, a subagent and
    ``--agent`` each get their context and the measured generation parameters."""
    from click.testing import CliRunner

    from subagents.cli.main import cli
    from subagents.testing.server import FakeLLMServer

    write(project / ".claude" / "agents" / "code-reviewer.md", CLI_REVIEWER)
    monkeypatch.chdir(project)
    monkeypatch.setenv("SUBAGENTS_TRANSCRIPT_DIR", str(tmp_path / "transcripts"))
    for name in ("ANTHROPIC_MODEL", "CLAUDE_CODE_SUBAGENT_MODEL", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    with FakeLLMServer() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-a-real-key")
        server.add(tool_call("Task", {"description": "review", "prompt": "SUB: review it",
                                      "subagent_type": "code-reviewer",
                                      "run_in_background": False}),
                   text("child report"), text("main done"), text("agent done"))
        first = CliRunner().invoke(cli, ["run", "--provider", "anthropic", "Review please."])
        assert first.exit_code == 0, first.output
        second = CliRunner().invoke(cli, ["run", "--provider", "anthropic", "--agent",
                                          "code-reviewer", "--effort", "high", "--max-tokens",
                                          "9000", "Look."])
        assert second.exit_code == 0, second.output
    main1, child, _main2, agent = (r.json for r in server.requests)

    def lead(body: dict[str, object]) -> list[str]:
        blocks = body["messages"][0]["content"]  # type: ignore[index]
        return [b["text"] for b in blocks]  # type: ignore[union-attr]

    assert main1["model"] == "claude-opus-5-5" and main1["max_tokens"] == 128000
    assert main1["thinking"] == {"type": "adaptive"}
    assert main1["output_config"] == {"effort": "medium"}
    assert main1["system"].startswith(MAIN_THREAD_PROMPT) and "# Environment" in main1["system"]
    m = lead(main1)
    assert len(m) == 4 and "PROJECT-RULE" in m[0] and "Current branch" in m[1]
    assert m[2] == "Review please."
    assert m[3].startswith("<system-reminder>\nAvailable agent types for the Agent tool:")
    assert child["model"] == "claude-sonnet-5-5"
    assert child["thinking"] == {"type": "adaptive", "display": "omitted"}
    assert child["output_config"] == {"effort": "low"}  # its own effort frontmatter
    assert HANDBACK_RULES in child["system"]
    c = lead(child)
    assert len(c) == 3 and "PROJECT-RULE" in c[0] and "Current branch" in c[1]
    assert c[2] == "SUB: review it"
    assert agent["max_tokens"] == 9000 and agent["output_config"] == {"effort": "high"}
    assert HANDBACK_RULES not in agent["system"]
    a = lead(agent)
    assert len(a) == 2 and "PROJECT-RULE" in a[0] and a[1] == "Look."


def test_large_instructions_get_a_note(tmp_path: Path) -> None:
    write(tmp_path / "CLAUDE.md", "r" * 45_000)
    found = find_instructions(tmp_path, home=tmp_path / "h", stop_at=tmp_path)
    assert len(found.files) == 1 and any("45,000 characters" in n for n in found.notes)


# ------------------------------------------------------------------------ any text at all

_WORDS = st.sampled_from(["@a.md", "@b.md", "@./c.md", "@~/x.md", "@../out.md", "@/dev/zero",
                          "@a.md,", "`@a.md`", "```", "~~~", "@", "\\ ", "text", "\n", " ",
                          "@sub/", "@CLAUDE.md", "\x00", "é", "@@a.md"])


@settings(max_examples=examples(100), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(docs=st.lists(st.lists(_WORDS, max_size=30).map("".join), min_size=4, max_size=4))
def test_any_instructions_are_read_bounded(tmp_path: Path, docs: list[str]) -> None:
    """Whatever the files say (imports of each other, of themselves, of devices, NUL bytes),
    the search ends, never raises, and stays within its budget."""
    root = tmp_path / "case"
    if root.exists():
        shutil.rmtree(root)
    for name, body in zip(("CLAUDE.md", "a.md", "b.md", "c.md"), docs, strict=True):
        write(root / name, body)
    write(root / "sub" / "x.md", "X")
    found = find_instructions(root, home=tmp_path / "h", stop_at=root, max_total_chars=500)
    assert found.chars <= 500 + 200  # the budget, plus at most one cut-here line
    assert len({f.path for f in found.files}) == len(found.files)  # each file once
    for f in found.files:
        assert f.path.resolve().is_relative_to(root.resolve())
    rendered = found.render()
    assert rendered is None or rendered.count("<system-reminder>") == 1


def test_transcript_start_says_what_context_and_parameters_a_run_had(tmp_path: Path) -> None:
    import json

    write(tmp_path / "proj" / "CLAUDE.md", "RULE")
    model = ScriptedModel([text("ok")])
    runner = runner_for(model, tmp_path / "proj", transcript_dir=tmp_path / "t")
    result = runner.run_sync(AGENT, "Go.")
    assert result.transcript_path is not None
    start = json.loads(result.transcript_path.read_text().splitlines()[0])
    assert start["role"] == "agent" and start["max_tokens"] == 128000
    assert (start["thinking"], start["effort"]) == ("adaptive", "medium")
    assert str(tmp_path / "proj" / "CLAUDE.md") in start["context"]
