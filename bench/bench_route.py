"""Routing quality and latency of ``subagents.dispatch.router.Router``.

Usage::

    .venv/bin/python bench/bench_route.py [--corpus ../shared/corpus] [--repeat 200]

The labelled set is ``bench/data/route_labels.jsonl``: each line a request a user might type,
the agent a careful person would pick, the collection it routes over and a split.  The
requests were written by hand *before* the router was tuned; only the ``dev`` half may be
looked at while tuning, the ``held-out`` half is reported separately to show overfitting.

Collections:

* ``examples``: the agents of the repo's ``examples/`` folder (its ``.claude/agents``: the five
  seed 000 §6 templates plus five more); without that folder, the five templates as
  transcribed below (the 30 requests written first were written for those five).
* ``0xfurai``: the 137 agents of ``corpus/0xfurai__claude-code-subagents`` (read in place).
* ``voltagent``: the 158 agents of ``corpus/VoltAgent__awesome-claude-code-subagents``, many
  with overlapping roles (code-reviewer/architect-reviewer, debugger/error-detective, two
  incident responders...).

Two sets.  ``easy`` (``route_labels.jsonl``, 200 requests over examples + 0xfurai): most
requests name the technology an agent is named after, so plain BM25 already gets ~95% top-1.
``hard`` (``route_labels_hard.jsonl``, 148 requests over examples + VoltAgent, written and
committed before any tuning on them): requests phrased the way users talk -- symptoms, goals,
paraphrases ("the page takes 8 seconds to load after login" -> performance-engineer), without
the agent's name or its technology word, where a careful person can still pick the agent.
Both are split dev / held-out; tune on ``--misses dev`` only.

Latency is measured with 200 agents (0xfurai plus the first VoltAgent files by name), per query
in process, after the index is built.  The baseline, measured in the same run, is one plain
BM25 (bm25s defaults: English stop words, no stemming) over name + description + body.
Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from subagents.definition import AgentDefinition
from subagents.dispatch.router import Router

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
LABELS = HERE / "data" / "route_labels.jsonl"
# The hard set: requests without the agent's name or technology word (see the docstring).
LABEL_FILES = (LABELS, HERE / "data" / "route_labels_hard.jsonl")

# Seed 000 §6, transcribed (frontmatter fields that matter for routing, and the body).
SEED_TEMPLATES: list[dict[str, str]] = [
    {
        "name": "code-reviewer",
        "description": "Reviews code for quality, security vulnerabilities, and adherence to "
        'best practices.\nExamples:\n(1) "Review my recent changes" - analyzes git diff\n'
        '(2) "Check this PR for issues" - comprehensive PR review',
        "body": "You are a senior code reviewer. When invoked:\n1. Run `git diff HEAD~1` to see "
        "recent changes\n2. For each modified file, check: security issues, performance, "
        "readability, test coverage\n3. Report findings as Critical / Warning / Suggestion",
    },
    {
        "name": "security-auditor",
        "description": "Deep security analysis of codebase. OWASP Top 10 checks, dependency "
        "audit,\nauthentication flow review, input validation analysis.",
        "body": "You are a security specialist. Analyze the codebase for vulnerabilities.\n"
        "Focus areas: injection, broken auth, sensitive data exposure, XXE,\nbroken access "
        "control, misconfiguration, XSS, deserialization, dependency vulns.",
    },
    {
        "name": "implementer-tester",
        "description": "Implements features from specs and writes comprehensive tests.\n"
        "Use after architect-review has approved the design.",
        "body": "You implement features and write tests. For each task:\n1. Read the spec from "
        ".claude/specs/\n2. Implement the feature\n3. Write unit tests (>90% coverage)\n4. Run "
        "all tests to ensure nothing breaks\n5. Commit with conventional commit message",
    },
    {
        "name": "researcher",
        "description": "Researches codebase to answer questions. Read-only, never modifies "
        "files.\nUse when you need to understand how something works before making changes.",
        "body": "You are a codebase researcher. Read and analyze code to answer questions.\n"
        "Never suggest changes. Just explain what exists and how it works.\nUse Haiku model "
        "for speed — you're optimized for fast exploration at 1/10 the cost.",
    },
    {
        "name": "architect-review",
        "description": "Reviews architectural decisions against platform constraints.\n"
        "Produces Architecture Decision Records (ADRs).",
        "body": "You are a software architect. Review designs for:\n- Scalability, "
        "performance, security implications\n- Alignment with existing patterns in the "
        "codebase\n- Cost/complexity tradeoffs\nProduce an ADR using the loaded template.",
    },
]

_FM_RE = re.compile(r"\A\s*---[ \t]*\n(.*?)\n\s*---[ \t]*\n?(.*)\Z", re.S)


def load_file(path: Path) -> AgentDefinition | None:
    """The project's reader when it is there; a minimal YAML split otherwise."""
    try:
        from subagents.harnesses.loader import read_agent_file  # type: ignore[import-not-found,unused-ignore]

        result = read_agent_file(path)
        definition: AgentDefinition | None = result.definition
        return definition
    except ImportError:
        pass
    import yaml

    m = _FM_RE.match(path.read_text(encoding="utf-8", errors="replace"))
    if not m:
        return None
    try:
        fm = yaml.safe_load(m.group(1))
    except yaml.YAMLError:
        return None
    if not isinstance(fm, dict) or not fm.get("name"):
        return None
    kws = fm.get("keywords") or ()
    return AgentDefinition(
        name=str(fm["name"]),
        description=str(fm.get("description") or ""),
        system_prompt=m.group(2),
        keywords=tuple(str(k) for k in kws) if isinstance(kws, list) else (),
        path=path,
    )


