"""Grep / Glob / LS / TodoWrite / web tools off by default."""

from __future__ import annotations

import os
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
    os.utime(tmp_path / "src" / "a.py", (200, 200))  # newer: listed first
    os.utime(tmp_path / "src" / "b.ts", (100, 100))
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
    assert not none.is_error and none.content == "No files found"
    none_content = await GrepTool().run({"pattern": "zzz", "output_mode": "content"}, ctx)
    assert none_content.content == "No matches found"
    none_count = await GrepTool().run({"pattern": "zzz", "output_mode": "count"}, ctx)
    assert none_count.content == "No matches found\n\nFound 0 total occurrences across 0 files."
    only = await GrepTool().run({"pattern": "TO\\w+", "output_mode": "content", "-o": True,
                                 "path": "src"}, ctx)
    assert only.content.splitlines() == ["src/a.py:2:TODO", "src/b.ts:1:TODO"]
    around = await GrepTool().run({"pattern": "^TODO", "output_mode": "content", "context": 1,
                                   "path": "src/a.py", "-n": False}, ctx)
    assert around.content.splitlines() == ["src/a.py-import os", "src/a.py:TODO = 1",
                                           "src/a.py-# todo later"]


async def test_grep_pages_and_orders_like_claude_code(tmp_path: Path) -> None:
    (tmp_path / "m").mkdir()
    for i in range(300):
        f = tmp_path / "m" / f"f{i:03d}.txt"
        f.write_text("hay\nneedle x\n")
        os.utime(f, (1_000_000 + i, 1_000_000 + i))
    ctx = ctx_for(tmp_path)
    files = await GrepTool().run({"pattern": "needle"}, ctx)
    lines = files.content.splitlines()
    assert lines[0] == "Found 250 files limit: 250"
    assert lines[1:3] == ["m/f299.txt", "m/f298.txt"]  # newest first
    page = await GrepTool().run({"pattern": "needle", "head_limit": 3, "offset": 2}, ctx)
    assert page.content.splitlines() == ["Found 3 files limit: 3, offset: 2", "m/f297.txt",
                                         "m/f296.txt", "m/f295.txt"]
    everything = await GrepTool().run({"pattern": "needle", "head_limit": 0}, ctx)
    assert everything.content.splitlines()[0] == "Found 300 files"
    content = await GrepTool().run({"pattern": "needle", "output_mode": "content",
                                    "head_limit": 5, "offset": 2}, ctx)
    assert content.content.splitlines()[0] == "m/f002.txt:2:needle x"  # by path
    assert content.content.endswith("\n\n[Showing results with pagination = limit: 5, "
                                    "offset: 2]")
    grouped = await GrepTool().run({"pattern": "x$", "output_mode": "content", "-A": 1,
                                    "head_limit": 4}, ctx)
    assert grouped.content == ("m/f000.txt:2:needle x\n--\nm/f001.txt:2:needle x\n--\n\n"
                               "[Showing results with pagination = limit: 4]")
    count = await GrepTool().run({"pattern": "needle", "output_mode": "count",
                                  "head_limit": 2}, ctx)
    assert count.content == ("m/f000.txt:1\nm/f001.txt:1\n\nFound 300 total occurrences "
                             "across 300 files. with pagination = limit: 2")
    # equal times: by path, ignoring case
    for name in ("b.py", "Z.py", "a.py"):
        (tmp_path / name).write_text("tie\n")
        os.utime(tmp_path / name, (5, 5))
    tie = await GrepTool().run({"pattern": "tie"}, ctx)
    assert tie.content.splitlines()[1:] == ["a.py", "b.py", "Z.py"]


async def test_grep_bad_regex_and_path(tree: Path) -> None:
    bad = await GrepTool().run({"pattern": "("}, ctx_for(tree))
    assert bad.is_error and "invalid regular expression" in bad.content
    missing = await GrepTool().run({"pattern": "x", "path": "nope"}, ctx_for(tree))
    assert missing.is_error and missing.content == (
        f"Path does not exist: {(tree / 'nope').resolve()}. Note: your current working "
        f"directory is {tree.resolve()}.")


