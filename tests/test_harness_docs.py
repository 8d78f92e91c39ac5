"""docs/harnesses.md shows the crosswalk the code uses."""

from __future__ import annotations

from pathlib import Path

from subagents.harnesses.crosswalk import markdown_table

DOC = Path(__file__).resolve().parents[1] / "docs" / "harnesses.md"


def test_the_crosswalk_in_the_docs_is_the_one_in_the_code() -> None:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("<!-- crosswalk:")
    body = text[text.index("\n", start) + 1:text.index("<!-- end of the crosswalk -->")]
    assert body == markdown_table()


def test_every_harness_is_in_the_table() -> None:
    from subagents.harnesses import HARNESS_NAMES

    text = DOC.read_text(encoding="utf-8")
    for name in HARNESS_NAMES:
        assert f"| `{name}` |" in text, name
