"""Issue 20 (round two): no path is resolved twice.  The file tools open the path the
permission decision judged, beneath its root folder, with no link followed at any component
(``openat2`` with ``RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS``, or the
``O_NOFOLLOW`` walk where that is missing or refused).

Every attack runs twice: through ``openat2`` (checked to be really used) and through the walk
(``openat2`` forced off, and checked never to be called).  Everything an attack points at
lives in the test's own tmp folder; ``/proc/self/...`` is only ever *named*, to be refused.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from subagents import fs_beneath
from subagents.fs import NotRegular, open_regular, read_regular, write_nofollow
from subagents.fs_beneath import LinkOnPath, OutsideRoot, Root, open_beneath

SECRET = "the user's private key\n"


@pytest.fixture(params=["openat2", "walk"])
def way(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Open with ``openat2`` (its calls counted: they must happen) or with the walk (a call
    of ``openat2`` fails the test)."""
    calls: list[int] = []
    if request.param == "openat2":
        if not fs_beneath.openat2_available():
            pytest.skip("openat2 is not available on this kernel (the walk is tested)")
        real = fs_beneath.PROBE.call
        assert real is not None

        def counted(*args: Any) -> int:
            calls.append(1)
            return real(*args)

        monkeypatch.setattr(fs_beneath.PROBE, "call", counted)
    else:
        def forbidden(*args: Any) -> int:
            raise AssertionError("openat2 called while forced off")

        monkeypatch.setattr(fs_beneath.PROBE, "available", False)
        monkeypatch.setattr(fs_beneath.PROBE, "call", forbidden)
    yield request.param
    if request.param == "openat2":
        assert calls, "openat2 was never called"


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    """A project with ``notes/a.md`` and, beside it, an outside folder holding a secret."""
    project = tmp_path / "project"
    (project / "notes").mkdir(parents=True)
    (project / "notes" / "a.md").write_text("mine\n", encoding="utf-8")
    (project / ".git").mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_text(SECRET, encoding="utf-8")
    (outside / "a.md").write_text(SECRET, encoding="utf-8")
    return project.resolve(), outside.resolve()


def _swap_for_link(folder: Path, target: Path | str) -> None:
    """What a parallel Bash call could do: the folder moved away, a link in its place."""
    folder.rename(folder.with_name(folder.name + ".moved"))
    folder.symlink_to(target)


def _read(root: Root, rel: str) -> bytes:
    fd = root.open(rel, os.O_RDONLY | os.O_NONBLOCK)
    try:
        return os.read(fd, 1 << 16)
    finally:
        os.close(fd)


# --- the opener itself ------------------------------------------------------------------

def test_dot_dot_never_leaves_the_root(way: str, tree: tuple[Path, Path]) -> None:
    project, outside = tree
    with Root(project) as root:
        assert _read(root, "notes/../notes/a.md") == b"mine\n"  # inside: fine
        for rel in ("../outside/secret", "notes/../../outside/secret",
                    "notes/../notes/../../outside/secret", str(outside / "secret")):
            with pytest.raises(OutsideRoot) as caught:
                _read(root, rel)
            assert caught.value.errno == errno.EXDEV


def test_absolute_and_relative_links_are_never_followed(way: str,
                                                        tree: tuple[Path, Path]) -> None:
    project, outside = tree
    (project / "abs").symlink_to(outside)  # absolute, out
    (project / "rel").symlink_to("../outside")  # relative, out
    (project / "inner").symlink_to(project / "notes")  # absolute, even pointing inside
    (project / "notes" / "key").symlink_to(outside / "secret")  # the file itself
    with Root(project) as root:
        for rel in ("abs/secret", "rel/secret", "inner/a.md", "notes/key", "abs"):
            with pytest.raises(LinkOnPath) as caught:
                _read(root, rel)
            assert caught.value.errno == errno.ELOOP


