"""Opening a file *beneath* a folder without following a symbolic link anywhere on the way.

The file tools (Read, Write, Edit, MultiEdit, Grep) judge a path once — resolved, inside the
project or approved — and must then open exactly that path.  Opening it by name again would
resolve it again: a folder swapped for a link between the judgement and the open (a parallel
Bash call, a hostile build script) would send the write elsewhere.  So the path is opened
relative to a descriptor of its root folder with no link followed at any component; a swap
makes the open fail (``ELOOP``), it never lands somewhere else.

Decision
--------
* **Linux ≥ 5.6: ``openat2``** with ``RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
  RESOLVE_NO_MAGICLINKS``, relative to the root's descriptor: one system call, the kernel
  refuses every link (``/proc/self/root/...`` magic links too) and every climb out of the
  root (``..``, an absolute path) atomically.  Python has no binding, so it is called through
  ``ctypes`` (``syscall(437, dirfd, path, &open_how, sizeof open_how)``, the number on x86-64
  and aarch64; ``struct open_how {u64 flags, u64 mode, u64 resolve}``).  ``ctypes`` is
  imported on the first open only (``import subagents`` stays light).
* **Everywhere else: a walk**, one ``openat(..., O_NOFOLLOW)`` per component from the root's
  descriptor (``..`` handled on a stack of descriptors, refused above the root; folders
  opened with ``O_PATH`` where there is one, so a ``--x`` folder is walked as a path lookup
  walks it).  It gives the same answers as ``openat2`` (a property test compares them).  Used on
  other systems and machines, on kernels without ``openat2`` (``ENOSYS``), and where a
  seccomp filter refuses it (``EPERM``: container runtimes do).  Availability is probed once;
  an ``ENOSYS`` or ``EPERM`` on a later call falls back for that call as well, so a genuine
  ``EPERM`` comes from the walk.  Same guarantees, one system call per component.
* The root itself is opened by its absolute path with no link followed either
  (``RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS``, or the walk from ``/``): it must be
  given resolved (the callers pass ``Path.resolve()``-d roots), and a link swapped into it
  fails the open too.
* Errors: a link on the way is :class:`LinkOnPath` (``ELOOP``), a climb out of the root
  :class:`OutsideRoot` (``EXDEV``), anything else the ``OSError`` of the open.
* Cost (``bench/bench_beneath.py``): with the root opened, about 7 µs more than a plain
  ``open`` per call and 0.4x the walk; Grep pays about 4 µs a file (one root per search).

Not here: *what* may be opened (the permission policy decides, on the resolved path), and
reading or writing the descriptor (:mod:`subagents.fs`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
from collections.abc import Callable
from typing import Any, NoReturn

__all__ = [
    "RESOLVE",
    "LinkOnPath",
    "OutsideRoot",
    "Root",
    "open_beneath",
    "openat2_available",
]

RESOLVE_NO_MAGICLINKS = 0x02
RESOLVE_NO_SYMLINKS = 0x04
RESOLVE_BENEATH = 0x08
#: what every open here asks of ``openat2``
RESOLVE = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS
#: a root's own absolute path: no link on it (nothing is above ``/`` to escape to)
_NO_LINKS = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS
_AT_FDCWD = -100

_SYS_OPENAT2 = {"x86_64": 437, "amd64": 437, "aarch64": 437, "arm64": 437}
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
#: folders on the way are opened to walk through, not to list: ``O_PATH`` where there is one
#: (a folder with search but no read permission, ``--x``, can be walked, as by a path)
_DIR_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | _DIRECTORY | _CLOEXEC
_EAGAIN_TRIES = 8
#: what a system says when ``O_NOFOLLOW`` meets a link (Linux ELOOP, BSD EMLINK or EFTYPE,
#: ENOTDIR with ``O_DIRECTORY`` on some): an ``lstat`` tells which it was
_LINK_ERRORS = frozenset({errno.ELOOP, errno.EMLINK, errno.ENOTDIR,
                          getattr(errno, "EFTYPE", errno.ELOOP)})


class LinkOnPath(OSError):
    """A component of the path is a symbolic link (or a ``/proc`` magic link)."""


class OutsideRoot(OSError):
    """The path climbs out of the root (``..`` above it, or an absolute path)."""


class _Probe:
    """Whether ``openat2`` is used (``None``: not probed yet; tests set ``False`` to force
    the walk) and the raw call, ``(dirfd, path, flags, mode, resolve) -> fd or -errno``."""

    available: bool | None = None
    call: Callable[[int, bytes, int, int, int], int] | None = None


PROBE = _Probe()


def _load() -> Callable[[int, bytes, int, int, int], int] | None:
    """The ``openat2`` caller, or ``None`` where there is none to call."""
    if not sys.platform.startswith("linux"):
        return None
    number = _SYS_OPENAT2.get(os.uname().machine.lower())
    if number is None:
        return None
    import ctypes  # lazily: only a process that opens files beneath a root pays for it

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        raw = libc.syscall
    except (OSError, AttributeError):
        return None
    raw.restype = ctypes.c_long

    class OpenHow(ctypes.Structure):
        _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64),
                    ("resolve", ctypes.c_uint64)]

    size = ctypes.sizeof(OpenHow)

    def call(dirfd: int, path: bytes, flags: int, mode: int, resolve: int) -> int:
        how = OpenHow(flags, mode, resolve)
        ret = int(raw(ctypes.c_long(number), ctypes.c_long(dirfd), ctypes.c_char_p(path),
                      ctypes.byref(how), ctypes.c_size_t(size)))
        return ret if ret >= 0 else -ctypes.get_errno()

    return call


def openat2_available() -> bool:
    """Does this process open with ``openat2`` (probed once: a kernel that has it, no
    seccomp filter refusing it)?"""
    if PROBE.available is None:
        call = _load()
        ok = False
        if call is not None:
            top = os.open("/", _DIR_FLAGS)
            try:
                fd = call(top, b".", _DIR_FLAGS, 0, RESOLVE)
                if fd >= 0:
                    os.close(fd)
                    ok = True
            finally:
                os.close(top)
        PROBE.call = call if ok else None
        PROBE.available = ok
    return PROBE.available


def _raise(code: int, rel: str) -> NoReturn:
    """The error for ``code`` naming ``rel`` (the same words from ``openat2`` and the walk)."""
    if code == errno.ELOOP:
        raise LinkOnPath(code, "a symbolic link on the path", rel)
    if code == errno.EXDEV:
        raise OutsideRoot(code, "the path leaves its root folder", rel)
    raise OSError(code, os.strerror(code), rel)


def _openat2(dirfd: int, rel: str, flags: int, mode: int, *,
             resolve: int = RESOLVE) -> int | None:
    """The descriptor, or ``None`` when ``openat2`` cannot be used for this call."""
    call = PROBE.call
    if not openat2_available() or call is None:
        return None
    raw = os.fsencode(rel or ".")
    tmpfile = getattr(os, "O_TMPFILE", 0)  # holds O_DIRECTORY's bit: compare it whole
    how_mode = mode if flags & os.O_CREAT or (tmpfile and flags & tmpfile == tmpfile) else 0
    for _ in range(_EAGAIN_TRIES):
        ret = call(dirfd, raw, flags | _CLOEXEC, how_mode, resolve)
        if ret >= 0:
            return ret
        code = -ret
        if code in (errno.EAGAIN, errno.EINTR):  # a rename raced a ``..``: ask again
            continue
        if code in (errno.ENOSYS, errno.EPERM):  # refused by a filter: walk instead
            return None
        _raise(code, rel)
    return None  # renames kept racing: the walk does not depend on that


def _parts(rel: str) -> tuple[list[str], bool]:
    """The components of ``rel`` (``.`` and empty ones dropped), and whether the last must be
    a folder (``f/`` and ``f/.`` name a folder: a file there is ``ENOTDIR``, as the kernel
    says)."""
    if rel.startswith("/"):
        _raise(errno.EXDEV, rel)
    raw = rel.split("/")
    parts = [p for p in raw if p not in ("", ".")]
    return parts, bool(parts) and raw[-1] in ("", ".")


def _step(dirfd: int, name: str, flags: int, mode: int, rel: str) -> int:
    """``openat(dirfd, name, flags | O_NOFOLLOW)``: one component, never a link."""
    try:
        return os.open(name, flags | _NOFOLLOW | _CLOEXEC, mode, dir_fd=dirfd)
    except OSError as exc:
        if exc.errno in _LINK_ERRORS:
            try:  # systems say ENOTDIR (O_DIRECTORY) or EMLINK (BSD) for a link: one word
                if stat.S_ISLNK(os.stat(name, dir_fd=dirfd, follow_symlinks=False).st_mode):
                    _raise(errno.ELOOP, rel)
            except FileNotFoundError:
                pass
        _raise(exc.errno or errno.EIO, rel)


def _walk(rootfd: int, rel: str, flags: int, mode: int, *, make: bool = False) -> int:
    """The ``O_NOFOLLOW`` walk: each folder opened from the one before, ``..`` popped from a
    stack (never above the root); ``make``: missing folders created (then ``rel`` names a
    folder)."""
    parts, folder = _parts(rel)
    if folder:
        flags |= _DIRECTORY
    stack: list[int] = []  # descriptors opened here (the root's is the caller's)
    try:
        for index, part in enumerate(parts):
            last = index == len(parts) - 1
            if part == "..":
                if not stack:
                    _raise(errno.EXDEV, rel)
                os.close(stack.pop())
                if last:
                    return _reopen(stack[-1] if stack else rootfd, flags)
                continue
            here = stack[-1] if stack else rootfd
            if last and not make:
                return _step(here, part, flags, mode, rel)
            try:
                stack.append(_step(here, part, _DIR_FLAGS, 0, rel))
            except FileNotFoundError:
                if not make:
                    raise
                with contextlib.suppress(FileExistsError):  # made meanwhile: fine
                    os.mkdir(part, 0o777, dir_fd=here)
                stack.append(_step(here, part, _DIR_FLAGS, 0, rel))
        if not stack:  # "", ".", or "a/.." : the root itself
            return _reopen(rootfd, flags)
        return stack.pop()
    finally:
        for fd in stack:
            os.close(fd)


def _reopen(rootfd: int, flags: int) -> int:
    return os.open(".", flags | _CLOEXEC, dir_fd=rootfd)


def open_beneath(rootfd: int, rel: str | os.PathLike[str], flags: int,
                 mode: int = 0o666) -> int:
    """``rel`` opened beneath the folder ``rootfd`` with ``flags`` (``O_CLOEXEC`` added),
    following no link at any component and never leaving the folder."""
    text = os.fspath(rel)
    fd = _openat2(rootfd, text, flags, mode)
    if fd is not None:
        return fd
    return _walk(rootfd, text, flags, mode)


class Root:
    """A folder opened once, with no link on its own path, to open paths beneath it.

    ``path`` must be absolute and resolved (a root is judged by where it really is).  Use as
    a context manager, or :meth:`close` it.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.path.abspath(os.fspath(path))
        self._prefix = self.path.rstrip("/") + "/"
        fd = _openat2(_AT_FDCWD, self.path, _DIR_FLAGS, 0, resolve=_NO_LINKS)
        if fd is None:
            top = os.open("/", _DIR_FLAGS)
            try:
                fd = _walk(top, self.path[1:], _DIR_FLAGS, 0)
            finally:
                os.close(top)
        self.fd = fd

    def rel(self, path: str | os.PathLike[str]) -> str:
        """``path`` (absolute) relative to the root; :class:`OutsideRoot` when it is not
        under it (spelled: nothing is resolved)."""
        full = os.path.abspath(os.fspath(path))  # strings: pathlib costs more than the open
        if full == self.path:
            return "."
        if not full.startswith(self._prefix):
            raise OutsideRoot(errno.EXDEV, f"not under {self.path}", full)
        return full[len(self._prefix):]

    def open(self, rel: str | os.PathLike[str], flags: int, mode: int = 0o666) -> int:
        """:func:`open_beneath` this root."""
        return open_beneath(self.fd, rel, flags, mode)

    def open_dir(self, rel: str | os.PathLike[str], *, make: bool = False) -> int:
        """The folder ``rel`` beneath this root; ``make``: missing folders are created, each
        opened without following a link right after it is made."""
        text = os.fspath(rel)
        try:
            return self.open(text, _DIR_FLAGS)
        except FileNotFoundError:
            if not make:
                raise
        return _walk(self.fd, text, _DIR_FLAGS, 0, make=True)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> Root:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
