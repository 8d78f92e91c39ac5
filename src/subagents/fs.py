"""The filesystem, the one way the program touches it: hostile reads, atomic writes, shown paths.

Reading a file that may be hostile: regular files only, never blocking, never unbounded.  A
FIFO named ``*.md`` must not hang a scan, ``/dev/zero`` must not fill memory, and a file that
grows while it is read must not either.  :func:`read_regular` is the one way the readers that
scan untrusted folders (Claude Code's reading, the source snippets of ``validate``, the Grep
tool) open a file: ``O_NONBLOCK`` on open (a FIFO with no writer returns at once), ``fstat``
on the open descriptor (no race with a swap), and at most ``limit + 1`` bytes read, so the
caller can tell "too large" from "exactly the limit".

Writing: :func:`atomic_write` is the one atomic write (a temporary file in the same folder,
``fsync``, the mode kept or chosen, ``os.replace``, optionally an ``fsync`` of the folder).  A
reader never sees a half-written file and a crash leaves the old file or the new one.

Showing a path: :func:`display_path`.  Inside the working folder: relative
(``.claude/agents/x.md``); under the home folder: ``~/...``; anywhere else: absolute.  No
``../`` chains: they change meaning with the working folder.  The text is for people *and*
programs: :func:`open_path` turns every spelling back into a path that opens, so JSON
consumers, the source snippet of ``validate``, baselines and SARIF read the file the path
names.  A path the user typed is printed as typed (the ``validate --format json`` contract);
this is for paths the program found itself.  Nothing is resolved: a symlinked folder keeps
the name the user sees.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from subagents.fs_beneath import Root

__all__ = [
    "LeavesProject",
    "NotRegular",
    "TooLarge",
    "atomic_write",
    "display_path",
    "find_git_root",
    "fsync_dir",
    "link_escape",
    "open_path",
    "open_regular",
    "read_head",
    "read_regular",
    "write_nofollow",
]


class NotRegular(OSError):
    """The path is a FIFO, a device, a socket or a folder."""


class TooLarge(OSError):
    """The file is larger than the limit (``size`` says how large ``fstat`` found it)."""

    def __init__(self, size: int) -> None:
        super().__init__(f"the file is {size:,} bytes")
        self.size = size


def read_regular(
    path: str | os.PathLike[str], limit: int, *, follow_links: bool = True,
    beneath: Root | None = None,
) -> bytes:
    """The bytes of the regular file at ``path`` (at most ``limit``).

    ``beneath``: ``path`` (absolute, under that root) is opened beneath it with no link
    followed at any component (:mod:`subagents.fs_beneath`).
    Raises :class:`NotRegular`, :class:`TooLarge` or the ``OSError`` of the open or read
    (``ELOOP`` for a symlink when ``follow_links`` is false or ``beneath`` is given).
    """
    data = _read_prefix(path, limit, follow_links=follow_links, refuse_larger=True,
                        beneath=beneath)
    if len(data) > limit:  # it grew while it was read
        raise TooLarge(len(data))
    return data


def read_head(path: str | os.PathLike[str], limit: int) -> bytes:
    """The first ``limit + 1`` bytes at most of the regular file at ``path`` (one byte more
    than ``limit`` says the file goes on): for readers that keep the head of a long file.

    Raises :class:`NotRegular` or the ``OSError`` of the open or read; never blocks on a FIFO.
    """
    return _read_prefix(path, limit, follow_links=True, refuse_larger=False)


def open_regular(path: str | os.PathLike[str], *, follow_links: bool = True,
                 beneath: Root | None = None) -> tuple[int, os.stat_result]:
    """A descriptor of the regular file at ``path`` opened for reading without blocking (a
    FIFO with no writer returns at once; the descriptor is left non-blocking), and its
    ``fstat``; :class:`NotRegular` (the descriptor closed) for anything else.  ``beneath`` as
    in :func:`read_regular`."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    if beneath is not None:
        fd = beneath.open(beneath.rel(path), flags)
    else:
        if not follow_links:
            flags |= getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegular("not a regular file")
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def _read_prefix(path: str | os.PathLike[str], limit: int, *, follow_links: bool,
                 refuse_larger: bool, beneath: Root | None = None) -> bytes:
    fd, st = open_regular(path, follow_links=follow_links, beneath=beneath)
    try:
        if refuse_larger and st.st_size > limit:
            raise TooLarge(st.st_size)
        chunks: list[bytes] = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks)


