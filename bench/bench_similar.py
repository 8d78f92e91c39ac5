"""The scope rules (SA601 duplicate names, SA602 similar descriptions) against an earlier commit's.

Run: ``.venv/bin/python bench/bench_similar.py TREE [TREE...] [--baseline REV] [--rounds N]``,
where each TREE is a folder of agent files (the corpus, or one made by
``bench_cache.replicate``).  Every folder holding agent files is one scope, as in a
``validate`` of the tree.  The baseline's ``similarity.py`` and ``rules/scope.py`` are read
from git at ``REV`` (default: the commit before this round's changes) and loaded beside this
checkout's, so both run in this process on the same definitions, interleaved; the script
prints the CPU-time ratio (new / baseline, median of the rounds; what each remembers per
description is forgotten before every timed call, as in a new process) of:

* ``find_similar_agents`` over every scope (SA602's computation);
* ``check_scope`` over all the agents (SA601 and SA602 with their messages).

It also checks that both give the same pairs, scores and diagnostics (a difference is an
error: speed is worth nothing without it).  No timing is asserted anywhere; this only prints.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from subagents.harnesses.loader import read_agent_file
from subagents.lint import similarity
from subagents.lint.rules import scope
from subagents.lint.rules.scope import ScopedAgent

ROOT = Path(__file__).resolve().parent.parent


def _load_old(rev: str, rel: str, name: str) -> types.ModuleType:
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:{rel}"], check=True,
                            capture_output=True, text=True).stdout
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    exec(compile(source, f"{rev}:{rel}", "exec"), module.__dict__)
    return module


def _scoped(trees: list[Path]) -> list[ScopedAgent]:
    out: list[ScopedAgent] = []
    for tree in trees:
        for path in sorted(tree.rglob("*.md")):
            try:
                defs = read_agent_file(path).definitions
            except Exception:
                continue
            for d in defs:
                out.append(ScopedAgent(d, str(path), 1, 1, str(path.parent)))
    return out


def _forget(mod: Any) -> None:
    """Empty what ``mod`` remembers per description (its tokens, counts and stems), so that
    every timed call works as the first of a process would: repeated rounds would otherwise
    be answered from memory and overstate any memo's gain."""
    for name in ("_COUNTS", "_TOKENS"):
        memo = getattr(mod, name, None)
        if isinstance(memo, dict):
            memo.clear()
    stem = getattr(mod, "stem", None)
    if hasattr(stem, "cache_clear"):
        stem.cache_clear()


def _cpu(fn: Callable[[], Any], mod: Any) -> float:
    _forget(mod)
    start = time.process_time()
    fn()
    return time.process_time() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("trees", nargs="+", type=Path)
    ap.add_argument("--baseline", default="af385b7", help="git revision to compare with")
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    old_sim = _load_old(args.baseline, "src/subagents/lint/similarity.py", "_old_similarity")
    old_scope = _load_old(args.baseline, "src/subagents/lint/rules/scope.py", "_old_scope")
    old_scope._similar_finder = lambda: old_sim.find_similar_agents  # type: ignore[attr-defined]

    scoped = _scoped(args.trees)
    scopes: dict[str, list[Any]] = {}
    for a in scoped:
        scopes.setdefault(a.scope, []).append(a.definition)
    groups = [g for g in scopes.values() if 1 < len(g) <= scope.MAX_SIMILAR_SCOPE]

    def pairs(mod: Any) -> list[Any]:
        return [[(a.name, b.name, s) for a, b, s in mod.find_similar_agents(g)] for g in groups]

    def diags(mod: Any) -> list[Any]:
        return [d.to_dict() if hasattr(d, "to_dict") else repr(d)
                for d in mod.check_scope(scoped, similar=True)]

    if pairs(similarity) != pairs(old_sim) or diags(scope) != diags(old_scope):
        raise SystemExit("DIFFERENT output from the baseline")
    print(f"{len(scoped)} agents in {len(scopes)} scopes ({len(groups)} compared); "
          f"{sum(len(p) for p in pairs(similarity))} similar pairs; same output as "
          f"{args.baseline}")
    for label, new, old in (
        ("find_similar_agents", lambda: pairs(similarity), lambda: pairs(old_sim)),
        ("check_scope", lambda: diags(scope), lambda: diags(old_scope)),
    ):
        ratios, news, olds = [], [], []
        for _ in range(args.rounds):
            o = _cpu(old, old_sim)
            n = _cpu(new, similarity)
            ratios.append(n / o)
            news.append(n)
            olds.append(o)
        print(f"{label:20} new {statistics.median(news) * 1e3:7.1f} ms  baseline "
              f"{statistics.median(olds) * 1e3:7.1f} ms  CPU ratio {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
