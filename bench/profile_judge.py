"""Count the judging of a cold ``validate`` alone: everything ``_judge`` does after a file is read.

Run: ``PYTHONHASHSEED=0 valgrind --tool=callgrind .venv/bin/python bench/profile_judge.py TREE
MODE`` for MODE ``setup`` and ``run``, and subtract the first count from the second.

Both modes validate every folder of TREE with ``_judge`` replaced by a recorder (the files
are read, their arguments kept, nothing judged), with the injection detector stubbed out *in
this process only* (it is measured on its own, ``bench_injection.py``), then judge the first
20 recorded files for real (first-use compiles, the secrets gate).  ``run`` then judges every
other recorded file, inside the run's pinned profiles and plugin look-ups, as
``validate_paths`` does.
"""

from __future__ import annotations

import gc
import sys
from pathlib import Path
from typing import Any

from subagents.claude_code.profile import pinned
from subagents.harnesses.plugins import plugins_pinned
from subagents.lint import judge, validate
from subagents.lint.rules import injection
from subagents.lint.rules.security import _Gate
from subagents.lint.validate import validate_paths


def main() -> None:
    tree, mode = Path(sys.argv[1]), sys.argv[2]
    injection.assess_injection = lambda text: None  # type: ignore[assignment]
    paths = sorted(tree.rglob("*.md"))
    folders = sorted({p.parent for p in paths})
    validate_paths(folders[:1], cache=False)  # imports and first-use caches
    real = judge._judge
    recorded: list[tuple[tuple[Any, ...], dict[str, Any]]] = []

    def record(*args: Any, **kwargs: Any) -> tuple[list[Any], int]:
        recorded.append((args, kwargs))
        return [], 0

    validate._judge = record  # type: ignore[assignment]
    judge._judge = record  # type: ignore[assignment]
    validate_paths(folders, cache=False)
    gc.disable()
    with pinned(), plugins_pinned():
        _Gate.held("x" * 20_000)  # (the gate built, as a run of this size builds it)
        for args, kwargs in recorded[:20]:
            real(*args, **kwargs)
        if mode == "run":
            for args, kwargs in recorded[20:]:
                real(*args, **kwargs)
        elif mode != "setup":
            raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main()
