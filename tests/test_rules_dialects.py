"""SA5xx dialect rules (Codex, agents.json) and SA6xx scope rules."""

from __future__ import annotations

from pathlib import Path

from subagents.definition import Dialect
from subagents.diagnostics import Severity
from subagents.lint.validate import validate_paths
from validate_helpers import GOOD_FRONT, agent, codes, diags, only, write


def test_codex_name_and_lists() -> None:
    text = agent("name: Reviewer\ntools: [apply_patch, '', apply_patch]\n"
                 "keywords: [review, lint, review]", body="Review diffs.\n")
    ds = diags(text, dialect=Dialect.CODEX_MD)
    (n,) = only(ds, "SA501")
    assert (n.line, n.column) == (2, 7)
    assert [(d.line, d.column) for d in only(ds, "SA502")] == [(3, 22)]
    assert [(d.line, d.column) for d in only(ds, "SA503")] == [(3, 26), (4, 26)]
    # Codex: description optional, tool ids are its own, no Claude name rules
    assert not {"SA103", "SA104", "SA101", "SA206", "SA302"} & set(codes(ds))


def test_codex_good_file() -> None:
    text = agent("name: reviewer\ndescription: Reviews diffs\nmodel: gpt-5-codex\n"
                 "tools: [apply_patch, git_diff]\nkeywords: [review, diff]",
                 body="You are a meticulous reviewer.\n")
    ds = diags(text, dialect=Dialect.CODEX_MD)
    assert [d for d in ds if d.severity is Severity.ERROR] == []


def test_json_name_and_model_rules() -> None:
    text = ('{\n  "Fact Checker": {"description": "Checks facts online", '
            '"prompt": "You check facts against sources and cite them.", '
            '"model": "claude-opus-4-1"}\n}\n')
    ds = diags(text, dialect=Dialect.JSON)
    (n,) = only(ds, "SA504")
    (m,) = only(ds, "SA505")
    assert n.line == 2 and m.line == 2
    assert m.severity is Severity.WARNING
    (ms,) = only(diags(text, dialect=Dialect.JSON, strict=True), "SA505")
    assert ms.severity is Severity.ERROR


def test_duplicate_names_in_one_scope_report_the_file_claude_code_ignores(
    tmp_path: Path,
) -> None:
    write(tmp_path, ".claude/agents/a.md", agent(GOOD_FRONT))
    write(tmp_path, ".claude/agents/sub/b.md", agent(GOOD_FRONT))
    # the same name in another scope/dialect is not a clash
    write(tmp_path, ".codex/agents/c.md", agent("name: code-reviewer\ndescription: Reviews"))
    write(tmp_path, ".codex/agents/d.md", agent("name: code-reviewer\ndescription: Reviews"))
    report = validate_paths([tmp_path])
    dup = only(report, "SA601")
    # Claude Code 2.1.330 keeps the last path in code-unit order (sub/b.md) and ignores a.md
    claude = [d for d in dup if "/.claude/" in d.path]
    assert [d.path.rsplit("/", 1)[-1] for d in claude] == ["a.md"]
    assert "sub/b.md" in claude[0].message and "Claude Code 2.1.332" in claude[0].message
    # Codex-style Markdown: both files are reported, each naming the other
    codex = {d.path.rsplit("/", 1)[-1]: d for d in dup if "/.codex/" in d.path}
    assert "d.md:2" in codex["c.md"].message and "c.md:2" in codex["d.md"].message
    assert all(d.line == 2 and d.severity is Severity.ERROR for d in dup)


def test_each_agents_json_is_its_own_scope(tmp_path: Path) -> None:
    entry = '{"researcher": {"description": "Finds sources", "prompt": "Find sources."}}'
    write(tmp_path, "groups/global/agents.json", entry)
    write(tmp_path, "groups/family/agents.json", entry)
    assert only(validate_paths([tmp_path]), "SA601") == []


def test_scope_findings_obey_the_files_silencers(tmp_path: Path) -> None:
    write(tmp_path, "agents/a.md", agent(GOOD_FRONT + "# subagents: ignore[SA601]\n"))
    write(tmp_path, "agents/b.md", agent(GOOD_FRONT))
    write(tmp_path, "agents/c.md", agent(GOOD_FRONT))
    # c.md is the one Claude Code keeps; a.md and b.md are ignored, and a.md says "quiet"
    dup = only(validate_paths([tmp_path / "agents"]), "SA601")
    assert [d.path.rsplit("/", 1)[-1] for d in dup] == ["b.md"]


def test_similar_descriptions_use_the_router(tmp_path: Path) -> None:
    desc = "Reviews pull requests for security vulnerabilities and style problems"
    write(tmp_path, "agents/a.md", agent(f"name: alpha-reviewer\ndescription: {desc}"))
    write(tmp_path, "agents/b.md", agent(f"name: beta-reviewer\ndescription: {desc}"))
    write(tmp_path, "agents/c.md", agent("name: gamma\ndescription: Writes database migrations"))
    report = validate_paths([tmp_path / "agents"])
    sim = only(report, "SA602")
    assert sorted(d.path.rsplit("/", 1)[-1] for d in sim) == ["a.md", "b.md"]
    assert all(d.severity is Severity.WARNING for d in sim)
    assert not only(validate_paths([tmp_path / "agents"], ignore=["SA6"]), "SA602")