def example_agents() -> list[AgentDefinition]:
    """The agents of the repo's ``examples/`` folder; the seed templates if it has none."""
    found: dict[str, AgentDefinition] = {}
    examples = REPO / "examples"
    if examples.is_dir():
        for p in sorted(examples.rglob(".claude/agents/*.md")):
            d = load_file(p)
            if d is not None:
                found.setdefault(d.name, d)
    if found:
        return list(found.values())
    return [
        AgentDefinition(name=t["name"], description=t["description"], system_prompt=t["body"])
        for t in SEED_TEMPLATES
    ]


def corpus_agents(folder: Path) -> list[AgentDefinition]:
    out = []
    for p in sorted(folder.rglob("*.md")):
        d = load_file(p)
        if d is not None:
            out.append(d)
    return out


class PlainBM25:
    """The baseline: one bm25s index over name + description + body, bm25s defaults."""

    def __init__(self, agents: Sequence[AgentDefinition]) -> None:
        import bm25s

        self.agents = list(agents)
        texts = [f"{a.name} {a.description} {a.system_prompt}" for a in self.agents]
        self.index = bm25s.BM25()
        self.index.index(bm25s.tokenize(texts, stopwords="en", show_progress=False),
                         show_progress=False)
        self._bm25s = bm25s

    def rank(self, text: str) -> list[str]:
        tok = self._bm25s.tokenize([text], stopwords="en", return_ids=False, show_progress=False)
        scores = self.index.get_scores(tok[0]) if tok and tok[0] else [0.0] * len(self.agents)
        order = sorted(range(len(self.agents)), key=lambda i: -float(scores[i]))
        return [self.agents[i].name for i in order]


def evaluate(
    rows: Sequence[dict[str, str]], rank: Callable[[str], list[str]]
) -> tuple[float, float, list[tuple[str, str, str]]]:
    top1 = top3 = 0
    misses = []
    for row in rows:
        ranked = rank(row["request"])
        if ranked[:1] == [row["agent"]]:
            top1 += 1
        else:
            misses.append((row["request"], row["agent"], ranked[0] if ranked else "-"))
        if row["agent"] in ranked[:3]:
            top3 += 1
    n = max(len(rows), 1)
    return top1 / n, top3 / n, misses


def latency(rank: Callable[[str], object], queries: Sequence[str], repeat: int) -> float:
    """Median over ``repeat`` rounds of the mean time per query, in milliseconds."""
    rounds = []
    for q in queries[:5]:
        rank(q)  # warm
    for _ in range(repeat):
        t0 = time.perf_counter()
        for q in queries:
            rank(q)
        rounds.append((time.perf_counter() - t0) / len(queries) * 1000)
    return statistics.median(rounds)


def _score(
    sel: Sequence[dict[str, str]],
    pools: dict[str, list[AgentDefinition]],
    ours: Callable[[str], Callable[[str], list[str]]],
    baselines: dict[str, PlainBM25],
    misses: list[tuple[str, str, str, str]] | None = None,
) -> tuple[float, float, float, float]:
    """Top-1/top-3 of the router and of the baseline over ``sel`` (weighted by collection)."""
    o1 = o3 = b1 = b3 = 0.0
    for c in pools:
        part = [r for r in sel if r["collection"] == c]
        if not part:
            continue
        a1, a3, miss = evaluate(part, ours(c))
        x1, x3, _ = evaluate(part, baselines[c].rank)
        w = len(part)
        o1, o3, b1, b3 = o1 + a1 * w, o3 + a3 * w, b1 + x1 * w, b3 + x3 * w
        if misses is not None:
            misses.extend((r_set(part), *m) for m in miss)
    n = max(len(sel), 1)
    return o1 / n, o3 / n, b1 / n, b3 / n


