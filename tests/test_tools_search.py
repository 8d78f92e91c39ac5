"""Grep / Glob / LS / TodoWrite / web tools off by default."""

from __future__ import annotations

from pathlib import Path

import pytest

from runtime_helpers import ctx_for
from subagents.runtime.tools import builtin_tools
from subagents.runtime.tools.search import GlobTool, GrepTool, LSTool
from subagents.runtime.tools.todo import TodoWriteTool
from subagents.runtime.tools.web import WebFetchTool, WebSearchTool


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("import os\nTODO = 1\n# todo later\n")
    (tmp_path / "src" / "b.ts").write_text("const TODO = 2;\n")
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "x.py").write_text("TODO\n")
    (tmp_path / "bin.dat").write_bytes(b"TODO\x00\x01")
    (tmp_path / "README.md").write_text("nothing\n")
    return tmp_path


async def test_grep_modes(tree: Path) -> None:
    ctx = ctx_for(tree)
    files = await GrepTool().run({"pattern": "TODO"}, ctx)
    # Claude Code's shape; no node_modules, no binary file
    assert files.content.splitlines() == ["Found 2 files", "src/a.py", "src/b.ts"]
    content = await GrepTool().run({"pattern": "todo", "-i": True, "output_mode": "content",
                                    "glob": "*.py"}, ctx)
    assert content.content.splitlines() == ["src/a.py:2:TODO = 1", "src/a.py:3:# todo later"]
    count = await GrepTool().run({"pattern": "TODO", "output_mode": "count", "type": "ts"}, ctx)
    assert count.content == "src/b.ts:1\n\nFound 1 total occurrence across 1 file."
    both = await GrepTool().run({"pattern": "TODO", "output_mode": "count"}, ctx)
    assert both.content.endswith("Found 2 total occurrences across 2 files.")
    ctx_lines = await GrepTool().run({"pattern": "^TODO", "output_mode": "content", "-B": 1,
                                      "path": "src/a.py"}, ctx)
    assert ctx_lines.content.splitlines() == ["src/a.py-1-import os", "src/a.py:2:TODO = 1"]
    none = await GrepTool().run({"pattern": "zzz"}, ctx)
    assert not none.is_error and none.content == "No matches found"


async def test_grep_bad_regex_and_path(tree: Path) -> None:
    bad = await GrepTool().run({"pattern": "("}, ctx_for(tree))
    assert bad.is_error and "invalid regular expression" in bad.content
    missing = await GrepTool().run({"pattern": "x", "path": "nope"}, ctx_for(tree))
    assert missing.is_error


async def test_glob_and_ls(tree: Path) -> None:
    ctx = ctx_for(tree)
    g = await GlobTool().run({"pattern": "**/*.{py,ts}"}, ctx)
    assert sorted(g.content.splitlines()) == ["src/a.py", "src/b.ts"]
    none = await GlobTool().run({"pattern": "*.rs"}, ctx)
    assert none.content == "No files found"
    ls = await LSTool().run({}, ctx)
    head, *lines = ls.content.splitlines()
    assert head == f"- {tree.resolve()}/"  # Claude Code's LS shape
    assert lines == ["  - node_modules/", "  - src/", "  - README.md", "  - bin.dat"]
    ls2 = await LSTool().run({"path": ".", "ignore": ["node_*", "*.dat"]}, ctx)
    assert "node_modules/" not in ls2.content and "bin.dat" not in ls2.content
    not_dir = await LSTool().run({"path": "README.md"}, ctx)
    assert not_dir.is_error


async def test_todowrite_keeps_the_list_in_the_run(tmp_path: Path) -> None:
    ctx = ctx_for(tmp_path)
    out = await TodoWriteTool().run({"todos": [
        {"content": "read", "status": "completed"},
        {"content": "write", "status": "in_progress"},
    ]}, ctx)
    assert "1/2 done" in out.content and "[x] read" in out.content
    assert [t["content"] for t in ctx.todos] == ["read", "write"]
    assert TodoWriteTool().validate({"todos": [{"content": "x", "status": "done"}]})


async def test_web_tools_are_off_unless_configured(tmp_path: Path) -> None:
    assert "WebFetch" not in builtin_tools() and "WebSearch" not in builtin_tools()
    tools = builtin_tools(web=True, search_backend=lambda q: [
        {"title": "T", "url": "https://docs.example.com/x", "snippet": "s"},
        {"title": "U", "url": "https://other.org/y", "snippet": "s"},
    ])
    assert isinstance(tools["WebFetch"], WebFetchTool)
    hits = await tools["WebSearch"].run({"query": "x", "allowed_domains": ["example.com"]},
                                        ctx_for(tmp_path))
    assert "docs.example.com" in hits.content and "other.org" not in hits.content
    off = await WebSearchTool().run({"query": "x"}, ctx_for(tmp_path))
    assert off.is_error
    scheme = await WebFetchTool().run({"url": "file:///etc/passwd"}, ctx_for(tmp_path))
    assert scheme.is_error and "only http" in scheme.content
