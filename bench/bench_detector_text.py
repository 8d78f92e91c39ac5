"""The injection detector's cost per distinct text, each of this round's shortcuts against the
plain way it replaced, interleaved in one process (CPU-time ratios, never wall times).

Run: ``.venv/bin/python bench/bench_detector_text.py TREE [--rounds N]``, where TREE is a
folder of agent files (e.g. made by ``bench_cache.replicate`` with ``distinct=True``).  Each
file's body is judged afresh (``_assess``: no verdict remembered) after a warm-up pass, with
the shortcut on and off in turn; it prints the median microseconds per text of each and
their ratio.  The shortcuts give the same findings (tests/test_injection_collapse.py...).
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from subagents.lint.rules import injection, injection_text


def _bodies(tree: Path) -> list[str]:
    out = []
    for path in sorted(tree.rglob("*.md")):
        text = path.read_text("utf-8", "replace")
        parts = text.split("---", 2)
        out.append(parts[2] if len(parts) == 3 else text)
    return out


def _plain_collapse() -> Callable[[], None]:
    """Every collapse done the plain way (each line split into words), in place of the
    functions the detector calls from :mod:`injection_text` (Python's or the C extension's),
    and the Python steps of normalising in place of the extension's one pass."""
    names = ("_collapse", "_collapse_utf8", "_lower_collapse", "_lower_collapse_utf8",
             "_normalise")
    kept = {name: getattr(injection_text, name) for name in names}

    def words(text: str, nfkc: bool = False) -> str:
        return injection_text._collapse_words(text)

    def no_bytes(data: bytes, text: str) -> None:  # (the caller then collapses the text)
        return None

    injection_text._collapse = words
    injection_text._collapse_utf8 = no_bytes
    injection_text._lower_collapse = lambda text: words(text.lower())
    injection_text._lower_collapse_utf8 = no_bytes
    injection_text._normalise = None

    def undo() -> None:
        for name, value in kept.items():
            setattr(injection_text, name, value)

    return undo


def _matching_any(name: str) -> Callable[[], None]:
    """Pattern ``name`` replaced by one matching any text, so that the work it lets a text
    skip is done for every text, as before: ``spread`` (every text squeezed) or ``unusual``
    (the invisible characters and the letters to fold looked for in two passes).  An RE2
    call that answers at once is all it costs more."""
    from subagents.lint.rules.injection_views import linear

    pats = injection._Patterns.get()
    kept = pats[name]
    pats[name] = linear("", case_sensitive=True)

    def undo() -> None:
        pats[name] = kept

    return undo


def _wrapper_spans() -> Callable[[], None]:
    """The matches' spans from the RE2 wrapper's ``finditer`` on the text (beyond ASCII: the
    wrapper's own conversion of offsets), as before."""
    fast = injection._Parts.spans

    def plain(self: injection._Parts, text: str, raw: bytes) -> Iterator[tuple[int, int]]:
        data = raw if len(raw) == len(text) else text
        for m in self.finditer(data):  # type: ignore[arg-type]
            yield m.span()

    injection._Parts.spans = plain  # type: ignore[method-assign]

    def undo() -> None:
        injection._Parts.spans = fast  # type: ignore[method-assign]

    return undo


#: each shortcut: a name and how to switch it off (returning how to switch it on again)
SHORTCUTS: dict[str, Callable[[], Callable[[], None]]] = {
    "collapse": _plain_collapse,
    "spread": functools.partial(_matching_any, "spread"),
    "visible": functools.partial(_matching_any, "unusual"),
    "spans": _wrapper_spans,
}


def _pass(texts: list[str]) -> float:
    start = time.process_time()
    for text in texts:
        injection._assess(text)
    return time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", choices=[*SHORTCUTS, "all"], default="all")
    args = parser.parse_args(argv)
    texts = _bodies(args.tree)
    if not texts:
        print(f"{args.tree}: no .md files", file=sys.stderr)
        return 2
    injection.assess_injection("x" * 20_000)  # the Hyperscan database loaded
    injection.SPREAD_AFTER = -1  # the spread pattern asked from the first text, as compared
    _pass(texts)  # every pattern a text needs compiled
    names = list(SHORTCUTS) if args.only == "all" else [args.only]
    on: list[float] = []
    off: list[float] = []
    for _ in range(args.rounds):
        on.append(_pass(texts))
        undos = [SHORTCUTS[name]() for name in names]
        off.append(_pass(texts))
        for undo in reversed(undos):
            undo()
    per = 1e6 / len(texts)
    fast, plain = statistics.median(on) * per, statistics.median(off) * per
    print(f"{len(texts)} texts, {args.rounds} rounds, shortcuts {', '.join(names)}: "
          f"{fast:.0f} us/text on, {plain:.0f} us/text off, ratio {fast / plain:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