async def test_glob_and_ls(tree: Path) -> None:
    ctx = ctx_for(tree)
    g = await GlobTool().run({"pattern": "**/*.{py,ts}"}, ctx)
    assert sorted(g.content.splitlines()) == ["src/a.py", "src/b.ts"]
    none = await GlobTool().run({"pattern": "*.rs"}, ctx)
    assert none.content == "No files found"
    missing = await GlobTool().run({"pattern": "*", "path": "nope"}, ctx)
    assert missing.is_error and missing.content.startswith(
        f"Directory does not exist: {(tree / 'nope').resolve()}. Note:")
    ls = await LSTool().run({}, ctx)
    head, *lines = ls.content.splitlines()
    assert head == f"- {tree.resolve()}/"  # Claude Code's LS shape
    assert lines == ["  - node_modules/", "  - src/", "  - README.md", "  - bin.dat"]
    ls2 = await LSTool().run({"path": ".", "ignore": ["node_*", "*.dat"]}, ctx)
    assert "node_modules/" not in ls2.content and "bin.dat" not in ls2.content
    not_dir = await LSTool().run({"path": "README.md"}, ctx)
    assert not_dir.is_error


async def test_glob_oldest_first_ties_in_listing_order_at_most_100(tmp_path: Path) -> None:
    (tmp_path / "g").mkdir()
    for name, t in (("new.txt", 300), ("old.txt", 100), ("mid.txt", 200)):
        (tmp_path / "g" / name).write_text("x")
        os.utime(tmp_path / "g" / name, (t, t))
    ctx = ctx_for(tmp_path)
    out = await GlobTool().run({"pattern": "g/*.txt"}, ctx)
    assert out.content.splitlines() == ["g/old.txt", "g/mid.txt", "g/new.txt"]
    (tmp_path / "t" / "sub").mkdir(parents=True)
    for name in ("b.py", "a.py", "sub/a.py", "Z.py"):
        (tmp_path / "t" / name).write_text("x")
        os.utime(tmp_path / "t" / name, (7, 7))
    listing: list[str] = []

    def walk(folder: Path, rel: str) -> None:
        for e in os.scandir(folder):  # the file system's own order
            if e.is_dir():
                walk(Path(e.path), f"{rel}{e.name}/")
            else:
                listing.append(f"{rel}{e.name}")

    walk(tmp_path / "t", "t/")
    ties = await GlobTool().run({"pattern": "**/*.py", "path": "t"}, ctx)
    assert ties.content.splitlines() == listing
    (tmp_path / "many").mkdir()
    for i in range(150):
        (tmp_path / "many" / f"f{i:03d}").write_text("x")
    many = await GlobTool().run({"pattern": "many/*"}, ctx)
    lines = many.content.splitlines()
    assert len(lines) == 101 and lines[-1].startswith("(Showing 100 of 150 matching files; "
                                                       "50 more are not listed.")


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
    # ours, which Claude Code lacks: only when asked
    assert not {"MultiEdit", "LS", "TodoWrite"} & set(builtin_tools())
    assert {"MultiEdit", "LS", "TodoWrite"} <= set(builtin_tools(extras=True))
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


async def test_glob_without_double_star_stays_at_its_depth(tree: Path) -> None:
    (tree / "top.py").write_text("x")
    ctx = ctx_for(tree)
    assert (await GlobTool().run({"pattern": "*.py"}, ctx)).content == "top.py"
    assert (await GlobTool().run({"pattern": "src/*.py"}, ctx)).content == "src/a.py"
    deep = await GlobTool().run({"pattern": "**/*.py"}, ctx)
    assert set(deep.content.splitlines()) == {"top.py", "src/a.py"}  # node_modules skipped
