"""One Hyperscan pass per view that says which signal pattern parts of the injection detector
may match it: the prefilter's fastest tier, where the ``hyperscan`` wheel is installed.

Design notes
------------
* Asking RE2 which parts match a view costs a pass of an RE2 set of literals
  (:mod:`.injection_gate`) and then a pass of each part's large automaton the literals let
  through (about four per prompt).  Hyperscan compiles all the parts into one database and
  says in one pass which of them match (``HS_FLAG_SINGLEMATCH``): on the corpus's prompts
  about a third of the time of the two literal sets alone (cProfile), and the parts' own
  RE2 passes are left to the few parts it names.
* **It may say yes wrongly, never no wrongly.**  Each part is given to Hyperscan *widened*:
  its syntax tree (Python's ``re`` parser, as :mod:`.injection_prefilter` reads it) written
  out again with every character class as the explicit code points RE2 gives it (``\\s`` is
  RE2's ``[\\t\\n\\f\\r ]``, ``\\w`` and ``\\d`` ASCII; no ``\\s``/``\\w`` of Hyperscan's
  own), ``^`` and ``$`` left out, and each bounded repetition ``{m,n}`` of more than
  :data:`_WIDEN` as ``{m,}``.  Leaving out an assertion or raising a bound only adds
  matches; ``\\b`` is kept (both engines read it with ASCII word characters: no
  ``HS_FLAG_UCP``); both read the same UTF-8 bytes (``HS_FLAG_UTF8``) case-sensitively (the
  views and the patterns are case-folded).  The widened database compiles in about a second
  instead of ten and is a fifth of the size.  A part Hyperscan says may match is then
  searched with RE2 as before, so the findings are RE2's; a part that cannot be written out
  (syntax the writer does not know) is always searched.  tests/test_injection_scan.py
  compares the answers with RE2's on every development text, the corpus and generated texts.
* **Shipped compiled.**  Compiling takes about a second of CPU, loading the serialized
  database a few milliseconds.  The package ships it (``_injection_scan_db.py``, generated
  by ``python -m subagents.lint.rules.injection_scan``: zlib and base64, 230 KB; the
  wheel writes it for the baseline x86-64, its ``info()`` naming no newer instruction set,
  so it loads on any such CPU; a test fails when it is stale, and a stale one is never
  used).  A process loads it once it has read :data:`_LOAD_AFTER` characters (``validate
  one.md`` never does).  When
  it cannot (another Hyperscan release, patterns changed since it was generated), a
  database compiled on this machine is looked for in the validate cache folder
  (``injection-scan-KEY.hsdb``, KEY a digest of the patterns, this writer and the Hyperscan
  release; ``--no-cache`` leaves it alone: it holds no findings); when there is none, it is
  compiled in a background thread once the process has read :data:`_BUILD_AFTER` (the
  compile runs on another core while the texts are judged through the RE2 tiers; a run that
  ends first waits for it to be stored; while it runs, ``validate`` does not fork a second
  process, as with any other thread).  Until then, and wherever the wheel is missing, a
  database cannot be loaded or a scan fails, the RE2 tiers answer, with the same result.
* ``import hyperscan`` happens only there (``import subagents`` stays light).
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable
from pathlib import Path
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

__all__ = ["Scanner", "hs_pattern", "scanner"]

#: a bounded repetition with a larger upper bound is given to Hyperscan unbounded
_WIDEN = 3
#: characters read by the process before a stored database is loaded ...
_LOAD_AFTER = 12_000
#: ... and before one is compiled (and stored) when none is
_BUILD_AFTER = 400_000
#: bump when :func:`hs_pattern` writes differently (a stored database is then not used)
_FORMAT = "1"

_MAX = 0x10FFFF
# RE2's classes (UTF-8 mode, no Unicode classes): what ``\\d``, ``\\w``, ``\\s`` match
_DIGIT = ((0x30, 0x39),)
_WORD = ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))
_SPACE = ((0x09, 0x0A), (0x0C, 0x0D), (0x20, 0x20))
_CATEGORIES: dict[Any, tuple[tuple[int, int], ...]] = {}


def _categories() -> dict[Any, tuple[tuple[int, int], ...]]:
    if not _CATEGORIES:
        _CATEGORIES.update({
            sre.CATEGORY_DIGIT: _DIGIT, sre.CATEGORY_NOT_DIGIT: _complement(_DIGIT),
            sre.CATEGORY_WORD: _WORD, sre.CATEGORY_NOT_WORD: _complement(_WORD),
            sre.CATEGORY_SPACE: _SPACE, sre.CATEGORY_NOT_SPACE: _complement(_SPACE)})
    return _CATEGORIES


def _merge(ranges: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return tuple(out)


def _complement(ranges: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    at = 0
    for lo, hi in _merge(list(ranges)):
        if lo > at:
            out.append((at, lo - 1))
        at = hi + 1
    if at <= _MAX:
        out.append((at, _MAX))
    return tuple(out)


class _Unknown(Exception):
    """Syntax the writer does not know: the part is always searched."""


def _char(c: int) -> str:
    """One code point as a pattern (or class member) matching exactly it."""
    if c >= 0x80:
        return chr(c)  # itself, as UTF-8 (``HS_FLAG_UTF8``)
    ch = chr(c)
    if ch.isalnum():
        return ch
    if 0x20 <= c < 0x7F:
        return "\\" + ch  # punctuation escaped is itself, in a class or out of it
    return f"\\x{c:02x}"


def _class(ranges: tuple[tuple[int, int], ...]) -> str:
    """A class of exactly these code points (surrogates left out: no UTF-8 holds them)."""
    parts: list[str] = []
    for lo, hi in ranges:
        for a, b in ((lo, min(hi, 0xD7FF)), (max(lo, 0xE000), hi)):
            if a <= b:
                parts.append(_char(a) if a == b else f"{_char(a)}-{_char(b)}")
    if not parts:
        raise _Unknown("an empty class")
    return "[" + "".join(parts) + "]"


def _in(items: list[tuple[Any, Any]]) -> str:
    negate = False
    ranges: list[tuple[int, int]] = []
    for op, av in items:
        if op is sre.NEGATE:
            negate = True
        elif op is sre.LITERAL:
            ranges.append((av, av))
        elif op is sre.RANGE:
            ranges.append(av)
        elif op is sre.CATEGORY and av in _categories():
            ranges.extend(_categories()[av])
        else:
            raise _Unknown(f"class item {op}")
    merged = _merge(ranges)
    return _class(_complement(merged) if negate else merged)


def _write(items: Any) -> str:
    out: list[str] = []
    for op, av in items:
        if op is sre.LITERAL:
            out.append(_char(av))
        elif op is sre.NOT_LITERAL:
            out.append(_class(_complement(((av, av),))))
        elif op is sre.ANY:  # RE2's ``.`` without ``s``: anything but a line break
            out.append(_class(_complement(((0x0A, 0x0A),))))
        elif op is sre.IN:
            out.append(_in(av))
        elif op is sre.BRANCH:
            out.append("(?:" + "|".join(_write(b) for b in av[1]) + ")")
        elif op is sre.SUBPATTERN:
            _group, add, drop, sub = av
            if add or drop:
                raise _Unknown("inline flags")
            out.append("(?:" + _write(sub) + ")")
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT):  # laziness changes no "does it match"
            low, high, sub = av
            inner = "(?:" + _write(sub) + ")"
            if high is sre.MAXREPEAT or high > _WIDEN:
                out.append(f"{inner}{{{low},}}")
            else:
                out.append(f"{inner}{{{low},{high}}}")
        elif op is sre.AT:
            if av is sre.AT_BOUNDARY:
                out.append(r"\b")
            elif av is sre.AT_NON_BOUNDARY:
                out.append(r"\B")
            elif av in (sre.AT_BEGINNING, sre.AT_END, sre.AT_BEGINNING_STRING,
                        sre.AT_END_STRING):
                continue  # left out: only ever more matches
            else:
                raise _Unknown(f"anchor {av}")
        else:
            raise _Unknown(f"{op}")
    return "".join(out)


def hs_pattern(source: str) -> str | None:
    """``source`` (an RE2 pattern, matched case-sensitively, multi-line) written out for
    Hyperscan so that it matches wherever RE2 would, and perhaps elsewhere; ``None`` when it
    cannot be (the part is then always searched)."""
    try:
        parsed = sre_parse.parse(source, re.M)
        if parsed.state.flags & ~(re.M | re.U):
            return None  # a flag for the whole pattern (``(?i)``, ``(?s)``...)
        return _write(parsed)
    except (_Unknown, re.error):
        return None


def _key(version: str) -> str:
    """A digest of the patterns and of this writer (and ``version``, the Hyperscan wheel's
    release, for the cache folder's file; empty for the shipped database's)."""
    from subagents.lint.rules.injection_patterns import _SIGNALS, _SQUEEZED

    digest = hashlib.sha256(repr((_FORMAT, version, _WIDEN, _SIGNALS, _SQUEEZED)).encode())
    return digest.hexdigest()[:24]


def _version_key(hs: Any) -> str:
    return _key(str(getattr(hs, "__version__", "")))


#: the generated module of the shipped database (written by :func:`main`)
SHIPPED = "_injection_scan_db.py"
#: ``False``: never use the shipped database (tests, benchmarks: a machine without it)
USE_SHIPPED = True


def _shipped(hs: Any) -> Scanner | None:
    """The database shipped with the package (compiled for no particular CPU: Hyperscan
    writes it for the baseline x86-64 it needs), when it was generated from the current
    patterns and this Hyperscan release can load it."""
    if not USE_SHIPPED:
        return None
    try:
        from subagents.lint.rules import _injection_scan_db as shipped
    except ImportError:
        return None
    if _key("") != shipped.KEY:
        return None  # the patterns changed since it was generated: the cache folder's
    try:
        import base64
        import zlib

        db = hs.loadb(zlib.decompress(base64.b64decode("".join(shipped.DATABASE))),
                      hs.HS_MODE_BLOCK)
    except Exception:  # another Hyperscan release (its own errors), a damaged module
        return None
    return _make(hs, db, list(shipped.NAMES), frozenset(shipped.ALWAYS))


def render_shipped() -> str:
    """The module of the shipped database, as :func:`main` writes it."""
    import base64
    import zlib

    import hyperscan as hs  # type: ignore[import-untyped, import-not-found, unused-ignore]

    names, sources, always = _parts()
    db = _compile(hs, names, sources)
    text = base64.b64encode(zlib.compress(hs.dumpb(db), 9)).decode()
    lines = [
        '"""Generated by ``python -m subagents.lint.rules.injection_scan``: do not edit.',
        "",
        "The injection detector's signal parts compiled into one Hyperscan database (written",
        "out widened by :mod:`.injection_scan`), serialized, compressed (zlib) and in base64.",
        "``KEY`` is a digest of the patterns it was compiled from: tests/test_injection_scan.py",
        "fails when it is stale, and a stale one is never used.",
        '"""',
        "",
        f"KEY = {_key('')!r}",
        f"HYPERSCAN = {str(getattr(hs, '__version__', ''))!r}",
        f"NAMES = {tuple(names)!r}",
        f"ALWAYS = {tuple(sorted(always))!r}",
        "DATABASE = (",
        *(f'    "{text[i:i + 88]}"' for i in range(0, len(text), 88)),
        ")",
    ]
    out: list[str] = []
    for line in lines:  # the names on lines of at most 99 characters
        if line.startswith("NAMES = ") and len(line) > 99:
            out.append("NAMES = (")
            row = "   "
            for name in names:
                if len(row) + len(name) + 4 > 99:
                    out.append(row)
                    row = "   "
                row += f" {name!r},"
            out.extend([row, ")"])
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def main() -> None:  # pragma: no cover - a development command
    from subagents.fs import atomic_write

    target = Path(__file__).with_name(SHIPPED)
    atomic_write(target, render_shipped())
    print(f"wrote {target}")