def r_set(rows: Sequence[dict[str, str]]) -> str:
    return rows[0].get("set", "easy") if rows else "-"


def load_rows() -> list[dict[str, str]]:
    rows: list[dict[str, str]] = []
    for path in LABEL_FILES:
        for line in path.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                row.setdefault("set", "easy")
                rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    corpus = Path(__file__).resolve().parents[2] / "shared" / "corpus"
    ap.add_argument("--corpus", type=Path, default=corpus)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--misses", choices=("dev", "held-out", "all"),
                    help="print the router's misses on that split (tune on dev only)")
    args = ap.parse_args(argv)

    rows = load_rows()
    furai_dir = args.corpus / "0xfurai__claude-code-subagents"
    volt_dir = args.corpus / "VoltAgent__awesome-claude-code-subagents"
    if not furai_dir.is_dir() or not volt_dir.is_dir():
        print(f"corpus not found at {args.corpus}; nothing to measure", file=sys.stderr)
        return 2
    pools = {
        "examples": example_agents(),
        "0xfurai": corpus_agents(furai_dir),
        "voltagent": corpus_agents(volt_dir),
    }
    routers = {c: Router(a) for c, a in pools.items()}
    baselines = {c: PlainBM25(a) for c, a in pools.items()}

    def ours(c: str) -> Callable[[str], list[str]]:
        return lambda q: [m.agent.name for m in routers[c].route(q, top=3, explain=False)]

    per = ", ".join(
        f"{s}/{c}: {n}" for (s, c), n in sorted(
            {(r["set"], r["collection"]): sum(1 for x in rows if (x["set"], x["collection"])
                                               == (r["set"], r["collection"])) for r in rows}
            .items())
    )
    print(f"labelled requests: {len(rows)} ({per}); agents: "
          + ", ".join(f"{c} {len(a)}" for c, a in pools.items()))
    print(f"{'set':<5} {'split':<9} {'collection':<10} {'n':>4}  {'router top1':>11} {'top3':>6}  "
          f"{'baseline top1':>13} {'top3':>6}")
    for set_ in ("easy", "hard", "all"):
        for split in ("dev", "held-out", "all"):
            for coll in (*pools, "all"):
                sel = [r for r in rows if (set_ == "all" or r["set"] == set_)
                       and (split == "all" or r["split"] == split)
                       and (coll == "all" or r["collection"] == coll)]
                if not sel or (coll != "all" and split != "all"):
                    continue
                o1, o3, b1, b3 = _score(sel, pools, ours, baselines)
                print(f"{set_:<5} {split:<9} {coll:<10} {len(sel):>4}  {o1:>11.1%} {o3:>6.1%}  "
                      f"{b1:>13.1%} {b3:>6.1%}")
    if args.misses:
        sel = [r for r in rows if args.misses == "all" or r["split"] == args.misses]
        misses: list[tuple[str, str, str, str]] = []
        for set_ in ("easy", "hard"):
            _score([r for r in sel if r["set"] == set_], pools, ours, baselines, misses)
        for set_, q, want, got in misses:
            print(f"  {set_} miss: {q!r}: want {want}, got {got}")

    big = list(pools["0xfurai"])
    names = {a.name for a in big}
    for a in pools["voltagent"]:
        if len(big) >= 200:
            break
        if a.name not in names:
            big.append(a)
            names.add(a.name)
    queries = [r["request"] for r in rows]
    t0 = time.perf_counter()
    big_router = Router(big)
    build_ms = (time.perf_counter() - t0) * 1000
    big_base = PlainBM25(big)
    ours_ms = latency(lambda q: big_router.route(q, top=3, explain=False), queries, args.repeat)
    base_ms = latency(big_base.rank, queries, args.repeat)
    why_ms = latency(lambda q: big_router.route(q, top=3, explain=True), queries[:40],
                     max(args.repeat // 4, 1))
    print(f"latency with {len(big)} agents ({len(queries)} queries, median of {args.repeat} "
          f"rounds): router {ours_ms:.3f} ms/query, baseline {base_ms:.3f} ms/query "
          f"(ratio {ours_ms / base_ms:.2f}x); with explanations {why_ms:.3f} ms/query; "
          f"index build {build_ms:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
