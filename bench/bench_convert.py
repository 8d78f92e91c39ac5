"""Benchmark and loss table: the corpus converted to every target, and back to Claude.

Run: ``.venv/bin/python bench/bench_convert.py [--corpus PATH] [--markdown]``

For every Claude agent file of the corpus that Claude Code loads (its definition as Claude
Code runs it), and for each target dialect, this prints (all measured in this run):

* converted: agents written / agents given (an agent is not written when the target rejects
  its name or two agents would share a file);
* loads: outputs the target's own reader (the emulation tested against the recorded CLI)
  loads, out of those written;
* kept / lost / changed: fields of the source definition that read back the same, that the
  target dropped (CV001) and that changed (CV002), summed over all agents; and the fields
  most often lost;
* round trip: written to the target, read back, written as Claude and read by Claude Code:
  how many agents come back with every one of name, description, body, model and tools that
  the target held (read back unchanged from the target's file) identical to the source;
* time: wall time to convert the whole corpus to that target, and the ratio to converting it
  to Claude Markdown (the baseline, in the same run).

``--markdown`` prints the table as Markdown for ``docs/harnesses.md``.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import time
from pathlib import Path

from subagents.errors import SubagentError
from subagents.harnesses import get_harness
from subagents.repair.convert import HARNESS_TARGETS, Target, convert_definitions

TARGETS = ("claude", "codex", "codex-md", "gemini", "opencode", "copilot", "cursor", "qwen",
           "factory", "json", "sdk")
DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def corpus_definitions(corpus: Path) -> list:  # type: ignore[type-arg]
    claude = get_harness("claude")
    out = []
    # every Markdown file but the corpus's own README, each read as a Claude agent file
    for path in sorted(corpus.rglob("*.md")):
        if not path.is_file() or path.relative_to(corpus).as_posix() == "README.md":
            continue
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for agent in claude.read_text(text, path):
            if agent.outcome.value == "loads" and agent.definition is not None:
                out.append(agent.definition)
    return out


_KEYS = ("name", "description", "system_prompt", "model", "tools")


def _value(defn, key: str):  # type: ignore[no-untyped-def]
    value = getattr(defn, key)
    return value.strip() if isinstance(value, str) else value


def _round_trip(defn, target: str):  # type: ignore[no-untyped-def]
    """(what the target holds, that written as Claude and read by Claude Code)."""
    try:
        written = get_harness(target).write(defn)
    except SubagentError:  # the target cannot hold it
        return None, None
    held = [a for a in get_harness(target).read_text(written.text, Path(written.relpath))
            if a.definition is not None]
    if not held:
        return None, None
    claude = get_harness("claude")
    text = claude.write(held[0].definition).text
    again = [a for a in claude.read_text(text, Path(".claude/agents/x.md"))
             if a.definition is not None]
    return held[0].definition, (again[0].definition if again else None)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", type=Path,
                        default=Path(os.environ.get("SUBAGENTS_CORPUS", DEFAULT_CORPUS)))
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        print(f"no corpus at {args.corpus}", file=sys.stderr)
        return 2
    defs = corpus_definitions(args.corpus)
    print(f"{len(defs)} agents Claude Code loads in {args.corpus}", file=sys.stderr)
    rows = []
    baseline = None
    for target in TARGETS:
        start = time.perf_counter()
        result = convert_definitions(defs, target)
        seconds = time.perf_counter() - start
        if target == "claude":
            baseline = seconds
        lost = collections.Counter(d.message.split("`")[1] for d in result.diagnostics
                                   if d.rule == "CV001" and "`" in d.message)
        changed = collections.Counter(d.message.split("`")[1] for d in result.diagnostics
                                      if d.rule == "CV002" and "`" in d.message)
        loads = "-"
        if Target(target) in HARNESS_TARGETS:
            harness = get_harness(target)
            ok = 0
            folder = harness.locations(Path("/p"), Path("/h"))[0].path
            for out in result.outputs:
                read = harness.read_text(out.text, folder / out.filename)
                ok += any(a.outcome.value == "loads" for a in read)
            loads = f"{ok}/{len(result.outputs)}"
        same = total = 0
        if Target(target) in HARNESS_TARGETS:
            for defn in defs:
                kept, back = _round_trip(defn, target)
                if kept is None:
                    continue  # the target cannot hold this agent at all
                total += 1
                if back is None:
                    continue
                # what the target held (read back equal to the source) must come back whole
                same += all(_value(back, k) == _value(defn, k)
                            for k in _KEYS if _value(kept, k) == _value(defn, k))
        rows.append((target, f"{len(result.converted)}/{len(defs)}", loads,
                     sum(lost.values()), sum(changed.values()),
                     ", ".join(f"{k} {v}" for k, v in lost.most_common(4)),
                     f"{same}/{total}" if total else "-", seconds))
    header = ("target", "converted", "target loads", "fields lost", "fields changed",
              "most often lost", "round trip identical", "seconds", "x claude")
    lines = []
    for r in rows:
        ratio = r[7] / baseline if baseline else float("nan")
        lines.append((*[str(x) for x in r[:7]], f"{r[7]:.2f}", f"{ratio:.1f}"))
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for line in lines:
            print("| " + " | ".join(line) + " |")
    else:
        for line in [header, *lines]:
            print("  ".join(line))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
