"""Read / Write / Edit / MultiEdit on a real temporary folder."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from runtime_helpers import ctx_for
from subagents.runtime.tools.files import (
    MAX_READ_BYTES,
    EditTool,
    MultiEditTool,
    ReadTool,
    WriteTool,
)


async def test_read_numbers_lines_and_pages(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    out = await ReadTool().run({"file_path": "f.txt"}, ctx_for(tmp_path))
    assert not out.is_error
    assert out.content.splitlines()[0] == "     1\tline 1"
    assert out.content.splitlines()[-1] == "    10\tline 10"
    part = await ReadTool().run({"file_path": "f.txt", "offset": 3, "limit": 2}, ctx_for(tmp_path))
    assert part.content.splitlines()[:2] == ["     3\tline 3", "     4\tline 4"]
    assert "continue with offset: 5" in part.content


async def test_read_binary_is_refused(tmp_path: Path) -> None:
    (tmp_path / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00IHDR" + bytes(100))
    out = await ReadTool().run({"file_path": str(tmp_path / "img.png")}, ctx_for(tmp_path))
    assert out.is_error
    assert "binary" in out.content


async def test_read_huge_file_is_refused_then_paged(tmp_path: Path) -> None:
    big = tmp_path / "big.log"
    line = "x" * 99 + "\n"
    big.write_text(line * (MAX_READ_BYTES // 100 + 50))
    out = await ReadTool().run({"file_path": "big.log"}, ctx_for(tmp_path))
    assert out.is_error
    assert "offset and limit" in out.content
    paged = await ReadTool().run({"file_path": "big.log", "offset": 100, "limit": 5},
                                 ctx_for(tmp_path))
    assert not paged.is_error
    assert len([ln for ln in paged.content.splitlines() if "\t" in ln]) == 5


async def test_read_errors_are_results(tmp_path: Path) -> None:
    ctx = ctx_for(tmp_path)
    missing = await ReadTool().run({"file_path": "nope.txt"}, ctx)
    assert missing.is_error and "not found" in missing.content
    folder = await ReadTool().run({"file_path": "."}, ctx)
    assert folder.is_error and "directory" in folder.content
    (tmp_path / "empty").write_text("")
    empty = await ReadTool().run({"file_path": "empty"}, ctx)
    assert not empty.is_error and "empty" in empty.content
    (tmp_path / "latin1.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    latin = await ReadTool().run({"file_path": "latin1.txt"}, ctx)
    assert latin.is_error and "UTF-8" in latin.content


async def test_write_is_atomic_creates_parents_and_keeps_mode(tmp_path: Path) -> None:
    ctx = ctx_for(tmp_path)
    out = await WriteTool().run({"file_path": "a/b/new.sh", "content": "echo 1\n"}, ctx)
    assert not out.is_error and "Created" in out.content
    target = tmp_path / "a/b/new.sh"
    assert target.read_text() == "echo 1\n"
    os.chmod(target, 0o750)
    out = await WriteTool().run({"file_path": "a/b/new.sh", "content": "echo 2\n"}, ctx)
    assert "Updated" in out.content
    assert stat.S_IMODE(target.stat().st_mode) == 0o750
    assert target.read_text() == "echo 2\n"
    assert [p.name for p in target.parent.iterdir()] == ["new.sh"]  # no temp file left


async def test_edit_rules(tmp_path: Path) -> None:
    ctx = ctx_for(tmp_path)
    f = tmp_path / "code.py"
    f.write_text("a = 1\nb = 1\n")
    amb = await EditTool().run({"file_path": "code.py", "old_string": "= 1",
                                "new_string": "= 2"}, ctx)
    assert amb.is_error and "2 times" in amb.content
    assert f.read_text() == "a = 1\nb = 1\n"
    ok = await EditTool().run({"file_path": "code.py", "old_string": "a = 1",
                               "new_string": "a = 3"}, ctx)
    assert not ok.is_error
    assert f.read_text() == "a = 3\nb = 1\n"
    every = await EditTool().run({"file_path": "code.py", "old_string": " = ",
                                  "new_string": "=", "replace_all": True}, ctx)
    assert "2 replacements" in every.content
    assert f.read_text() == "a=3\nb=1\n"
    missing = await EditTool().run({"file_path": "code.py", "old_string": "zzz",
                                    "new_string": "y"}, ctx)
    assert missing.is_error and "not found" in missing.content
    same = await EditTool().run({"file_path": "code.py", "old_string": "a",
                                 "new_string": "a"}, ctx)
    assert same.is_error
    created = await EditTool().run({"file_path": "fresh.txt", "old_string": "",
                                    "new_string": "hi"}, ctx)
    assert not created.is_error and (tmp_path / "fresh.txt").read_text() == "hi"


async def test_multiedit_is_all_or_nothing(tmp_path: Path) -> None:
    ctx = ctx_for(tmp_path)
    f = tmp_path / "m.txt"
    f.write_text("one two three\n")
    bad = await MultiEditTool().run({"file_path": "m.txt", "edits": [
        {"old_string": "one", "new_string": "1"},
        {"old_string": "missing", "new_string": "x"},
    ]}, ctx)
    assert bad.is_error and "edit 2" in bad.content and "no edit was applied" in bad.content
    assert f.read_text() == "one two three\n"
    good = await MultiEditTool().run({"file_path": "m.txt", "edits": [
        {"old_string": "one", "new_string": "1"},
        {"old_string": "1 two", "new_string": "1 2"},
    ]}, ctx)
    assert not good.is_error
    assert f.read_text() == "1 2 three\n"


async def test_multiedit_creates_a_file_from_an_empty_first_old_string(tmp_path: Path) -> None:
    ctx = ctx_for(tmp_path)
    made = await MultiEditTool().run({"file_path": "new/n.txt", "edits": [
        {"old_string": "", "new_string": "alpha beta\n"},
        {"old_string": "beta", "new_string": "gamma"},
    ]}, ctx)
    assert not made.is_error, made.content
    assert (tmp_path / "new" / "n.txt").read_text() == "alpha gamma\n"
    missing = await MultiEditTool().run({"file_path": "nope.txt", "edits": [
        {"old_string": "a", "new_string": "b"}]}, ctx)
    assert missing.is_error and "not found" in missing.content
    bad = await MultiEditTool().run({"file_path": "other.txt", "edits": [
        {"old_string": "", "new_string": "x"}, {"old_string": "zzz", "new_string": "y"}]}, ctx)
    assert bad.is_error and "edit 2" in bad.content and not (tmp_path / "other.txt").exists()


@pytest.mark.parametrize(
    ("tool", "args", "fragment"),
    [
        (ReadTool(), {}, "missing required field 'file_path'"),
        (ReadTool(), {"file_path": 3}, "file_path must be string"),
        (ReadTool(), {"file_path": "x", "limit": 0}, "limit must be >= 1"),
        (ReadTool(), {"file_path": "x", "bogus": 1}, "unknown field 'bogus'"),
        (WriteTool(), {"file_path": "x"}, "missing required field 'content'"),
        (MultiEditTool(), {"file_path": "x", "edits": []}, "at least 1 item"),
        (MultiEditTool(), {"file_path": "x", "edits": [{"old_string": "a"}]},
         "edits[0] is missing required field 'new_string'"),
        (EditTool(), {"file_path": "x", "old_string": "a", "new_string": "b",
                      "replace_all": "yes"}, "replace_all must be boolean"),
    ],
)
def test_schema_validation_messages(tool: ReadTool, args: dict[str, object], fragment: str) -> None:
    problem = tool.validate(args)
    assert problem is not None
    assert fragment in problem
