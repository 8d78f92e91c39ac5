"""Writing a labelled prompt-injection set (one JSON object a line), shared by the scripts
that make the development sets (``make_injection_*.py``)."""

from __future__ import annotations

import json
from pathlib import Path


def write_set(out: Path, rows: list[dict[str, str]]) -> None:
    """Write ``rows`` to ``out`` and say what it holds."""
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                   encoding="utf-8")
    injections = sum(r["label"] == "injection" for r in rows)
    print(f"{out}: {injections} injections, {len(rows) - injections} benign, "
          f"{len({r['style'] for r in rows})} styles")
