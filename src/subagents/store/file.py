"""The bytes of an ``agents.json`` store: parse with positions, splice, write atomically, lock.

:mod:`subagents.store.core` decides *what* to write; this module makes sure it reaches the disk
without ever exposing or leaving a broken file.  Design decisions:

* **Parsing** walks the top-level object key by key with ``json``'s own (C) scanners, so each
  entry's line and byte span are known, and a duplicate name or key (which ``json`` silently
  collapses) is a :class:`StoreCorruptError` at its line and column, like truncation, a
  non-object top level, ``NaN`` or bad UTF-8.  A whitespace-only file is an empty store.
* **Splicing**: a write that changes one entry replaces (or appends, or cuts) only that
  entry's text, so every other entry stays byte for byte as the user wrote it, and the cost
  is a string copy instead of re-encoding every entry.  The result is checked with the C
  decoder (same names, same order, the changed entry equal); anything unexpected falls back
  to a canonical full dump.
* **Atomic write**: temp file in the same folder, ``fsync``, ``os.replace``, ``fsync`` of the
  folder; the mode is kept; any failure removes the temp file and leaves the old file as it
  was.  The folder ``fsync`` may run after the lock is released (:func:`atomic_write_bytes`
  ``sync_dir=False`` + :func:`fsync_dir`): the next writer's rename is ordered after ours by
  the lock, and we still sync before reporting success.
* **Locking** (:class:`StoreLock`): an exclusive ``flock`` on ``agents.json.lock`` (the same
  lock ``filelock`` takes, so the two interoperate).  A waiter *blocks* in the kernel instead
  of polling: it is woken the moment the lock is free.  ``flock`` wakes every waiter and
  lets them race, though, so writers queue first (below).  The wait is bounded by
  running the blocking call in a helper thread; on timeout the caller gets
  :class:`StoreLockTimeout` and the helper drops the lock as soon as it gets it.  The lock
  file is never deleted (deleting it would let two writers lock different inodes).  Without
  ``fcntl`` (Windows) ``filelock`` is used.
* **Fair order**: writers queue on ticket files before taking the ``flock`` (a file-based
  CLH queue; see :class:`StoreLock`), so they get the lock first come, first served; the
  ``flock`` alone let a writer lose the race several times in a row (a 923 ms wait once in
  ``bench/bench_store.py``).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import stat
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from subagents import fs as fsread
from subagents.errors import StoreCorruptError, StoreError, StoreLockTimeout
from subagents.fs import fsync_dir

__all__ = [
    "StoreDoc",
    "StoreLock",
    "atomic_write_bytes",
    "decode_store",
    "dump_store",
    "fsync_dir",
    "os_error",
    "parse_doc",
    "parse_store_text",
    "quick_doc",
    "read_regular",
    "render_change",
    "written_doc",
]

STORE_FILENAME = "agents.json"


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _pairs_no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)  # C speed; a length mismatch is the rare duplicate
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return out


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


_DECODER = json.JSONDecoder(object_pairs_hook=_pairs_no_duplicates, parse_constant=_reject_constant)
_WS_RE = re.compile(r"[ \t\n\r]*")
_COLON_RE = re.compile(r"[ \t\n\r]*:[ \t\n\r]*")
_AFTER_VALUE_RE = re.compile(r"[ \t\n\r]*(?:,[ \t\n\r]*|(\}))")
# The stdlib's (C) JSON string scanner; typeshed does not declare it.
_scanstring: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]


def _line_col(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def _json_msg(exc: json.JSONDecodeError) -> str:
    # json says "Unterminated string starting at" and puts the position after it; ours is
    # in front (path:line:col), so the dangling "at" goes.
    return exc.msg.removesuffix(" at").removesuffix(" starting")


def _corrupt(path: str, text: str, pos: int, what: str) -> StoreCorruptError:
    line, col = _line_col(text, pos)
    err = StoreCorruptError(
        f"{path}:{line}:{col}: {what}; the store is left untouched and writes are refused",
        hint="fix the file by hand, or rerun with --force to back it up to "
        "agents.json.bak-<timestamp> and start an empty store",
    )
    err.line, err.column, err.path = line, col, path  # type: ignore[attr-defined]
    return err


@dataclass(slots=True)
class StoreDoc:
    """A parsed store file: its entries and where each one stands in the text."""

    text: str
    entries: dict[str, Any] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    # name -> (key start, value start, value end) as offsets into ``text``
    spans: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    open_pos: int = -1  # the top-level "{" (-1: whitespace-only file)
    close_pos: int = -1  # the top-level "}"
    path: str = STORE_FILENAME
    spans_known: bool = True  # False: from :func:`quick_doc`; spans are found on demand


def quick_doc(text: str, path: str, previous: StoreDoc | None = None) -> StoreDoc:
    """Like :func:`parse_doc`, but one C-speed decode and no per-entry spans.

    This is what a writer parses under the lock: appending a new agent (the common write)
    needs only where the top-level object opens and closes, which whitespace trimming
    finds once the whole text is known to be a valid object without duplicate keys.  Any
    failure is re-diagnosed by :func:`parse_doc`, so the error (line, column, wording) is
    exactly the one a reader gets; updates and removals ask :func:`parse_doc` for spans.

    ``previous``, a document this process validated earlier (its last write), makes the
    common case cheaper still: when other writers have only *appended* since, the text is
    ``previous`` up to its last value, new members, then ``previous``'s closing bytes.  The
    two unchanged parts are compared (memcmp) and only the new members are decoded; any
    other difference falls back to the full decode.
    """
    if previous is not None and previous.entries and not previous.spans_known:
        grown = _appended_since(previous, text)
        if grown is not None:
            return grown
    stripped = text.strip(" \t\n\r")
    if not stripped:
        return StoreDoc(text, path=path)
    try:
        entries = _DECODER.decode(text)
        ok = isinstance(entries, dict)
    except (ValueError, RecursionError, _DuplicateKey):  # JSONDecodeError is a ValueError
        ok = False
    if not ok:
        parse_doc(text, path)  # raises StoreCorruptError at the exact line and column
        raise _corrupt(path, text, 0, "invalid JSON")  # pragma: no cover - parse_doc raised
    open_pos = len(text) - len(text.lstrip(" \t\n\r"))
    close_pos = open_pos + len(stripped) - 1
    return StoreDoc(
        text, entries, open_pos=open_pos, close_pos=close_pos, path=path, spans_known=False
    )


def written_doc(text: str, entries: dict[str, Any], path: str) -> StoreDoc:
    """The document for a text this process has just produced from ``entries`` (no parse)."""
    n = len(text)
    first = 0
    while first < n and text[first] in " \t\n\r":
        first += 1
    last = n - 1
    while last >= first and text[last] in " \t\n\r":
        last -= 1
    if first >= n:
        return StoreDoc(text, path=path)
    return StoreDoc(text, entries, open_pos=first, close_pos=last, path=path, spans_known=False)


def _last_end(doc: StoreDoc) -> int:
    """Where the last value of a non-empty object ends (the whitespace before ``}`` begins)."""
    end = doc.close_pos
    while doc.text[end - 1] in " \t\n\r":  # no slice: the text may be a megabyte
        end -= 1
    return end


def _appended_since(previous: StoreDoc, text: str) -> StoreDoc | None:
    """``text`` as ``previous`` plus appended members, or ``None`` if it is anything else."""
    old = previous.text
    if text == old:
        return previous
    cut = _last_end(previous)
    tail = old[cut:]  # whitespace, the closing brace, whitespace
    if len(text) <= len(old) or not (text.startswith(old[:cut]) and text.endswith(tail)):
        return None
    middle = text[cut : len(text) - len(tail)].lstrip(" \t\n\r")
    if not middle.startswith(","):
        return None
    try:
        added = _DECODER.decode("{" + middle[1:] + "}")
    except (ValueError, RecursionError, _DuplicateKey):
        return None  # the full decode says what and where
    if not isinstance(added, dict) or not added or any(k in previous.entries for k in added):
        return None
    # "{" old members "," new members ws "}" ws: valid exactly when the new members are.
    return StoreDoc(
        text,
        {**previous.entries, **added},
        open_pos=previous.open_pos,
        close_pos=len(text) - len(tail) + (previous.close_pos - cut),
        path=previous.path,
        spans_known=False,
    )


def parse_doc(text: str, path: str) -> StoreDoc:
    """Walk the top-level object key by key; :class:`StoreCorruptError` with line:col if bad.

    ``json``'s own (C) string and value scanners do the work, so each entry's line and span
    are known and a duplicate name is caught where it stands.
    """
    n = len(text)
    doc = StoreDoc(text, path=path)

    def skip(i: int) -> int:
        match = _WS_RE.match(text, i)
        return match.end() if match else i

    def value_at(i: int) -> tuple[Any, int]:
        try:
            return _DECODER.raw_decode(text, i)
        except json.JSONDecodeError as exc:
            end = " (the file ends early: truncated?)" if exc.pos >= n else ""
            raise _corrupt(path, text, exc.pos, f"invalid JSON: {_json_msg(exc)}{end}") from None
        except _DuplicateKey as exc:
            raise _corrupt(
                path,
                text,
                i,
                f"duplicate key {exc.key!r} inside this value (JSON keeps only the last)",
            ) from None
        except (ValueError, RecursionError) as exc:
            raise _corrupt(path, text, i, f"invalid JSON: {exc}") from None

    i = skip(0)
    if i == n:
        return doc  # whitespace only: an empty store, nothing to lose
    if text[i] != "{":
        value, _ = value_at(i)
        raise _corrupt(
            path,
            text,
            i,
            "the top level must be an object of agents by name, not "
            f"{type(value).__name__ if value is not None else 'null'}",
        )
    doc.open_pos = i
    i = skip(i + 1)
    line_no, line_pos = 1, 0  # counted incrementally: one pass over the text in all
    entries, lines, spans = doc.entries, doc.lines, doc.spans
    colon, after = _COLON_RE.match, _AFTER_VALUE_RE.match  # hot loop: one regex per step
    if i < n and text[i] == "}":
        doc.close_pos = i
        i += 1
    else:
        while True:
            if i >= n:
                raise _corrupt(
                    path,
                    text,
                    i,
                    "invalid JSON: the file ends inside the top-level object (truncated?)",
                )
            if text[i] != '"':
                raise _corrupt(
                    path, text, i, "invalid JSON: expecting an agent name in double quotes"
                )
            key_pos = i
            try:
                key, i = _scanstring(text, i + 1)
            except json.JSONDecodeError as exc:
                raise _corrupt(path, text, exc.pos, f"invalid JSON: {_json_msg(exc)}") from None
            m = colon(text, i)
            if m is None:
                raise _corrupt(path, text, skip(i), "invalid JSON: expecting ':' after the name")
            value_pos = m.end()
            value, i = value_at(value_pos)
            line_no += text.count("\n", line_pos, key_pos)
            line_pos = key_pos
            if key in entries:
                raise _corrupt(
                    path,
                    text,
                    key_pos,
                    f"duplicate agent {key!r} (first on line "
                    f"{lines[key]}); JSON keeps only the last",
                )
            entries[key] = value
            lines[key] = line_no
            spans[key] = (key_pos, value_pos, i)
            m = after(text, i)
            if m is None:
                i = skip(i)
                raise _corrupt(
                    path,
                    text,
                    i,
                    "invalid JSON: expecting ',' or '}'"
                    + (" (the file ends early: truncated?)" if i >= n else ""),
                )
            if m.group(1):  # the closing brace
                doc.close_pos = m.end() - 1
                i = m.end()
                break
            i = m.end()
    i = skip(i)
    if i < n:
        raise _corrupt(path, text, i, "invalid JSON: extra data after the top-level object")
    return doc


def parse_store_text(
    text: str, path: str = STORE_FILENAME
) -> tuple[dict[str, Any], dict[str, int]]:
    """``(entries in file order, {name: line})``, or :class:`StoreCorruptError` with line:col."""
    doc = parse_doc(text, path)
    return doc.entries, doc.lines


def _indent_of(doc: StoreDoc) -> str:
    """The indentation the file uses for its entries (two spaces if it cannot tell)."""
    if not doc.spans_known and doc.entries:
        first_key = _WS_RE.match(doc.text, doc.open_pos + 1)
        starts = [first_key.end()] if first_key else []
    else:
        starts = [key_pos for key_pos, _, _ in doc.spans.values()]
    for key_pos in starts:
        start = doc.text.rfind("\n", 0, key_pos) + 1
        prefix = doc.text[start:key_pos]
        if prefix and not prefix.strip(" \t"):
            return prefix
        break
    return "  "


def _render_entry(entry: Any, indent: str) -> str:
    # JSON strings never hold a raw newline, so re-indenting every line is safe.
    return json.dumps(entry, indent=indent, ensure_ascii=False).replace("\n", "\n" + indent)


def _splice_set(doc: StoreDoc, name: str, entry: Any) -> str:
    """The file text with ``name`` set to ``entry``; every other byte of the file kept."""
    text, indent = doc.text, _indent_of(doc)
    value = _render_entry(entry, indent)
    if name in doc.spans:
        _, start, end = doc.spans[name]
        return text[:start] + value + text[end:]
    member = f"{json.dumps(name, ensure_ascii=False)}: {value}"
    if doc.open_pos < 0:
        return "{\n" + indent + member + "\n}\n"
    if not doc.spans:
        return text[: doc.open_pos + 1] + "\n" + indent + member + "\n" + text[doc.close_pos :]
    last_end = next(reversed(doc.spans.values()))[2]
    return text[:last_end] + ",\n" + indent + member + text[last_end:]


def _splice_append(doc: StoreDoc, name: str, entry: Any) -> tuple[str, str]:
    """``(file text with a new member appended, the member's text)``; needs no spans.

    In a valid object the last value ends where the whitespace before the closing brace
    begins, so the member goes there and every existing byte is kept.
    """
    text, indent = doc.text, _indent_of(doc)
    member = f"{json.dumps(name, ensure_ascii=False)}: {_render_entry(entry, indent)}"
    if doc.open_pos < 0:
        return "{\n" + indent + member + "\n}\n", member
    if not doc.entries:
        new = text[: doc.open_pos + 1] + "\n" + indent + member + "\n" + text[doc.close_pos :]
        return new, member
    last_end = _last_end(doc)
    return text[:last_end] + ",\n" + indent + member + text[last_end:], member


def _splice_delete(doc: StoreDoc, name: str) -> str:
    """The file text without ``name``; every other byte of the file kept."""
    text = doc.text
    names = list(doc.spans)
    index = names.index(name)
    key_start, _, end = doc.spans[name]
    if len(names) == 1:
        return text[: doc.open_pos + 1] + text[doc.close_pos :]
    if index > 0:
        previous_end = doc.spans[names[index - 1]][2]
        return text[:previous_end] + text[end:]  # drops ",<ws>name: value"
    next_start = doc.spans[names[1]][0]
    return text[:key_start] + text[next_start:]


def decode_store(raw: bytes, path: str) -> str:
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        err = StoreCorruptError(
            f"{path}:{line}:{col}: not UTF-8 text; the store is left "
            "untouched and writes are refused",
            hint="save the file as UTF-8, or rerun with --force",
        )
        err.line, err.column, err.path = line, col, path  # type: ignore[attr-defined]
        raise err from None


def render_change(doc: StoreDoc, entries: dict[str, Any]) -> str:
    """The new file text for ``entries`` (a shallow copy of ``doc.entries``, then changed).

    One entry set or removed is spliced into the old text; the splice is checked with the C
    decoder; anything else, or a failed check, is a canonical full dump.
    """
    old = doc.entries
    removed = [k for k in old if k not in entries]
    # Untouched values are the very same objects (shallow copy): identity finds the change.
    changed = [k for k in entries if k not in old or entries[k] is not old[k]]
    if not removed and not changed and doc.text.strip():
        return doc.text
    if not removed and len(changed) == 1 and changed[0] not in old:
        # Appending: the old text is a valid object (it was just decoded), so checking the
        # new member on its own proves the result; no second decode of the whole file.
        name = changed[0]
        appended, member = _splice_append(doc, name, entries[name])
        try:
            check = _DECODER.decode("{" + member + "}")
        except (ValueError, _DuplicateKey):  # pragma: no cover - json.dumps output
            check = None
        if check == {name: entries[name]}:
            return appended
        return dump_store(entries).decode("utf-8")  # pragma: no cover - defensive
    if not doc.spans_known:
        doc = parse_doc(doc.text, doc.path)  # spans for an update or a removal
    text: str | None = None
    if not removed and len(changed) == 1:
        text = _splice_set(doc, changed[0], entries[changed[0]])
    elif len(removed) == 1 and not changed:
        text = _splice_delete(doc, removed[0])
    if text is not None and _splice_ok(text, entries, changed):
        return text
    return dump_store(entries).decode("utf-8")


def _splice_ok(text: str, entries: dict[str, Any], changed: list[str]) -> bool:
    try:
        check = json.loads(text)
    except ValueError:
        return False
    return (
        isinstance(check, dict)
        and list(check) == list(entries)
        and all(check[k] == entries[k] for k in changed)
    )


def dump_store(entries: Mapping[str, Any]) -> bytes:
    """The on-disk form: 2-space JSON, UTF-8 (not ``\\u`` escapes), trailing newline."""
    return (json.dumps(entries, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


# ------------------------------------------------------------------------------- file writing


def os_error(exc: OSError, path: Path, doing: str) -> StoreError:
    hints = {
        errno.ENOSPC: "the disk is full; free some space and retry",
        errno.EDQUOT: "the disk quota is exceeded; free some space and retry",
        errno.EROFS: "the file system is read-only; mount it read-write or pick another folder",
        errno.EACCES: "no permission; check the folder's owner and mode",
        errno.EPERM: "no permission; check the folder's owner and mode",
    }
    return StoreError(
        f"could not {doing} {path}: {exc.strerror or exc}; the old file is unchanged",
        hint=hints.get(exc.errno or 0),
    )


#: A store larger than this is not read at all (the loader's limit is far lower; this only
#: keeps a planted huge file or a device from filling memory).
MAX_READ_BYTES = 16 * 1024 * 1024
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def read_regular(path: Path, limit: int = MAX_READ_BYTES) -> bytes:
    """The bytes of the store file ``path`` (raises ``FileNotFoundError`` if absent).

    Never through a symlink (a group store linked to the global one, or to ``/dev/zero``),
    only a regular file (a FIFO would block, a device never ends), at most ``limit`` bytes:
    :func:`subagents.fs.read_regular`, its refusals said in a store's words."""
    try:
        return fsread.read_regular(path, limit, follow_links=False)
    except FileNotFoundError:
        raise
    except fsread.NotRegular:
        raise StoreError(f"{path} is not a regular file; a store must be one") from None
    except fsread.TooLarge as big:
        raise StoreError(f"{path} is {big.size:,} bytes, more than a store can be "
                         f"({limit:,})") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise StoreError(f"{path} is a symbolic link; a store must be a regular file "
                             "(a link could make this store write another one)",
                             hint="replace the link with the file itself") from None
        raise os_error(exc, path, "read") from None





def atomic_write_bytes(path: Path, data: bytes, mode: int, *, sync_dir: bool = True) -> None:
    """The store's write: :func:`subagents.fs.atomic_write` with the store file's mode."""
    fsread.atomic_write(path, data, mode=mode, sync_dir=sync_dir)


class StoreLock:
    """An exclusive, cross-process lock on ``<store>.lock`` with a bounded, first-come wait.

    ``acquire()`` returns the seconds it waited; raises :class:`StoreLockTimeout` after
    ``timeout`` seconds, or :class:`StoreError` if the lock file cannot be opened.

    Fairness: ``flock`` wakes every waiter when the lock is freed and lets them race, so an
    unlucky writer can lose several rounds in a row.  Writers therefore queue first, like a
    CLH queue lock built from files: under a tiny mutex (``flock`` on ``<queue>/tail``) a
    writer creates and locks its own ticket file, reads the name of the ticket before it and
    writes its own name as the new tail; it then blocks on its predecessor's ticket, which
    is unlocked exactly when the predecessor lets go of the store lock (or dies: the kernel
    drops a dead process's locks), and only then takes the ``flock`` on ``<store>.lock``.
    The queue only orders writers; mutual exclusion is still the one ``flock`` on
    ``<store>.lock`` (so ``filelock`` users and writers of older versions stay safe), and a
    writer that times out or dies merely lets its successor go early.  Each writer removes
    its predecessor's ticket, so one ticket stays behind at rest.  A writer that cannot use
    the queue (no write access to it) skips it and relies on the ``flock`` alone.
    """

    def __init__(self, lock_path: Path, timeout: float) -> None:
        self.lock_path = lock_path
        self.timeout = timeout
        self.queue_dir = lock_path.with_name(f".{lock_path.name}.queue")
        self._fd: int | None = None
        self._ticket_fd: int | None = None
        self._ticket = ""
        self._fallback: Any = None

    def acquire(self) -> float:
        started = time.monotonic()
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            return self._acquire_filelock(started)
        self._queue_up(fcntl.flock, fcntl.LOCK_EX, started)
        try:
            try:
                fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT | _NOFOLLOW, 0o644)
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    raise StoreError(f"{self.lock_path} is a symbolic link; refusing to lock "
                                     "through it (it could truncate another file)",
                                     hint="remove the link; it is re-created as a plain "
                                     "file") from None
                raise os_error(exc, self.lock_path.parent, "lock the store in") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                self._wait_blocking(fd, fcntl.flock, fcntl.LOCK_EX, started)
            except OSError as exc:
                os.close(fd)
                raise os_error(exc, self.lock_path, "lock") from None
        except BaseException:
            self._leave_queue(unlink=True)
            raise
        self._fd = fd
        return time.monotonic() - started

    def _queue_up(self, flock: Callable[[int, int], None], op: int, started: float) -> None:
        """Take a place in the queue and wait for the writer before us (see the class notes)."""
        try:
            self.queue_dir.mkdir(exist_ok=True)
            if not stat.S_ISDIR(os.lstat(self.queue_dir).st_mode):
                return  # a planted symlink: no queue (the flock alone keeps writers apart)
            tail_fd = os.open(self.queue_dir / "tail", os.O_RDWR | os.O_CREAT | _NOFOLLOW,
                              0o644)
            if not stat.S_ISREG(os.fstat(tail_fd).st_mode):
                os.close(tail_fd)
                return
        except OSError:
            # No queue (a read-only folder, another user's queue files): the flock on the
            # store lock alone still keeps writers apart, only less fairly; if that fails
            # too, its error says why.
            return
        try:
            try:
                flock(tail_fd, op | _LOCK_NB)
            except BlockingIOError:  # held for microseconds by another writer joining
                try:
                    self._wait_blocking(tail_fd, flock, op, started, close_on_error=False)
                except StoreLockTimeout:
                    tail_fd = -1  # the helper thread owns it now and closes it
                    raise
            predecessor = os.pread(tail_fd, 256, 0).decode("ascii", "replace").strip()
            ticket = f"{os.getpid()}-{os.urandom(6).hex()}.ticket"
            ticket_fd = os.open(
                self.queue_dir / ticket, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644
            )
            flock(ticket_fd, op)  # a new file: nobody else can hold it
            self._ticket_fd, self._ticket = ticket_fd, ticket
            # Not atomic on its own: a reader between these two calls sees an empty tail.
            # Every reader holds the tail mutex (as here), so none can; a writer killed
            # between them leaves an empty tail, which costs what its death costs anyway
            # (its successor goes early).  Anything that reads the tail must take the mutex.
            os.ftruncate(tail_fd, 0)
            os.pwrite(tail_fd, ticket.encode("ascii"), 0)
        except OSError:
            self._leave_queue(unlink=True)
            return  # as above: the store lock alone
        finally:
            if tail_fd >= 0:
                os.close(tail_fd)  # also drops the tail mutex
        if not predecessor or "/" in predecessor or predecessor.startswith("."):
            return
        pred_path = self.queue_dir / predecessor
        try:
            # flock needs no write access; never a symlink, never a FIFO that blocks
            pred_fd = os.open(pred_path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK)
        except OSError:
            return  # already gone: that writer finished, timed out or was cleaned up
        try:
            try:
                flock(pred_fd, op | _LOCK_NB)
            except BlockingIOError:
                self._wait_blocking(
                    pred_fd, flock, op, started, on_abandon=lambda: _unlink_quietly(pred_path)
                )
            except OSError:
                pass  # cannot wait on it: the store lock still keeps us safe
        except BaseException:
            self._leave_queue(unlink=True)
            raise
        _unlink_quietly(pred_path)  # we are its only successor
        with contextlib.suppress(OSError):
            os.close(pred_fd)

    def _leave_queue(self, *, unlink: bool) -> None:
        if self._ticket_fd is None:
            return
        fd, self._ticket_fd = self._ticket_fd, None
        if unlink:  # giving up: no successor should wait on a ticket nobody will release
            _unlink_quietly(self.queue_dir / self._ticket)
        with contextlib.suppress(OSError):
            os.close(fd)  # our successor may go

    def _wait_blocking(
        self,
        fd: int,
        flock: Callable[[int, int], None],
        op: int,
        started: float,
        *,
        close_on_error: bool = True,
        on_abandon: Callable[[], None] | None = None,
    ) -> None:
        # The kernel wakes a blocked waiter the moment the lock is free; a helper thread
        # does the blocking call so that the wait can be bounded.
        got = threading.Event()
        guard = threading.Lock()
        state: dict[str, Any] = {"abandoned": False, "error": None}

        def wait() -> None:
            try:
                flock(fd, op)
            except OSError as exc:
                state["error"] = exc
            with guard:
                if state["abandoned"]:
                    with contextlib.suppress(OSError):
                        os.close(fd)  # closing drops the lock we got too late
                    if on_abandon is not None:
                        on_abandon()
                    return
                got.set()

        threading.Thread(target=wait, name="agents-json-lock", daemon=True).start()
        remaining = self.timeout - (time.monotonic() - started)
        if not got.wait(max(remaining, 0.0)):
            with guard:
                if not got.is_set():
                    state["abandoned"] = True
                    raise StoreLockTimeout(
                        f"another writer held the lock {self.lock_path} for more than "
                        f"{self.timeout:g} s",
                        hint="retry; if it persists, look for a hung process holding the lock "
                        f"(e.g. `fuser {self.lock_path}`)",
                    )
        if state["error"] is not None:
            if close_on_error:
                os.close(fd)
            raise os_error(state["error"], self.lock_path, "lock") from None

    def _acquire_filelock(self, started: float) -> float:  # pragma: no cover - Windows
        from filelock import FileLock, Timeout

        lock = FileLock(str(self.lock_path), timeout=self.timeout)
        try:
            lock.acquire(poll_interval=0.002)
        except Timeout:
            raise StoreLockTimeout(
                f"another writer held the lock {self.lock_path} for more than {self.timeout:g} s",
                hint="retry; if it persists, look for a hung process holding the lock",
            ) from None
        self._fallback = lock
        return time.monotonic() - started

    def release(self) -> None:
        if self._fallback is not None:  # pragma: no cover - Windows
            self._fallback.release()
            self._fallback = None
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)  # closing the only descriptor releases the flock
        self._leave_queue(unlink=False)  # our successor (if any) removes our ticket


def _unlink_quietly(path: Path) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


try:
    import fcntl as _fcntl

    _LOCK_NB: int = _fcntl.LOCK_NB
except ImportError:  # pragma: no cover - Windows
    _LOCK_NB = 0
