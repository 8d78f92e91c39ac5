"""Measure the prompt-injection detector: precision and recall per labelled set, per style, and
the rate of flagged real agents.

Run: ``python -m subagents.lint.rules.injection_eval [--dev F] [--heldout F] [--corpus DIR]``
or ``... --set F [--set G ...]`` to measure only the sets named (the held-out set is then
left unread: what a developer tuning the detector runs).

* A labelled set is JSON lines with ``id``, ``style``, ``label`` (``injection`` or
  ``benign``) and ``text``.  ``tests/data/injection/dev.jsonl`` is the development set (the
  patterns were tuned on it); ``tests/data/injection/heldout.jsonl`` was written apart from
  the detector and is never tuned on.  The two are measured and printed separately.
* Two levels are counted: **flagged** (``medium`` or ``high``: SA406 warns, SA405 errs) and
  **refused** (``high`` only: ``run`` refuses the agent).
* The corpus of real agent files (assumed benign; default ``../shared/corpus`` beside the
  checkout, or ``SUBAGENTS_CORPUS``) gives the false-positive rate on real agents: each
  agent's prompt, description and initial prompt are judged as SA405/SA406 judge them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from subagents.lint.rules.injection import assess_injection

__all__ = ["Counts", "Measurement", "load_rows", "main", "measure", "measure_corpus"]

_LABELS = {"injection": True, "benign": False}


@dataclass(slots=True)
class Counts:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    def add(self, injection: bool, hit: bool) -> None:
        if injection:
            if hit:
                self.tp += 1
            else:
                self.fn += 1
        elif hit:
            self.fp += 1
        else:
            self.tn += 1


@dataclass(slots=True)
class Measurement:
    flagged: Counts = field(default_factory=Counts)
    refused: Counts = field(default_factory=Counts)
    #: style -> (found, total) at the flagged level
    styles: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    missed: list[str] = field(default_factory=list)
    false_alarms: list[str] = field(default_factory=list)


class SetError(ValueError):
    """A labelled set that cannot be read: the message names the file and the line."""


def load_rows(path: Path) -> list[dict[str, str]]:
    rows: list[dict[str, str]] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise SetError(f"{path}: cannot read: {exc}") from exc
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise SetError(f"{path}:{n}: not JSON: {exc.msg}") from exc
        if not isinstance(row, dict) or not isinstance(row.get("text"), str) \
                or row.get("label") not in _LABELS:
            raise SetError(f"{path}:{n}: each line needs `text` and `label` "
                           "(`injection` or `benign`)")
        rows.append({"id": str(row.get("id", n)), "style": str(row.get("style", "-")),
                     "label": row["label"], "text": row["text"]})
    return rows


def measure(rows: list[dict[str, str]]) -> Measurement:
    out = Measurement()
    for row in rows:
        injection = _LABELS[row["label"]]
        found = assess_injection(row["text"])
        out.flagged.add(injection, found is not None)
        out.refused.add(injection, found is not None and found.confidence == "high")
        style = out.styles[row["style"]]
        style[1] += 1
        if (found is not None) == injection:
            style[0] += 1
        elif injection:
            out.missed.append(row["id"])
        else:
            out.false_alarms.append(row["id"])
    return out


def measure_corpus(root: Path) -> tuple[int, list[tuple[str, str]]]:
    """(agent files judged, [(file, confidence)] flagged) over the agent files under
    ``root`` (every ``*.md`` but READMEs).  A file the reader makes an agent of is judged as
    SA405/SA406 judge it (prompt, description, initial prompt); any other is judged whole."""
    from subagents.harnesses.loader import read_agent_file

    files = sorted(p for p in root.rglob("*.md")
                   if p.is_file() and not p.name.lower().startswith("readme"))
    flagged: list[tuple[str, str]] = []
    for path in files:
        try:
            defn = read_agent_file(path).definition
        except Exception:  # a file the reader refuses is judged whole below
            defn = None
        texts = ((defn.system_prompt, defn.description, defn.initial_prompt or "")
                 if defn is not None else (path.read_text(encoding="utf-8", errors="replace"),))
        for text in texts:
            found = assess_injection(text or "")
            if found is not None:
                flagged.append((str(path.relative_to(root)), found.confidence))
                break
    return len(files), flagged


def _report(name: str, m: Measurement) -> None:
    f, r = m.flagged, m.refused
    print(f"{name}: {f.tp + f.fn} injections, {f.fp + f.tn} benign")
    print(f"  flagged (SA405 or SA406): precision {f.precision:.3f}  recall {f.recall:.3f}  "
          f"(TP {f.tp} FP {f.fp} FN {f.fn} TN {f.tn})")
    print(f"  refused (SA405, high):    precision {r.precision:.3f}  recall {r.recall:.3f}  "
          f"(TP {r.tp} FP {r.fp} FN {r.fn} TN {r.tn})")
    for style, (ok, total) in sorted(m.styles.items()):
        print(f"    {style:20} {ok}/{total}")
    if m.missed:
        print("  missed: " + ", ".join(m.missed))
    if m.false_alarms:
        print("  false alarms: " + ", ".join(m.false_alarms))


def _default_corpus() -> Path:
    if os.environ.get("SUBAGENTS_CORPUS"):
        return Path(os.environ["SUBAGENTS_CORPUS"])
    # beside the checkout, or beside the folder that holds the checkouts (worktrees)
    for up in (Path.cwd().parent, Path.cwd().parent.parent):
        if (up / "shared" / "corpus").is_dir():
            return up / "shared" / "corpus"
    return Path.cwd().parent / "shared" / "corpus"


def main(argv: list[str] | None = None) -> int:
    here = Path.cwd() / "tests" / "data" / "injection"
    parser = argparse.ArgumentParser(
        prog="python -m subagents.lint.rules.injection_eval",
        description="Precision and recall of the prompt-injection detector.")
    parser.add_argument("--dev", type=Path, default=here / "dev.jsonl")
    parser.add_argument("--heldout", type=Path, default=here / "heldout.jsonl")
    parser.add_argument("--corpus", type=Path, default=_default_corpus())
    parser.add_argument("--skip", action="append", default=[],
                        choices=["dev", "heldout", "corpus"], help="leave a part out")
    parser.add_argument("--set", dest="sets", action="append", type=Path, default=[],
                        metavar="FILE", help="measure only these labelled sets (repeatable; "
                        "the development and held-out sets are then not read)")
    args = parser.parse_args(argv)
    status = 0
    named = ([(p.stem, p) for p in args.sets] if args.sets
             else [("dev", args.dev), ("heldout", args.heldout)])
    for name, path in named:
        if name in args.skip:
            continue
        if not path.is_file():
            print(f"{name}: no set at {path}; skipped")
            continue
        try:
            _report(f"{name} ({path})", measure(load_rows(path)))
        except SetError as exc:
            print(f"error: {exc}", file=sys.stderr)
            status = 2
    if "corpus" not in args.skip:
        if args.corpus.is_dir():
            read, flagged = measure_corpus(args.corpus)
            high = sum(1 for _, c in flagged if c == "high")
            print(f"corpus ({args.corpus}): {read} real agent files, {len(flagged)} flagged "
                  f"({len(flagged) / max(read, 1):.1%}), {high} refused")
            for path, conf in flagged:
                print(f"    {conf:6} {path}")
        else:
            print(f"corpus: not found at {args.corpus}; skipped")
    return status


if __name__ == "__main__":
    sys.exit(main())
