"""Writing a labelled prompt-injection set (one JSON object a line), shared by the scripts
that make the development sets (``make_injection_*.py``)."""

from __future__ import annotations

import json
from pathlib import Path


def numbered_rows(injections: list[tuple[str, str]], benign: list[tuple[str, str]],
                  tag: str) -> list[dict[str, str]]:
    """(style, text) pairs as rows, each id the style, the set's ``tag`` and a count."""
    out: list[dict[str, str]] = []
    counts: dict[str, int] = {}
    for label, items in (("injection", injections), ("benign", benign)):
        for style, text in items:
            counts[style] = counts.get(style, 0) + 1
            out.append({"id": f"{style}-{tag}-{counts[style]}", "style": style, "label": label,
                        "text": text})
    return out


def write_set(out: Path, rows: list[dict[str, str]]) -> None:
    """Write ``rows`` to ``out`` and say what it holds."""
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                   encoding="utf-8")
    injections = sum(r["label"] == "injection" for r in rows)
    print(f"{out}: {injections} injections, {len(rows) - injections} benign, "
          f"{len({r['style'] for r in rows})} styles")