Scanner = Callable[[bytes], "frozenset[str] | None"]


class _State:
    """The scanner of this process, once there is one (or ``failed``: never)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.scanner: Scanner | None = None
        self.failed = False
        self.missing = False  # no stored database the last time one was looked for
        self.building: threading.Thread | None = None  # compiling in the background


_STATE = _State()


def _compile(hs: Any, names: list[str], sources: list[str]) -> Any:
    db = hs.Database()
    flags = hs.HS_FLAG_UTF8 | hs.HS_FLAG_SINGLEMATCH
    db.compile(expressions=[s.encode() for s in sources], ids=list(range(len(sources))),
               elements=len(sources), flags=[flags] * len(sources))
    return db


def _parts() -> tuple[list[str], list[str], frozenset[str]]:
    """The parts Hyperscan is given (names, widened sources) and those it is not."""
    from subagents.lint.rules.injection import part_sources

    names: list[str] = []
    sources: list[str] = []
    always: set[str] = set()
    for name, source in part_sources():
        written = hs_pattern(source)
        if written is None:
            always.add(name)
        else:
            names.append(name)
            sources.append(written)
    return names, sources, frozenset(always)


def _make(hs: Any, db: Any, names: list[str], always: frozenset[str]) -> Scanner:
    local = threading.local()  # a scratch space per thread (the language server's worker)
    ids = tuple(names)

    def on_match(i: int, _start: int, _end: int, _flags: int, found: set[str]) -> int:
        found.add(ids[i])
        return 0

    def scan(data: bytes) -> frozenset[str] | None:
        scratch = getattr(local, "scratch", None)
        try:
            if scratch is None:
                scratch = local.scratch = hs.Scratch(db)
            found: set[str] = set()
            db.scan(data, match_event_handler=on_match, context=found, scratch=scratch)
        except Exception:  # fail closed: the RE2 tiers answer
            return None
        return frozenset(found.union(always) if always else found)

    return scan


def _path(key: str) -> Path:
    from subagents.lint.cache import cache_dir

    return cache_dir() / f"injection-scan-{key}.hsdb"


def build(store: bool = True) -> Scanner | None:
    """Compile the database (and store it, ``store``); ``None`` without the wheel."""
    try:
        import hyperscan as hs  # type: ignore[import-untyped, import-not-found, unused-ignore]
    except ImportError:
        return None
    names, sources, always = _parts()
    db = _compile(hs, names, sources)
    if store:
        try:
            from subagents.fs import atomic_write

            header = ("\n".join(names) + "\0" + "\n".join(sorted(always)) + "\0").encode()
            atomic_write(_path(_version_key(hs)),
                         len(header).to_bytes(4, "big") + header + hs.dumpb(db),
                         fsync=False, make_parents=True)
        except OSError:
            pass  # a read-only cache folder: compiled again by the next process
    return _make(hs, db, names, always)


def _load() -> Scanner | None:
    try:
        import hyperscan as hs  # type: ignore[import-untyped, import-not-found, unused-ignore]
    except ImportError:
        return None
    try:
        blob = _path(_version_key(hs)).read_bytes()
        size = int.from_bytes(blob[:4], "big")
        names_text, always_text, _ = blob[4:4 + size].decode().split("\0")
        db = hs.loadb(blob[4 + size:], hs.HS_MODE_BLOCK)
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    except Exception:  # hyperscan's own errors (another release, another CPU)
        return None
    always = frozenset(filter(None, always_text.split("\n")))
    return _make(hs, db, names_text.split("\n"), always)


def scanner(read: int) -> Scanner | None:
    """The scanner, when the process has read ``read`` characters: loaded from the cache
    folder past :data:`_LOAD_AFTER`; when none is stored, compiled in a background thread
    past :data:`_BUILD_AFTER` (Hyperscan lets go of the interpreter while it compiles: the
    texts read meanwhile are judged through the RE2 tiers, on the other core); ``None`` until
    then, or without the wheel (the RE2 tiers answer)."""
    state = _STATE
    if state.scanner is not None or state.failed or read <= _LOAD_AFTER:
        return state.scanner
    if state.missing and (read <= _BUILD_AFTER or state.building is not None):
        return None
    with state.lock:
        if state.scanner is None and not state.failed and state.building is None:
            if not state.missing:
                try:
                    import hyperscan  # type: ignore[import-untyped, import-not-found, unused-ignore]  # noqa: F401
                except ImportError:
                    state.failed = True
                    return None
                import hyperscan as hs  # type: ignore[import-untyped, import-not-found, unused-ignore]

                state.scanner = _shipped(hs) or _load()
                state.missing = state.scanner is None
            if state.scanner is None and read > _BUILD_AFTER:
                state.building = threading.Thread(target=_build_for, args=(state,),
                                                  name="injection-scan-build", daemon=True)
                state.building.start()
                # a run that ends first waits for it (once per machine): abandoned, it would
                # be started again, and abandoned again, by every run of the same size
                import atexit

                atexit.register(state.building.join)
    return state.scanner


def _build_for(state: _State) -> None:
    try:
        found = build()
    except Exception:  # fail closed: the RE2 tiers answer
        found = None
    if found is None:
        state.failed = True
    state.scanner = found


def set_scanner(found: Scanner | None, failed: bool = False) -> None:
    """Use ``found`` from now on (tests, benchmarks); ``failed``: never use one."""
    _STATE.scanner = found
    _STATE.failed = failed
    _STATE.missing = False
    _STATE.building = None


if __name__ == "__main__":  # pragma: no cover
    main()