def _write_and_close(fd: int, payload: bytes, mode: int, fsync: bool) -> None:
    """All of ``payload`` into the new temporary file ``fd``, its mode set, then closed."""
    try:
        view = memoryview(payload)
        while view:
            view = view[os.write(fd, view):]
        os.fchmod(fd, mode)
        if fsync:
            os.fsync(fd)
    finally:
        os.close(fd)


def display_path(
    path: str | os.PathLike[str], cwd: str | os.PathLike[str] | None = None,
    home: str | os.PathLike[str] | None = None,
) -> str:
    """``path`` relative to ``cwd`` when inside it, ``~/...`` under ``home``, else absolute."""
    full = os.path.abspath(os.fspath(path))
    base = os.path.abspath(os.fspath(cwd)) if cwd is not None else os.getcwd()
    if full == base:
        return "."
    if _inside(full, base):
        return os.path.relpath(full, base)
    home_dir = os.fspath(home) if home is not None else (
        os.environ.get("HOME") or str(Path.home()))
    home_dir = os.path.abspath(home_dir) if home_dir else ""
    if home_dir and home_dir != os.sep:
        if full == home_dir:
            return "~"
        if _inside(full, home_dir):
            return "~" + os.sep + os.path.relpath(full, home_dir)
    return full


def open_path(shown: str) -> str:
    """The openable path for a printed one (``~`` expanded)."""
    return os.path.expanduser(shown)


class LeavesProject(OSError):
    """A write inside the project would land outside it, through a symbolic link."""


def link_escape(path: str | os.PathLike[str], project: str | os.PathLike[str]) -> str | None:
    """Why writing ``path`` would go through a symbolic link out of ``project``, or ``None``.

    A path the user names outside the project is theirs to write; a path *inside* the
    project (as spelled) must also be inside it once its folders' links are followed: a
    repository's ``.qwen/agents`` linked to ``~/.claude/agents`` must not let ``sync`` plant
    a user-scope agent.  The last component is not followed (an atomic write replaces a
    link, never writes through it); its nearest existing folder is."""
    return _placed(path, project)[0]


def _placed(path: str | os.PathLike[str],
            project: str | os.PathLike[str]) -> tuple[str | None, str, str | None]:
    """(:func:`link_escape`'s answer, the project resolved, where ``path`` really is — its
    folders' links resolved once, here — or ``None`` for a path outside the project)."""
    spelled = os.path.abspath(os.fspath(path))
    top = os.path.abspath(os.fspath(project))
    real_top = os.path.realpath(top)
    if not (_inside(spelled, top) or _inside(spelled, real_top)):
        return None, real_top, None
    folder = os.path.dirname(spelled)
    while not os.path.lexists(folder) and folder != os.path.dirname(folder):
        folder = os.path.dirname(folder)
    real = os.path.realpath(folder)
    if real == real_top or _inside(real, real_top):
        return None, real_top, os.path.join(real, os.path.relpath(spelled, folder))
    return (f"{folder} leads to {real}, outside the project {top}, through a symbolic "
            "link; not writing there"), real_top, None


def _inside(path: str, folder: str) -> bool:
    prefix = folder if folder.endswith(os.sep) else folder + os.sep
    return path.startswith(prefix)