def test_magic_links_are_refused(way: str, tree: tuple[Path, Path],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    project, outside = tree
    with Root("/") as top:
        assert _read(top, f"{outside}/secret".lstrip("/")) == SECRET.encode()
        with pytest.raises(LinkOnPath):  # /proc/self/root is a magic link to "/"
            _read(top, f"proc/self/root{outside}/secret")
        fd = os.open(outside / "secret", os.O_RDONLY)
        try:  # /proc/self/fd/N reopens whatever N is, wherever it is
            with pytest.raises(LinkOnPath):
                _read(top, f"proc/self/fd/{fd}")
        finally:
            os.close(fd)
    monkeypatch.chdir(outside)
    (project / "proc").symlink_to("/proc/self/cwd")  # a plain link to a magic one
    with Root(project) as root, pytest.raises(LinkOnPath):
        _read(root, "proc/secret")


@pytest.mark.timeout(60)
def test_a_fifo_is_refused_without_blocking(way: str, tree: tuple[Path, Path]) -> None:
    project, _ = tree
    os.mkfifo(project / "notes" / "pipe")
    with Root(project) as root:
        with pytest.raises(NotRegular):  # no writer: a blocking open would hang here
            open_regular(project / "notes" / "pipe", beneath=root)
        with pytest.raises(NotRegular):
            read_regular(project / "notes" / "pipe", 100, beneath=root)


def test_a_path_that_becomes_a_link(way: str, tree: tuple[Path, Path]) -> None:
    project, outside = tree
    target = project / "notes" / "a.md"
    target.unlink()
    target.symlink_to(outside / "a.md")  # the file itself became a link
    with Root(project) as root, pytest.raises(LinkOnPath):
        read_regular(target, 100, beneath=root)
    write_nofollow(target, "written", root=project)  # the link is replaced, not followed
    assert not target.is_symlink()
    assert target.read_text(encoding="utf-8") == "written"
    assert (outside / "a.md").read_text(encoding="utf-8") == SECRET


def test_a_parent_folder_swapped_for_a_link_fails_the_write(
        way: str, tree: tuple[Path, Path]) -> None:
    project, outside = tree
    approved = project / "notes" / "a.md"  # judged with links resolved
    _swap_for_link(project / "notes", outside)  # swapped after the judgement
    with pytest.raises(LinkOnPath):
        write_nofollow(approved, "x", root=project)
    with pytest.raises(LinkOnPath):  # creating missing folders does not go through it either
        write_nofollow(project / "notes" / "new" / "b.md", "x", root=project,
                       make_parents=True)
    assert sorted(p.name for p in outside.iterdir()) == ["a.md", "secret"]
    assert (outside / "a.md").read_text(encoding="utf-8") == SECRET


def test_the_root_itself_swapped_for_a_link_fails(way: str, tree: tuple[Path, Path]) -> None:
    project, outside = tree
    _swap_for_link(project / "notes", outside)
    with pytest.raises(LinkOnPath):
        Root(project / "notes")
    with pytest.raises(OutsideRoot):
        write_nofollow(outside / "a.md", "x", root=project)  # not under the root it names
    assert (outside / "a.md").read_text(encoding="utf-8") == SECRET


def test_missing_folders_are_made_beneath_the_root(way: str, tree: tuple[Path, Path]) -> None:
    project, _ = tree
    write_nofollow(project / "new" / "deeper" / "c.md", "made", root=project,
                   make_parents=True)
    assert (project / "new" / "deeper" / "c.md").read_text(encoding="utf-8") == "made"


@pytest.mark.parametrize("code", [errno.ENOSYS, errno.EPERM])
def test_a_refused_openat2_falls_back_to_the_walk(
        code: int, tree: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """A kernel without it (ENOSYS), or a seccomp filter refusing it (EPERM, as container
    runtimes do): the probe says no, and a later refusal also walks; same answers."""
    project, outside = tree
    (project / "abs").symlink_to(outside)
    refused: list[int] = []

    def refusing(*args: Any) -> int:
        refused.append(1)
        return -code

    monkeypatch.setattr(fs_beneath.PROBE, "call", fs_beneath.PROBE.call)  # put back after
    monkeypatch.setattr(fs_beneath.PROBE, "available", None)
    monkeypatch.setattr(fs_beneath, "_load", lambda: refusing)
    assert fs_beneath.openat2_available() is False
    assert fs_beneath.PROBE.call is None
    # refused after a successful probe (a filter installed later): this call walks
    monkeypatch.setattr(fs_beneath.PROBE, "available", True)
    monkeypatch.setattr(fs_beneath.PROBE, "call", refusing)
    refused.clear()
    with Root(project) as root:
        assert _read(root, "notes/a.md") == b"mine\n"
        with pytest.raises(LinkOnPath):
            _read(root, "abs/secret")
        with pytest.raises(OutsideRoot):
            _read(root, "../outside/secret")
    assert refused  # openat2 was asked first, each time


def test_open_beneath_names_the_path_in_its_errors(way: str, tree: tuple[Path, Path]) -> None:
    project, _ = tree
    with Root(project) as root:
        with pytest.raises(FileNotFoundError) as caught:
            open_beneath(root.fd, "notes/missing/x", os.O_RDONLY)
        assert caught.value.filename == "notes/missing/x"


# --- the tools: a swap between the decision and the open ------------------------------

def _step(project: Path, tools: Mapping[str, Any], *, mode: str = "default",
          ask: Callable[..., Any] | None = None) -> Any:
    from subagents.runtime.hooks import RunHooks
    from subagents.runtime.permissions import PermissionPolicy
    from subagents.runtime.tool_step import ToolStep
    from subagents.runtime.tools.base import ToolContext
    from subagents.runtime.transcript import Transcript

    async def yes(request: Any) -> bool:
        return True

    policy = PermissionPolicy(mode=mode, ask=ask or yes)
    ctx = ToolContext(cwd=project, agent_name="t", policy=policy)
    return ToolStep(ctx=ctx, hooks=RunHooks(), offered=dict(tools), everything=dict(tools),
                    policy=policy, transcript=Transcript(None, "t"), calls=[], warnings=[],
                    emit=lambda kind, data: None)


def _swapping(cls: type, swap: Callable[[], None]) -> Any:
    """The tool, with ``swap`` done when it starts: after the permission decision, before
    the tool opens anything (where a parallel call's swap would land)."""

    class Swapping(cls):  # type: ignore[misc, valid-type]
        def call(self, input: Mapping[str, Any], ctx: Any) -> Any:
            swap()
            return super().call(input, ctx)

    return Swapping()


async def _run(step: Any, name: str, input: dict[str, Any]) -> str:
    from subagents.providers.base import ToolUseBlock

    msg = await step.run([ToolUseBlock("1", name, input)], 1)
    return "\n".join(str(block.content) for block in msg.content)


async def test_write_after_a_swap_to_a_protected_folder_inside_the_project(
        way: str, tree: tuple[Path, Path]) -> None:
    """Approved: ``notes/a.md``.  Then ``notes`` becomes a link to ``.claude/agents`` (inside
    the project, no link left on the way once resolved again): resolving a second time would
    write an agent file that was never asked about."""
    from subagents.runtime.tools.files import WriteTool

    project, _ = tree
    agents = project / ".claude" / "agents"
    agents.mkdir(parents=True)
    write = _swapping(WriteTool, lambda: _swap_for_link(project / "notes", agents))
    out = await _run(_step(project, {"Write": write}), "Write",
                     {"file_path": "notes/a.md", "content": "---\nname: planted\n---\n"})
    assert list(agents.iterdir()) == []
    assert "symbolic link changed" in out


@pytest.mark.parametrize("tool", ["Write", "Edit", "MultiEdit"])
async def test_writes_after_a_swap_to_outside(way: str, tree: tuple[Path, Path],
                                              tool: str) -> None:
    from subagents.runtime.tools.files import EditTool, MultiEditTool, WriteTool

    project, outside = tree
    cls = {"Write": WriteTool, "Edit": EditTool, "MultiEdit": MultiEditTool}[tool]
    inputs: dict[str, dict[str, Any]] = {
        "Write": {"file_path": "notes/a.md", "content": "x"},
        "Edit": {"file_path": "notes/a.md", "old_string": "the", "new_string": "a"},
        "MultiEdit": {"file_path": "notes/a.md",
                      "edits": [{"old_string": "the", "new_string": "a"}]},
    }
    # the Edit tools' old_string is in the outside copy only: a read through the link would
    # find it and write the edit there
    tool_obj = _swapping(cls, lambda: _swap_for_link(project / "notes", outside))
    out = await _run(_step(project, {tool: tool_obj}), tool, inputs[tool])
    assert (outside / "a.md").read_text(encoding="utf-8") == SECRET
    assert sorted(p.name for p in outside.iterdir()) == ["a.md", "secret"]
    assert "symbolic link changed" in out


async def test_read_in_plan_mode_after_a_swap(way: str, tree: tuple[Path, Path]) -> None:
    """Plan mode reads inside the project without asking; ``notes`` swapped for a link to
    the outside folder between that decision and the open must not hand over the secret."""
    from subagents.runtime.tools.files import ReadTool

    project, outside = tree
    read = _swapping(ReadTool, lambda: _swap_for_link(project / "notes", outside))
    out = await _run(_step(project, {"Read": read}, mode="plan"), "Read",
                     {"file_path": "notes/a.md"})
    assert "private key" not in out
    assert "symbolic link changed" in out


async def test_write_through_a_magic_link_swap(way: str, tree: tuple[Path, Path],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from subagents.runtime.tools.files import WriteTool

    project, outside = tree
    monkeypatch.chdir(outside)  # /proc/self/cwd leads there
    write = _swapping(WriteTool, lambda: _swap_for_link(project / "notes", "/proc/self/cwd"))
    out = await _run(_step(project, {"Write": write}), "Write",
                     {"file_path": "notes/a.md", "content": "x"})
    assert (outside / "a.md").read_text(encoding="utf-8") == SECRET
    assert "symbolic link changed" in out


@pytest.mark.timeout(60)
async def test_edit_and_read_of_a_file_swapped_for_a_fifo(way: str,
                                                         tree: tuple[Path, Path]) -> None:
    """A FIFO with no writer put where the approved file was: refused, never waited on."""
    from subagents.runtime.tools.files import EditTool, ReadTool

    project, _ = tree

    def fifo() -> None:
        (project / "notes" / "a.md").unlink()
        os.mkfifo(project / "notes" / "a.md")

    edit = _swapping(EditTool, fifo)
    out = await _run(_step(project, {"Edit": edit}), "Edit",
                     {"file_path": "notes/a.md", "old_string": "mine", "new_string": "x"})
    assert "not a regular file" in out
    read = ReadTool()
    out = await _run(_step(project, {"Read": read}), "Read", {"file_path": "notes/a.md"})
    assert "not a regular file" in out


async def test_dot_dot_in_a_tool_path_is_judged_where_it_lands(
        way: str, tree: tuple[Path, Path]) -> None:
    from subagents.runtime.tools.files import WriteTool

    project, outside = tree
    step = _step(project, {"Write": WriteTool()}, mode="acceptEdits")
    out = await _run(step, "Write", {"file_path": "notes/../../outside/a.md", "content": "x"})
    assert "outside the working folder" in out
    assert (outside / "a.md").read_text(encoding="utf-8") == SECRET
    out = await _run(step, "Write", {"file_path": "notes/../notes/b.md", "content": "in"})
    assert "File created successfully" in out
    assert (project / "notes" / "b.md").read_text(encoding="utf-8") == "in"


async def test_grep_skips_a_file_swapped_for_a_link_after_the_walk_looked(
        way: str, tree: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """The walk saw a plain file; it became a link to the secret before the read."""
    from subagents.runtime.tools import search
    from subagents.runtime.tools.search import GrepTool

    project, outside = tree
    look = search._target

    def look_then_swap(path: Path, roots: tuple[Path, ...]) -> Path | None:
        seen = look(path, roots)
        if path.name == "a.md":
            path.unlink()
            path.symlink_to(outside / "secret")
        return seen

    monkeypatch.setattr(search, "_target", look_then_swap)
    out = await _run(_step(project, {"Grep": GrepTool()}, mode="plan"), "Grep",
                     {"pattern": "private", "output_mode": "content"})
    assert "private key" not in out
    assert "No matches found" in out


async def test_the_tools_still_work_through_links_inside_the_project(
        way: str, tree: tuple[Path, Path]) -> None:
    """A link the decision saw (resolved once) is fine: the tool opens where it leads."""
    from subagents.runtime.tools.files import EditTool, ReadTool
    from subagents.runtime.tools.search import GrepTool

    project, _ = tree
    (project / "docs").symlink_to("notes")
    tools = {"Read": ReadTool(), "Edit": EditTool(), "Grep": GrepTool()}
    step = _step(project, tools, mode="acceptEdits")
    assert "1\tmine" in await _run(step, "Read", {"file_path": "docs/a.md"})
    out = await _run(step, "Edit", {"file_path": "docs/a.md", "old_string": "mine",
                                    "new_string": "ours"})
    assert "updated successfully" in out
    assert (project / "notes" / "a.md").read_text(encoding="utf-8") == "ours\n"
    assert "notes/a.md" in await _run(step, "Grep", {"pattern": "ours"})


# --- the two ways agree -------------------------------------------------------------------

_PARTS = ["a", "b", "f", "..", ".", "", "lnk", "abs", "missing", "proc"]


def _outcome(root: Root, rel: str) -> tuple[str, int]:
    try:
        fd = root.open(rel, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        return type(exc).__name__, exc.errno or 0
    try:
        return "opened", os.fstat(fd).st_ino
    finally:
        os.close(fd)


def test_the_walk_and_openat2_give_the_same_answers(tmp_path_factory: pytest.TempPathFactory,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Any path of ``..``, ``.``, links, magic links, files and missing names: the walk opens
    the same file, or refuses with the same error, as ``openat2``."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    if not fs_beneath.openat2_available():
        pytest.skip("openat2 is not available on this kernel: nothing to compare with")
    base = tmp_path_factory.mktemp("agree").resolve()
    project = base / "project"
    (project / "a" / "b").mkdir(parents=True)
    (project / "a" / "f").write_text("f", encoding="utf-8")
    (project / "f").write_text("f", encoding="utf-8")
    (base / "outside").mkdir()
    (project / "a" / "lnk").symlink_to("b")
    (project / "abs").symlink_to(base / "outside")
    (project / "a" / "proc").symlink_to("/proc/self/root")

    @settings(max_examples=300, deadline=None)
    @given(st.lists(st.sampled_from(_PARTS), min_size=0, max_size=6))
    def agree(parts: list[str]) -> None:
        rel = "/".join(parts)
        with Root(project) as root:
            with monkeypatch.context() as m:
                m.setattr(fs_beneath.PROBE, "available", False)
                walked = _outcome(root, rel)
            kernel = _outcome(root, rel)
        assert walked == kernel, rel

    agree()


async def test_a_writable_folder_not_made_yet_is_made_on_the_way(
        way: str, tmp_path: Path) -> None:
    """A writable folder that does not exist yet is no root to open: the write goes beneath
    the nearest one above it and makes the folders, as before."""
    from subagents.runtime.hooks import RunHooks
    from subagents.runtime.permissions import PermissionPolicy
    from subagents.runtime.tool_step import ToolStep
    from subagents.runtime.tools.base import ToolContext
    from subagents.runtime.tools.files import WriteTool
    from subagents.runtime.transcript import Transcript

    project = (tmp_path / "project").resolve()
    project.mkdir()
    later = tmp_path.resolve() / "cache" / "out"
    policy = PermissionPolicy(mode="acceptEdits", writable_dirs=(later,))
    ctx = ToolContext(cwd=project, agent_name="t", policy=policy)
    assert ctx.root_of(later / "a.txt") == Path("/")
    step = ToolStep(ctx=ctx, hooks=RunHooks(), offered={"Write": WriteTool()},
                    everything={"Write": WriteTool()}, policy=policy,
                    transcript=Transcript(None, "t"), calls=[], warnings=[],
                    emit=lambda kind, data: None)
    out = await _run(step, "Write", {"file_path": str(later / "a.txt"), "content": "made"})
    assert "File created successfully" in out
    assert (later / "a.txt").read_text(encoding="utf-8") == "made"
    assert ctx.root_of(later / "a.txt") == later


async def test_glob_and_ls_of_a_folder_swapped_for_a_link(way: str,
                                                          tree: tuple[Path, Path]) -> None:
    """Glob or LS of ``notes`` (inside: no question in plan mode), ``notes`` swapped for a
    link out before the listing: the outside folder's names are not listed."""
    from subagents.runtime.tools.search import GlobTool, LSTool

    project, outside = tree
    for name, cls, input in (("Glob", GlobTool, {"pattern": "*", "path": "notes"}),
                             ("LS", LSTool, {"path": "notes"})):
        if (project / "notes.moved").exists():  # the first tool's swap undone
            _undo(project)
        tool = _swapping(cls, lambda: _swap_for_link(project / "notes", outside))
        out = await _run(_step(project, {name: tool}, mode="plan"), name, input)
        assert "secret" not in out, name
        assert "symbolic link changed" in out, name


def _undo(project: Path) -> None:
    (project / "notes").unlink()
    (project / "notes.moved").rename(project / "notes")


async def test_glob_does_not_descend_into_a_subfolder_swapped_after_the_listing(
        way: str, tree: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """The listing saw ``notes`` as a folder; it became a link before Glob went in."""
    from subagents.runtime.tools.search import GlobTool

    project, outside = tree
    real_scandir = os.scandir
    swapped: list[int] = []

    def list_then_swap(target: Any) -> Any:
        entries = list(real_scandir(target))
        if not swapped and any(e.name == "notes" for e in entries):
            swapped.append(1)
            _swap_for_link(project / "notes", outside)
        return iter(entries)

    monkeypatch.setattr(os, "scandir", list_then_swap)
    out = await _run(_step(project, {"Glob": GlobTool()}, mode="plan"), "Glob",
                     {"pattern": "**/*"})
    assert swapped
    assert "secret" not in out


# --- sync and fix: written where the check found the folder ------------------------------

def _swap_after_check(monkeypatch: pytest.MonkeyPatch, name: str, folder: Path,
                      target: Path) -> list[int]:
    """``folder`` swapped for a link to ``target`` right after the link check of the write
    of ``name`` (what a process running beside ``sync`` could do)."""
    from subagents import fs

    check = fs._placed
    swapped: list[int] = []

    def check_then_swap(path: Any, project: Any) -> Any:
        answer = check(path, project)
        if not swapped and Path(path).name == name:
            swapped.append(1)
            _swap_for_link(folder, target)
        return answer

    monkeypatch.setattr(fs, "_placed", check_then_swap)
    return swapped


def test_atomic_write_within_writes_where_the_check_looked(
        way: str, tree: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    from subagents.fs import atomic_write

    project, outside = tree
    swapped = _swap_after_check(monkeypatch, "a.md", project / "notes", outside)
    with pytest.raises(LinkOnPath):
        atomic_write(project / "notes" / "a.md", "planted", within=project)
    assert swapped
    assert (outside / "a.md").read_text(encoding="utf-8") == SECRET
    monkeypatch.undo()
    _undo(project)
    atomic_write(project / "notes" / "new" / "b.md", "made", within=project,
                 make_parents=True, sync_dir=True, mode=0o600)
    made = project / "notes" / "new" / "b.md"
    assert made.read_text(encoding="utf-8") == "made"
    assert made.stat().st_mode & 0o777 == 0o600


def test_sync_does_not_write_through_a_folder_swapped_after_its_check(
        way: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import contextlib

    from click.testing import CliRunner

    from subagents.cli.main import cli

    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / ".claude" / "agents").mkdir(parents=True)
    (project / ".claude" / "agents" / "helper.md").write_text(
        "---\nname: helper\ndescription: Answers questions about the build.\n---\nBody\n",
        encoding="utf-8")
    user = tmp_path / "home" / ".qwen" / "agents"
    user.mkdir(parents=True)
    (project / ".qwen" / "agents").mkdir(parents=True)  # a real folder when checked
    swapped = _swap_after_check(monkeypatch, "helper.md", project / ".qwen" / "agents", user)
    with contextlib.chdir(project):
        result = CliRunner().invoke(cli, ["sync", "--to", "qwen"])
    assert swapped
    assert list(user.iterdir()) == []
    assert result.exit_code != 0, result.output
