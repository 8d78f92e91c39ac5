"""The ``validate`` result cache: per-file findings and per-file facts, as ruff keeps them.

Design notes
------------
* **What is stored.** For each file: its findings after filtering (they depend only on the
  file, its place and the configuration), the number of agents, the silencers that apply to
  it, and the *facts* the cross-file rules need (name, description, dialect, path, scope
  source, line and column of each agent; the ids of the agents another harness loads).  The
  cross-file rules (``SA601`` duplicate names, ``SA602`` similar descriptions, each harness's
  duplicate ids) are never cached: every run recomputes them from the facts,
  so editing one file changes what its neighbours are told.
* **When an entry is used.** Its key (path, shown path, dialect, folder walked, scope, the
  effective configuration and filter) must match, the file's mode must match (a security rule
  reads it), and the bytes must be those validated: the BLAKE2 hash of the bytes matches,
  or, without reading the file, its whole stat (mtime_ns, size, inode, mode and ctime_ns)
  is the one recorded *and* the file had last changed well before its bytes were hashed.
  That second way is git's "racily clean" rule: any write sets the ctime to the time of the
  write (a user cannot set it back, unlike the mtime), so an unchanged ctime that is older
  than the hash by more than :data:`_RACY_NS` means no write since; a file changed within
  that window of its hash (two edits within one timestamp tick) is read and hashed again.
  A warm run then costs one ``lstat`` per file instead of an open, a read and a hash.
  Symbolic links are never cached (what they lead to can change without the link
  changing).  The stat an entry records is the look-up's, taken before the file is read, with
  the hash of the bytes the outcome was made from: a write after that stat changes the
  ctime, so the next run hashes the file and compares (a stat after the outcome would only
  leave out entries the next run finds stale anyway, for another ``lstat`` a file).  A file
  the walk listed (not a link) with nothing stored is not stat'ed at all: its entry records
  the reader's ``fstat`` of the descriptor it read the bytes from, taken after the look-up's
  time and before the read, for which the same holds (:meth:`ResultCache.store_text`); a
  cold run costs no ``lstat`` a file.
* **The file's layout (format 4).** ``{"format", "version", "similar", "entries"}``, each
  entry (by absolute path) a list: key, stat, hash, hash time, findings, agents, facts,
  silencers, another harness's ids.  A file's entry is encoded when its outcome is made
  (:func:`outcome_text`, in the process that judged it) and the file is those texts joined:
  nothing built per field for one encoding at the end (a cold run of 2,000 files: building
  the entries and writing the file 27.8 -> 15.2 ms of CPU).  The key: a hash of what the
  files of a folder walked share (configuration and filter, dialect, folder, scope), worked
  out once, then the path shown.
* **What the environment chooses.** Every ``SUBAGENTS_*`` variable (``--claude-code`` sets
  one) is part of the key, and so are the files of a folder of recorded versions named there.
* **Which build of subagents.** The file records a fingerprint of the installed package: the
  version plus the path, size and mtime of every file of the package (a development install
  changes it on every edit).  Any other fingerprint: the whole file is ignored.
* **Where.** ``$SUBAGENTS_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/subagents/validate``
  (default ``~/.cache/subagents/validate``): outside the project, so it never shows in a diff,
  never needs a ``.gitignore`` line, and an untrusted checkout cannot plant entries.  One JSON
  file per set of folders validated together.  Deleting the folder clears it.
* **Failure.** Reading: a missing, corrupt or foreign file is an empty cache; a malformed
  entry is a miss.  Writing: atomic (temp file, then rename, :func:`subagents.fs.atomic_write`),
  so concurrent runs each write a whole file and the last one wins; an unwritable folder is
  silently skipped.  The cache never raises and never changes the output.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import stat
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from subagents.definition import AgentDefinition, Dialect, Scope
from subagents.diagnostics import Diagnostic, Severity

__all__ = ["FileEntry", "ResultCache", "cache_dir", "config_fingerprint", "file_digest",
           "package_fingerprint"]

_FORMAT = 4
#: A file whose ctime is not older than its hash by this much is read and hashed every run
#: (timestamp ticks, and a file system's clock a little behind ours).
_RACY_NS = 2_000_000_000
#: larger files are validated every time (hashing them would cost more than it saves)
_MAX_CACHED_BYTES = 4 * 1024 * 1024


def cache_dir() -> Path:
    """``$SUBAGENTS_CACHE_DIR``, else ``$XDG_CACHE_HOME/subagents/validate``."""
    forced = os.environ.get("SUBAGENTS_CACHE_DIR")
    if forced:
        return Path(forced)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "subagents" / "validate"


@functools.lru_cache(maxsize=1)
def package_fingerprint() -> str:
    """The version plus the size and mtime of every file of the installed package (computed
    once a process: a few hundred ``stat`` calls)."""
    import subagents

    root = Path(subagents.__file__).parent
    h = hashlib.blake2b(subagents.__version__.encode(), digest_size=16)
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            try:
                st = os.stat(full)
            except OSError:
                continue
            h.update(f"{os.path.relpath(full, root)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def _canonical(value: Any) -> Any:
    if isinstance(value, (set, frozenset)):
        return sorted(map(str, value))
    if isinstance(value, Path):
        return str(value)
    return str(value)


def _environment() -> dict[str, Any]:
    """What the environment chooses: every ``SUBAGENTS_*`` variable (the Claude Code version
    ``--claude-code`` picks, another folder of recorded versions, ...) and, for such a folder,
    the size and mtime of its files."""
    chosen = {k: v for k, v in os.environ.items()
              if k.startswith("SUBAGENTS_") and k != "SUBAGENTS_CACHE_DIR"}
    data = chosen.get("SUBAGENTS_CLAUDE_CODE_DATA")
    files: list[list[Any]] = []
    if data:
        try:
            with os.scandir(data) as it:
                for e in it:
                    st = e.stat()
                    files.append([e.name, st.st_size, st.st_mtime_ns])
        except OSError:
            pass
    return {"variables": chosen, "data": sorted(files)}


def config_fingerprint(config: Any, profile: str, select: Sequence[str],
                       ignore: Sequence[str]) -> str:
    """One hash of the effective configuration (a dataclass) and the filter."""
    data = {"config": dataclasses.asdict(config), "profile": profile,
            "select": list(select), "ignore": list(ignore), "environment": _environment()}
    text = json.dumps(data, sort_keys=True, default=_canonical)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


@dataclass(frozen=True, slots=True)
class AgentFacts:
    """What the cross-file rules read of one agent."""

    name: str
    description: str
    dialect: str
    path: str | None
    source: str | None
    line: int
    column: int

    @classmethod
    def of(cls, defn: AgentDefinition, line: int, column: int) -> AgentFacts:
        return cls(defn.name, defn.description, defn.dialect.value,
                   None if defn.path is None else os.fspath(defn.path),
                   None if defn.source is None else defn.source.value, line, column)

    @staticmethod
    def row_of(defn: AgentDefinition, line: int, column: int) -> list[Any]:
        """``AgentFacts.of(defn, line, column).row()`` without building the object (the cache
        stores one per agent; ``str`` of a ``StrEnum`` member is its value, without the
        ``value`` property's call)."""
        path, source = defn.path, defn.source
        return [defn.name, defn.description, str(defn.dialect),
                None if path is None else os.fspath(path),
                None if source is None else str(source), line, column]

    @staticmethod
    def text_of(defn: AgentDefinition, line: int, column: int) -> str:
        """The JSON the cache file holds for ``row_of(defn, line, column)`` (``json.dumps``
        of it, without building the list)."""
        path, source = defn.path, defn.source
        return _ROW % (_quote(defn.name), _quote(defn.description), _quote(defn.dialect),
                       "null" if path is None else _quote(os.fspath(path)),
                       "null" if source is None else _quote(source), line, column)

    def text(self) -> str:
        """:meth:`row` as the cache file holds it (``json.dumps`` of it)."""
        return _ROW % (_quote(self.name), _quote(self.description), _quote(self.dialect),
                       _text(self.path), _text(self.source), self.line, self.column)

    def row(self) -> list[Any]:
        """Its fields in order, as stored (what ``dataclasses.astuple`` gives, without its
        deep copy of every field: the cache writes one per agent)."""
        return [self.name, self.description, self.dialect, self.path, self.source, self.line,
                self.column]

    def definition(self, file: Path | None = None) -> AgentDefinition:
        """The agent as the scope rules read it; ``file``, the file's own path object, is
        reused when it is the agent's path (building a ``Path`` costs more than the rest)."""
        if self.path is None:
            where = None
        elif file is not None and os.fspath(file) == self.path:
            where = file
        else:
            where = Path(self.path)
        return AgentDefinition(
            name=self.name, description=self.description, dialect=Dialect(self.dialect),
            path=where, source=None if self.source is None else Scope(self.source))


@dataclass(slots=True)
class FileEntry:
    """The cached outcome of one file."""

    diagnostics: list[Diagnostic]
    agents: int
    facts: list[AgentFacts] = field(default_factory=list)
    #: (config ignores for the file, in-file ignores) when it defines agents
    silencers: tuple[tuple[str, ...], tuple[str, ...]] | None = None
    #: ids of the agents another harness loads from the file (its duplicate-name rule)
    harness_ids: list[str] = field(default_factory=list)


def file_digest(data: bytes) -> str:
    """The hash an entry records of a file's bytes."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _diag_out(d: Diagnostic) -> list[Any]:
    return [d.path, d.line, d.column, d.rule, d.severity.value, d.message, d.hint, d.key,
            d.subject]


def _diag_in(row: list[Any]) -> Diagnostic:
    path, line, column, rule, severity, message, hint, key, subject = row
    return Diagnostic(path=path, line=line, column=column, rule=rule,
                      severity=Severity(severity), message=message, hint=hint, key=key,
                      subject=subject)


def _stat(st: os.stat_result) -> list[int]:
    return [st.st_mtime_ns, st.st_size, st.st_ino, st.st_mode, st.st_ctime_ns]


#: JSON of a string, quoted and escaped as ``json.dumps`` writes it (non-ASCII and lone
#: surrogates escaped, so the file stays valid UTF-8); the C function when there is one
_quote = json.encoder.encode_basestring_ascii
#: ``json.dumps`` as the cache file is written: no spaces, no cycle check (lists, dicts,
#: strings and numbers built here: no cycle to look for, and the check costs a third of the
#: encoding; a cycle would still fail, and be caught)
_encode = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode


def _text(value: str | None) -> str:
    return "null" if value is None else _quote(value)


def _entry_row(key: str, stated: list[int], digest: str, hashed_at: int,
               diagnostics: Sequence[Diagnostic], agents: int, facts: list[list[Any]],
               silencers: tuple[tuple[str, ...], tuple[str, ...]] | None,
               harness_ids: Sequence[str]) -> list[Any]:
    """An entry as the file holds it, a list of its fields in this order (what
    :func:`_entry_text` writes and :func:`_entry_in` reads)."""
    return [key, stated, digest, hashed_at, [_diag_out(d) for d in diagnostics], agents, facts,
            None if silencers is None else [list(silencers[0]), list(silencers[1])],
            list(harness_ids)]


#: an agent's facts (:meth:`AgentFacts.row`); an entry's member of ``entries`` up to its
#: findings (its path, key, stat, hash and hash time), then from its findings on (what
#: :func:`outcome_text` gives); ``%d`` writes an ``int`` (or a ``bool``) as JSON does and
#: refuses anything else
_ROW = "[%s,%s,%s,%s,%s,%d,%d]"
_HEAD = "%s:[%s,[%d,%d,%d,%d,%d],%s,%d,"
_TAIL = "%s,%d,[%s],%s,%s]"


def outcome_text(diagnostics: Sequence[Diagnostic], agents: int, facts: Sequence[str],
                 silencers: tuple[tuple[str, ...], tuple[str, ...]] | None,
                 harness_ids: Sequence[str]) -> str:
    """The JSON of a file's outcome as its entry holds it, from its findings on
    (``facts``: each agent's :meth:`AgentFacts.text`): worked out where the outcome is made
    (in the process that judged the file, while its strings are at hand), so that storing it
    is a concatenation.  The common fields are formatted here (strings quoted by ``json``'s
    own function, numbers by ``%d``); findings, silencers and another harness's ids, when
    there are any, by the encoder.  ``TypeError`` for a field of another type."""
    if silencers is None:
        silenced = "null"
    elif not silencers[0] and not silencers[1]:
        silenced = "[[],[]]"
    else:
        silenced = _encode([list(silencers[0]), list(silencers[1])])
    return _TAIL % (_encode([_diag_out(d) for d in diagnostics]) if diagnostics else "[]",
                    agents, ",".join(facts), silenced,
                    _encode(list(harness_ids)) if harness_ids else "[]")


def _entry_head(apath: str, key: str, st: os.stat_result, digest: str, hashed_at: int) -> str:
    return _HEAD % (_quote(apath), _quote(key), st.st_mtime_ns, st.st_size, st.st_ino,
                    st.st_mode, st.st_ctime_ns, _quote(digest), hashed_at)


def _entry_text(apath: str, key: str, st: os.stat_result, digest: str, hashed_at: int,
                diagnostics: Sequence[Diagnostic], agents: int, facts: Sequence[str],
                silencers: tuple[tuple[str, ...], tuple[str, ...]] | None,
                harness_ids: Sequence[str]) -> str:
    """``"apath":[...]``, the member of the file's ``entries`` that ``json.dumps`` (with the
    file's settings) writes for :func:`_entry_row`'s list (``facts``: each agent's
    :meth:`AgentFacts.text`), without building the lists for the encoder to walk.
    ``TypeError`` for a field of another type."""
    return (_entry_head(apath, key, st, digest, hashed_at)
            + outcome_text(diagnostics, agents, facts, silencers, harness_ids))


def _entry_in(raw: list[Any]) -> FileEntry:
    _key, _stated, _digest, _hashed_at, diagnostics, agents, facts, s, ids = raw
    return FileEntry(
        diagnostics=[_diag_in(r) for r in diagnostics], agents=int(agents),
        facts=[AgentFacts(*f) for f in facts],
        silencers=None if s is None else (tuple(s[0]), tuple(s[1])),
        harness_ids=[str(i) for i in ids])


class _Memo(dict[str, list[list[float]]]):
    """Starts empty, answers from an earlier run's answers: what this run used is kept."""

    def __init__(self, old: dict[str, Any]) -> None:
        super().__init__()
        self._old = old

    def get(self, key: str, default: Any = None) -> Any:
        if key not in self:
            value = self._old.get(key)
            if value is None:
                return default
            self[key] = value
        return self[key]


class ResultCache:
    """One cache file: load once, look files up, store results, save once."""

    def __init__(self, roots: Sequence[Path | str], *, folder: Path | None = None) -> None:
        where = "\0".join(sorted(os.path.abspath(r) for r in roots))
        name = hashlib.blake2b(where.encode(), digest_size=12).hexdigest()
        self.path = (folder or cache_dir()) / f"{name}.json"
        self._version = package_fingerprint()
        self._old_similar: dict[str, Any] = {}
        self._old: dict[str, Any] = self._load()
        #: entries kept from the last run (as read), and those stored by this one (encoded:
        #: each one's ``"apath":[...]``)
        self._new: dict[str, Any] = {}
        self._fresh: dict[str, str] = {}
        #: the similar-description pairs of each scope (see ``rules.scope.check_scope``):
        #: answers of earlier runs, and those asked for or computed in this one
        self.similar: dict[str, list[list[float]]] = _Memo(self._old_similar)
        self._changed = False
        #: what the last :meth:`lookup` saw, for :meth:`store`: the stat (None: not taken,
        #: the reader's is recorded), the hash of the bytes if it had to read them (else
        #: None: :meth:`store` hashes the reader's) and when it looked
        self._pending: dict[str, tuple[os.stat_result | None, str | None, int]] = {}

    def _load(self) -> dict[str, Any]:
        try:
            with open(self.path, "rb") as fh:
                data = json.loads(fh.read())
            if (isinstance(data, dict) and data.get("format") == _FORMAT
                    and data.get("version") == self._version
                    and isinstance(data.get("entries"), dict)):
                entries: dict[str, Any] = data["entries"]
                if isinstance(data.get("similar"), dict):
                    self._old_similar = data["similar"]
                return entries
        except Exception:  # missing, unreadable, corrupt: an empty cache
            pass
        return {}

    @staticmethod
    def key(*parts: object) -> str:
        return hashlib.blake2b("\0".join(map(str, parts)).encode(),
                               digest_size=16).hexdigest()

    def lookup(self, apath: str, key: str, *, listed: bool = False) -> FileEntry | None:
        """The stored outcome of the file at ``apath`` (absolute, as ``os.path.abspath``
        gives it: the caller has it already) if it is still valid, else ``None``.

        ``listed``: the folder's listing said the path is a file and not a link.  Such a
        file with no entry is not stat'ed here: nothing stored can be checked, and the
        entry :meth:`store_text` makes records the reader's ``fstat`` instead (taken after
        this look-up, before the bytes were read), so a cold run costs no ``lstat`` a file."""
        if listed and apath not in self._old:
            # taken before the reader opens the file (see store_text)
            self._pending[apath] = (None, None, time.time_ns())
            return None
        try:
            st = os.lstat(apath)
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode) or st.st_size > _MAX_CACHED_BYTES:
            return None
        raw = self._old.get(apath)
        try:
            if (isinstance(raw, list) and raw[0] == key and raw[1] == _stat(st)
                    and int(raw[3]) - st.st_ctime_ns > _RACY_NS):
                entry = _entry_in(raw)  # unchanged since well before it was hashed
                self._new[apath] = raw
                return entry
        except Exception:  # a malformed entry is a miss
            pass
        # taken before reading: a write during or after the read has a ctime after it
        hashed_at = time.time_ns()
        if not isinstance(raw, list):
            # nothing stored for this file: the bytes decide nothing now, so they are hashed
            # when the outcome is stored, from what the reader read (one read per file)
            self._pending[apath] = (st, None, hashed_at)
            return None
        try:
            with open(apath, "rb") as fh:
                digest = file_digest(fh.read())
        except OSError:
            return None
        self._pending[apath] = (st, digest, hashed_at)
        try:
            if raw[0] != key or raw[2] != digest or raw[1][3] != st.st_mode:
                return None
            entry = _entry_in(raw)
        except Exception:  # a malformed entry is a miss
            return None
        # the same bytes: the entry stands, with this stat and this hash time (so that the
        # next run can trust the stat once the file is old enough)
        self._new[apath] = [raw[0], _stat(st), digest, hashed_at, *raw[4:]]
        self._changed = True
        return entry

    def store(self, apath: str, key: str, entry: FileEntry, digest: str | None = None) -> None:
        """Remember the outcome of the file at ``apath`` (looked up just before).

        ``digest``: :func:`file_digest` of the bytes the outcome was computed from, as the reader
        read them after the look-up (so the file is not read a second time to hash it);
        without it, a file the look-up did not hash is read and hashed now."""
        try:
            facts = [f.text() for f in entry.facts]
        except (TypeError, ValueError):  # not stored: validated again next time
            return
        self.store_outcome(apath, key, entry.diagnostics, entry.agents, facts,
                           entry.silencers, entry.harness_ids, digest)

    def store_outcome(self, apath: str, key: str, diagnostics: Sequence[Diagnostic],
                      agents: int, facts: Sequence[str],
                      silencers: tuple[tuple[str, ...], tuple[str, ...]] | None,
                      harness_ids: Sequence[str], digest: str | None = None) -> None:
        """:meth:`store` of a :class:`FileEntry`'s fields (``facts``: each agent's
        :meth:`AgentFacts.text`), without building it."""
        try:
            text = outcome_text(diagnostics, agents, facts, silencers, harness_ids)
        except (TypeError, ValueError):  # a field of another type: not stored
            return
        self.store_text(apath, key, text, digest)

    def store_text(self, apath: str, key: str, outcome: str, digest: str | None = None,
                   read_stat: os.stat_result | None = None) -> None:
        """:meth:`store` of an outcome given as :func:`outcome_text` gives it: ``validate``
        stores one per file, made where the file was judged.

        The entry records the look-up's stat, taken before the file was read, and the hash
        of the bytes the outcome was computed from.  A write after that stat changes the
        ctime (or, within the same timestamp tick, falls inside the racy window of the
        look-up's time), so the next run does not trust the stat and compares the hash of
        what the file holds then with these bytes' (no second ``lstat`` here: it would only
        leave out an entry that the next run finds stale anyway).

        A file the look-up did not stat (``listed``, nothing stored) records ``read_stat``,
        the reader's ``fstat`` of the descriptor it read ``digest``'s bytes from, taken
        after the look-up and before the read.  The same argument holds for it: a write
        after the ``fstat`` changes the ctime; a write before it is in the bytes read; and
        a write in the tick of the recorded ctime is later than the look-up's time, so that
        ctime is within the racy window and the next run hashes.  The descriptor's stat is
        the file's own (a link swapped in after the listing: the next run's ``lstat`` sees
        a link, never cached).  Without it (the reader refused the file unread: too large,
        not a regular file) nothing is stored."""
        seen = self._pending.pop(apath, None)
        if seen is None:
            return
        st, looked, hashed_at = seen
        if st is None:
            if (read_stat is None or digest is None or not stat.S_ISREG(read_stat.st_mode)
                    or read_stat.st_size > _MAX_CACHED_BYTES):
                return
            st = read_stat
        elif digest is None and looked is not None:
            digest = looked  # (the same bytes, unless written since: then a miss next time)
        elif digest is None:
            # not read by the reader (over its size limit): the outcome came from the stat,
            # and the bytes are read now; kept only if the file did not change since the
            # look-up (else these bytes are not those the outcome describes)
            try:
                with open(apath, "rb") as fh:
                    digest = file_digest(fh.read())
                if _stat(os.lstat(apath)) != _stat(st):
                    return
            except OSError:
                return
        try:
            self._fresh[apath] = _entry_head(apath, key, st, digest, hashed_at) + outcome
        except (TypeError, ValueError):  # a key or hash of another type: not stored
            return
        self._new.pop(apath, None)
        self._changed = True

    def save(self) -> None:
        """Write the entries of this run (best effort; never raises)."""
        if (not self._changed and len(self._new) == len(self._old)
                and len(self.similar) == len(self._old_similar)):
            return
        try:
            from subagents.fs import atomic_write

            # the entries of this run encoded when stored, those kept from the last run now
            members = list(self._fresh.values())
            if self._new:
                members.append(_encode(self._new)[1:-1])
            payload = (f'{{"format":{_FORMAT},"version":{_quote(self._version)},'
                       f'"similar":{_encode(dict(self.similar))},'
                       f'"entries":{{{",".join(members)}}}}}')
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(self.path, payload, fsync=False, mode=0o600)
        except Exception:  # read-only, full, vanished: the next run starts cold
            pass