def fsync_dir(folder: str | os.PathLike[str], *, dir_fd: int | None = None) -> None:
    """Flush a folder's entry list, so a rename inside it survives a power loss
    (``dir_fd``: ``folder`` relative to that descriptor)."""
    try:
        fd = os.open(os.fspath(folder), os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
                     | getattr(os, "O_CLOEXEC", 0), dir_fd=dir_fd)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):  # some filesystems refuse fsync on a folder
            os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(
    path: str | os.PathLike[str], data: bytes | str, *, mode: int | None = None,
    fsync: bool = True, sync_dir: bool = False, make_parents: bool = False,
    within: str | os.PathLike[str] | None = None,
) -> None:
    """Replace ``path`` with ``data`` all at once (temp file in the same folder, then rename).

    ``mode=None`` keeps an existing file's mode, and gives a new file ``0o666`` minus the
    umask.  ``fsync=False`` keeps the all-or-nothing rename but skips the flush to disk (a
    killed process never leaves half a file; only a power loss can lose the last write).
    ``sync_dir`` also flushes the folder.  ``str`` data is written as UTF-8 with no newline
    translation.  Errors are the ``OSError`` of the step that failed; the temp file is removed.
    ``within``: the project; a write that would leave it through a symbolic link raises
    :class:`LeavesProject` (:func:`link_escape`) before anything is created, and a path inside
    it is written through :func:`write_nofollow` where that check found it.
    """
    target = Path(path)
    if within is not None:
        why, real_top, real = _placed(target, within)
        if why:
            raise LeavesProject(errno.EXDEV, why, os.fspath(target))
        if real is not None and os.path.isdir(real_top):
            # inside the project: written where the check found it, opened beneath the
            # project with no link followed (a folder swapped for a link after the check
            # fails the write; it never lands outside)
            write_nofollow(Path(real), data, fsync=fsync, make_parents=make_parents,
                           root=real_top, mode=mode, sync_dir=sync_dir)
            return
    folder = target.parent
    if make_parents:
        folder.mkdir(parents=True, exist_ok=True)
    if mode is None:
        try:
            mode = stat.S_IMODE(target.stat().st_mode)
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
    payload = data.encode("utf-8") if isinstance(data, str) else data
    import tempfile  # only writers pay for it (tempfile pulls shutil, random, bz2, lzma)

    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        _write_and_close(fd, payload, mode, fsync)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if sync_dir:
        fsync_dir(folder)


def write_nofollow(path: Path, data: bytes | str, *, fsync: bool = True,
                   make_parents: bool = False, root: str | os.PathLike[str] = "/",
                   mode: int | None = None, sync_dir: bool = False) -> None:
    """:func:`atomic_write` for a path already judged with its links resolved (the file
    tools' approved path), opened beneath ``root`` (resolved; the path must be under it)
    with no component followed on the way (:mod:`subagents.fs_beneath`: ``openat2`` or an
    ``O_NOFOLLOW`` walk).  A folder swapped for a link after the judgement fails the write
    (:class:`~subagents.fs_beneath.LinkOnPath`) instead of redirecting it; the temporary file
    is created in the folder's descriptor, and the rename replaces whatever is at the name (a
    link there is replaced, never written through).  ``make_parents``: missing folders are
    created, each opened without following a link right after it is made.  ``mode`` and
    ``sync_dir`` as in :func:`atomic_write` (an existing regular file keeps its mode)."""
    import secrets

    from subagents.fs_beneath import Root

    payload = data.encode("utf-8") if isinstance(data, str) else data
    with Root(root) as top:
        rel = top.rel(path)
        folder, name = os.path.split(rel)
        dfd = top.open_dir(folder, make=make_parents)
    try:
        if mode is None:
            try:
                st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
                mode = stat.S_IMODE(st.st_mode) if stat.S_ISREG(st.st_mode) else None
            except FileNotFoundError:
                mode = None
        if mode is None:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        tmp = f".{name}.{secrets.token_hex(4)}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_CLOEXEC", 0), 0o600, dir_fd=dfd)
        try:
            _write_and_close(fd, payload, mode, fsync)
            os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=dfd)
            raise
        if sync_dir:  # the folder's descriptor may be O_PATH: flush one opened from it
            fsync_dir(".", dir_fd=dfd)
    finally:
        os.close(dfd)


def find_git_root(start: Path) -> Path | None:
    """The nearest folder at or above ``start`` that holds ``.git``."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None
