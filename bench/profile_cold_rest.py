"""Profile a cold ``validate`` with the prompt-injection detector stubbed out.

Run: ``PYTHONHASHSEED=0 valgrind --tool=callgrind .venv/bin/python bench/profile_cold_rest.py
TREE MODE`` (or under ``py-spy record`` with ``MODE=loop``), where TREE is a folder of agent
files (e.g. one made by ``bench_cache.replicate``, with ``distinct=True``).

The detector is most of a cold run on distinct texts and is measured on its own
(``bench_injection.py``); here its answer is replaced by "nothing found", *in this process
only*, so that what is left — the walk, the readers, the other rules, the scope rules and
the result cache — can be measured.  Every mode first validates one folder (imports and
first-use caches) and parses 50 files naively, then:

* ``setup``: nothing more (subtract its instruction count from the others');
* ``run``: ``validate_paths`` of every folder without the result cache;
* ``cachesetup`` / ``cache``: the package fingerprint worked out, then (``cache``) a cold run
  that writes the result cache (``$SUBAGENTS_CACHE_DIR``, emptied first);
* ``naive``: ``frontmatter.load`` of every file (the bench's baseline);
* ``loop``: ``run`` ``$LOOPS`` times (for a sampling profiler).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from pathlib import Path

import frontmatter

from subagents.lint.rules import injection
from subagents.lint.validate import validate_paths


def main() -> None:
    tree, mode = Path(sys.argv[1]), sys.argv[2]
    injection.assess_injection = lambda text: None  # this process only: see the docstring
    paths = sorted(tree.rglob("*.md"))
    folders = sorted({p.parent for p in paths})
    validate_paths(folders[:1], cache=False)  # imports and first-use caches
    for p in paths[:50]:
        frontmatter.load(str(p))
    if mode == "run":
        validate_paths(folders, cache=False)
    elif mode in ("cache", "cachesetup"):
        validate_paths(folders[:1], cache=True)  # the package fingerprint, once a process
        shutil.rmtree(os.environ["SUBAGENTS_CACHE_DIR"], ignore_errors=True)
        if mode == "cache":
            validate_paths(folders, cache=True)
    elif mode == "naive":
        for p in paths:
            with contextlib.suppress(Exception):
                frontmatter.load(str(p))
    elif mode == "loop":
        for _ in range(int(os.environ.get("LOOPS", "10"))):
            validate_paths(folders, cache=False)
    elif mode != "setup":
        raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main()
