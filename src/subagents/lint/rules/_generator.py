"""The command line the detector's table generators share (``python -m
subagents.lint.rules.injection_prefilter``, ``... injection_scan``, ``... injection_b64``):
``--help`` says what the module rewrites and writes nothing; otherwise each table is rendered
and written atomically, and its path printed. Development commands, not part of the CLI."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path


def rewrite_tables(prog: str, description: str,
                   tables: Sequence[tuple[Path, Callable[[], str]]],
                   argv: list[str] | None = None) -> None:  # pragma: no cover - development
    """Parse ``argv`` (only ``--help``), then write each ``(path, render)`` of ``tables``."""
    import argparse

    from subagents.fs import atomic_write

    argparse.ArgumentParser(prog=prog, description=description).parse_args(argv)
    for target, render in tables:
        atomic_write(target, render())
        print(f"wrote {target}")
