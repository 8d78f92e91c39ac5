"""Read / Write / Edit / MultiEdit on a real temporary folder."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from runtime_helpers import ctx_for
from subagents.runtime.permissions import PermissionPolicy
from subagents.runtime.tools.files import (
    EditTool,
    MultiEditTool,
    ReadTool,
    WriteTool,
)
from subagents.runtime.tools.formats import ToolFormats


async def test_read_numbers_lines_unpadded_with_the_last_empty_line(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    out = await ReadTool().run({"file_path": "f.txt"}, ctx_for(tmp_path))
    assert not out.is_error
    lines = out.content.split("\n")
    assert lines[0] == "1\tline 1" and lines[9] == "10\tline 10"
    assert lines[-1] == "11\t"  # the file ends with a newline: one more, empty, line
    part = await ReadTool().run({"file_path": "f.txt", "offset": 3, "limit": 2},
                                ctx_for(tmp_path))
    assert part.content == "3\tline 3\n4\tline 4"  # no note after an explicit page
    zero = await ReadTool().run({"file_path": "f.txt", "offset": 0, "limit": 1},
                                ctx_for(tmp_path))
    assert zero.content == "1\tline 1"
    no_limit = await ReadTool().run({"file_path": "f.txt", "limit": 0}, ctx_for(tmp_path))
    assert no_limit.content.split("\n")[-1] == "11\t"  # as Claude Code: the whole file
    (tmp_path / "crlf.txt").write_bytes(b"one\r\ntwo\r\n")
    crlf = await ReadTool().run({"file_path": "crlf.txt"}, ctx_for(tmp_path))
    assert crlf.content == "1\tone\n2\ttwo\n3\t"
    (tmp_path / "no-nl.txt").write_text("a\nb")
    assert (await ReadTool().run({"file_path": "no-nl.txt"}, ctx_for(tmp_path))).content == \
        "1\ta\n2\tb"


async def test_read_returns_long_files_and_lines_whole(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("".join(f"row {i}\n" for i in range(1, 2501)))
    (tmp_path / "wide.txt").write_text("L" * 2500 + "\nend\n")
    big = await ReadTool().run({"file_path": "big.txt"}, ctx_for(tmp_path))
    assert big.content.split("\n")[-2:] == ["2500\trow 2500", "2501\t"]
    wide = await ReadTool().run({"file_path": "wide.txt"}, ctx_for(tmp_path))
    assert wide.content.split("\n")[0] == "1\t" + "L" * 2500


async def test_read_binary_and_images_are_refused(tmp_path: Path) -> None:
    (tmp_path / "blob.dat").write_bytes(bytes(range(256)) * 4)
    out = await ReadTool().run({"file_path": str(tmp_path / "blob.dat")}, ctx_for(tmp_path))
    assert out.is_error
    assert out.content.startswith("<tool_use_error>This tool cannot read binary files. The "
                                  "file appears to be a binary .dat file.")
    (tmp_path / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00IHDR" + bytes(100))
    img = await ReadTool().run({"file_path": "img.png"}, ctx_for(tmp_path))
    assert img.is_error and "image" in img.content


async def test_read_huge_file_is_refused_then_paged(tmp_path: Path) -> None:
    big = tmp_path / "big.log"
    line = "x" * 99 + "\n"
    big.write_text(line * (256 * 1024 // 100 + 50))  # just over 256 KB
    out = await ReadTool().run({"file_path": "big.log"}, ctx_for(tmp_path))
    assert out.is_error and not out.content.startswith("<tool_use_error>")
    assert out.content.startswith("File content (260.8KB) exceeds maximum allowed size " \
        "(256KB).")
    assert "offset and limit" in out.content and "allow_large" in out.content
    paged = await ReadTool().run({"file_path": "big.log", "offset": 100, "limit": 5},
                                 ctx_for(tmp_path))
    assert not paged.is_error
    assert [ln.split("\t")[0] for ln in paged.content.splitlines()] == [
        "100", "101", "102", "103", "104"]
    whole = await ReadTool().run({"file_path": "big.log", "allow_large": True},
                                 ctx_for(tmp_path))
    assert not whole.is_error and whole.content.split("\n")[-1] == "2672\t"


async def test_read_allow_large_is_still_bounded(tmp_path: Path) -> None:
    fmt = ToolFormats(version="test", read_max_bytes=100, read_large_max_chars=500)
    (tmp_path / "f.txt").write_text("".join(f"{i:04d}\n" for i in range(1000)))
    out = await ReadTool(fmt).run({"file_path": "f.txt", "allow_large": True},
                                  ctx_for(tmp_path))
    assert not out.is_error and len(out.content) < 700
    assert "continue with offset:" in out.content.lower()


async def test_read_errors_and_warnings(tmp_path: Path) -> None:
    ctx = ctx_for(tmp_path)
    missing = await ReadTool().run({"file_path": "nope.txt"}, ctx)
    assert missing.is_error
    assert missing.content == ("File does not exist. Note: your current working directory is "
                               f"{tmp_path.resolve()}.")
    folder = await ReadTool().run({"file_path": "."}, ctx)
    assert folder.is_error
    assert folder.content == f"EISDIR: illegal operation on a directory, read '{tmp_path.resolve()}'"
    (tmp_path / "empty").write_text("")
    empty = await ReadTool().run({"file_path": "empty"}, ctx)
    assert not empty.is_error
    assert empty.content == ("<system-reminder>Warning: the file exists but the contents are "
                             "empty.</system-reminder>")
    (tmp_path / "short.txt").write_text("a\nb\n")
    short = await ReadTool().run({"file_path": "short.txt", "offset": 50}, ctx)
    assert not short.is_error and short.content.startswith("<system-reminder>Warning:")
    assert "(50)" in short.content and "3 lines" in short.content
    (tmp_path / "latin1.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    latin = await ReadTool().run({"file_path": "latin1.txt"}, ctx)
    assert not latin.is_error and latin.content.startswith("1\tcaf\ufffd\n2\t")
    assert "not valid UTF-8" in latin.content


async def test_read_follows_a_symlink_but_the_policy_sees_the_target(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("s\n")
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "link").symlink_to(outside / "secret.txt")
    ctx = ctx_for(proj)
    target = ctx.resolve(ReadTool().read_paths({"file_path": "link"})[0])
    assert target == (outside / "secret.txt").resolve()  # what the permission check judges
    decision = await PermissionPolicy().decide(ReadTool(), {"file_path": "link"}, ctx)
    assert not decision.allowed and "outside the working folder" in decision.reason


async def test_write_is_atomic_creates_parents_and_keeps_mode(tmp_path: Path) -> None:
    ctx = ctx_for(tmp_path)
    out = await WriteTool().run({"file_path": "a/b/new.sh", "content": "echo 1\n"}, ctx)
    target = (tmp_path / "a/b/new.sh").resolve()
    assert not out.is_error
    assert out.content.startswith(f"File created successfully at: {target} (")
    assert target.read_text() == "echo 1\n"
    os.chmod(target, 0o750)
    out = await WriteTool().run({"file_path": "a/b/new.sh", "content": "echo 2\n"}, ctx)
    assert out.content.startswith(f"The file {target} has been updated successfully. (")
    assert stat.S_IMODE(target.stat().st_mode) == 0o750
    assert target.read_text() == "echo 2\n"
    assert [p.name for p in target.parent.iterdir()] == ["new.sh"]  # no temp file left
    folder = await WriteTool().run({"file_path": "a", "content": "x"}, ctx)
    assert folder.is_error and folder.content.startswith(
        f"<tool_use_error>{(tmp_path / 'a').resolve()} is a directory, not a file.")


async def test_edit_results_and_refusals(tmp_path: Path) -> None:
    ctx = ctx_for(tmp_path)
    f = tmp_path / "code.py"
    f.write_text("a = 1\nb = 1\n")
    shown = f.resolve()
    amb = await EditTool().run({"file_path": "code.py", "old_string": "= 1",
                                "new_string": "= 2"}, ctx)
    assert amb.is_error
    assert amb.content.startswith("<tool_use_error>Found 2 matches of the string to replace, "
                                  "but replace_all is false.")
    assert amb.content.endswith("\nString: = 1</tool_use_error>")
    assert f.read_text() == "a = 1\nb = 1\n"
    ok = await EditTool().run({"file_path": "code.py", "old_string": "a = 1",
                               "new_string": "a = 3"}, ctx)
    assert ok.content.startswith(f"The file {shown} has been updated successfully.")
    assert f.read_text() == "a = 3\nb = 1\n"
    every = await EditTool().run({"file_path": "code.py", "old_string": " = ",
                                  "new_string": "=", "replace_all": True}, ctx)
    assert every.content.startswith(f"The file {shown} has been updated. All occurrences were "
                                    "successfully replaced.")
    assert f.read_text() == "a=3\nb=1\n"
    missing = await EditTool().run({"file_path": "code.py", "old_string": "zzz",
                                    "new_string": "y"}, ctx)
    assert missing.is_error and missing.content == (
        "<tool_use_error>String to replace not found in file.\nString: zzz</tool_use_error>")
    same = await EditTool().run({"file_path": "code.py", "old_string": "a",
                                 "new_string": "a"}, ctx)
    assert same.is_error and same.content == (
        "<tool_use_error>No changes to make: old_string and new_string are exactly the same."
        "</tool_use_error>")
    nofile = await EditTool().run({"file_path": "nope.py", "old_string": "a",
                                   "new_string": "b"}, ctx)
    assert nofile.is_error and nofile.content.startswith(
        "<tool_use_error>File does not exist. Note: your current working directory is")
    exists = await EditTool().run({"file_path": "code.py", "old_string": "",
                                   "new_string": "b"}, ctx)
    assert exists.content == ("<tool_use_error>Cannot create new file - file already exists."
                              "</tool_use_error>")
    folder = await EditTool().run({"file_path": ".", "old_string": "a", "new_string": "b"}, ctx)
    assert folder.is_error and "EISDIR" in folder.content
    created = await EditTool().run({"file_path": "fresh.txt", "old_string": "",
                                    "new_string": "hi"}, ctx)
    assert not created.is_error and (tmp_path / "fresh.txt").read_text() == "hi"
    (tmp_path / "bin").write_bytes(b"a\x00b")
    binary = await EditTool().run({"file_path": "bin", "old_string": "a", "new_string": "c"},
                                  ctx)
    assert binary.is_error and "binary" in binary.content
    assert (tmp_path / "bin").read_bytes() == b"a\x00b"


async def test_multiedit_is_all_or_nothing(tmp_path: Path) -> None:
    ctx = ctx_for(tmp_path)
    f = tmp_path / "m.txt"
    f.write_text("one two three\n")
    bad = await MultiEditTool().run({"file_path": "m.txt", "edits": [
        {"old_string": "one", "new_string": "1"},
        {"old_string": "missing", "new_string": "x"},
    ]}, ctx)
    assert bad.is_error and "Edit 2" in bad.content and "no edit was applied" in bad.content
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
    assert missing.is_error and "does not exist" in missing.content
    bad = await MultiEditTool().run({"file_path": "other.txt", "edits": [
        {"old_string": "", "new_string": "x"}, {"old_string": "zzz", "new_string": "y"}]}, ctx)
    assert bad.is_error and "Edit 2" in bad.content and not (tmp_path / "other.txt").exists()


@pytest.mark.parametrize(
    ("tool", "args", "fragment"),
    [
        (ReadTool(), {}, "missing required field 'file_path'"),
        (ReadTool(), {"file_path": 3}, "file_path must be string"),
        (ReadTool(), {"file_path": "x", "offset": -1}, "offset must be >= 0"),
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


async def test_a_file_that_is_one_huge_line_is_never_loaded_whole(tmp_path: Path) -> None:
    fmt = ToolFormats(version="test", read_max_bytes=1000, read_large_max_chars=1000)
    with open(tmp_path / "one.txt", "wb") as f:
        f.write(b"x" * 5_000_000 + b"\nsecond\n")
    ctx = ctx_for(tmp_path)
    whole = await ReadTool(fmt).run({"file_path": "one.txt"}, ctx)
    assert whole.is_error and whole.content.startswith("File content (4.8MB)")
    first = await ReadTool(fmt).run({"file_path": "one.txt", "limit": 1}, ctx)
    assert first.is_error and "Line 1 alone is longer than 1,000 characters" in first.content
    second = await ReadTool(fmt).run({"file_path": "one.txt", "offset": 2}, ctx)
    assert second.content == "2\tsecond\n3\t"  # the long line was skipped, not read whole


async def test_edit_says_the_file_need_not_be_read_again_only_when_it_was_known(
    tmp_path: Path,
) -> None:
    ctx = ctx_for(tmp_path)
    (tmp_path / "a.txt").write_text("one two\n")
    (tmp_path / "b.txt").write_text("one two\n")
    shown = (tmp_path / "a.txt").resolve()
    blind = await EditTool().run({"file_path": "a.txt", "old_string": "one",
                                  "new_string": "1"}, ctx)
    assert blind.content == f"The file {shown} has been updated successfully."  # as CC
    again = await EditTool().run({"file_path": "a.txt", "old_string": "two",
                                  "new_string": "2"}, ctx)
    assert again.content.startswith(f"The file {shown} has been updated successfully. (")
    await ReadTool().run({"file_path": "b.txt"}, ctx)
    read_first = await EditTool().run({"file_path": "b.txt", "old_string": "one",
                                       "new_string": "1", "replace_all": True}, ctx)
    assert read_first.content.endswith("successfully replaced. " + (
        "(the file now holds exactly what you sent; no need to Read it again)"))
    made = await EditTool().run({"file_path": "new.txt", "old_string": "",
                                 "new_string": "x"}, ctx)
    assert made.content.endswith("no need to Read it again)")  # created: known
