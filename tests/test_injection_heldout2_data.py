"""Shape of the second held-out prompt-injection set (tests/data/injection/heldout2.jsonl).

This checks the data file only: fields, labels, ids, and that every style has
enough rows to be measured. It deliberately does not run the detector; the set
is for measuring it, and nothing here may be used to tune it.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

HELDOUT2 = Path(__file__).parent / "data" / "injection" / "heldout2.jsonl"
FIELDS = {"id", "style", "label", "text", "source"}
LABELS = {"injection", "benign"}

# Styles the set promises to cover with injections, at least five rows each.
INJECTION_STYLES = {
    "direct_override", "role_play", "exfiltration", "html_comment", "link_image",
    "zero_width", "homoglyph", "encoding", "german", "spanish", "french", "chinese",
    "japanese", "russian", "split_lines", "fake_system_turn", "concealment",
    "dangerous_tool", "conditional_trigger", "paraphrase", "indirect",
    "social_engineering",
}

INVISIBLE = {0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF}


def _rows() -> list[dict[str, str]]:
    rows = []
    with HELDOUT2.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            assert line.strip(), f"{HELDOUT2}:{number}: blank line"
            row = json.loads(line)
            assert isinstance(row, dict), f"{HELDOUT2}:{number}: not an object"
            rows.append(row)
    return rows


ROWS = _rows()


@pytest.mark.parametrize("row", ROWS, ids=[str(r.get("id")) for r in ROWS])
def test_row_has_exactly_the_fields_with_non_empty_strings(row: dict[str, str]) -> None:
    assert set(row) == FIELDS
    for key in FIELDS:
        assert isinstance(row[key], str) and row[key].strip(), key
    assert row["label"] in LABELS


def test_ids_are_unique() -> None:
    ids = Counter(row["id"] for row in ROWS)
    assert [i for i, n in ids.items() if n > 1] == []


def test_enough_injections_and_benign_rows() -> None:
    labels = Counter(row["label"] for row in ROWS)
    assert labels["injection"] >= 100
    assert labels["benign"] >= 40


def test_every_style_has_five_rows_and_one_label() -> None:
    by_style: dict[str, Counter[str]] = {}
    for row in ROWS:
        by_style.setdefault(row["style"], Counter())[row["label"]] += 1
    assert set(by_style) >= INJECTION_STYLES
    for style, labels in by_style.items():
        assert sum(labels.values()) >= 5, style
        assert len(labels) == 1, f"{style} mixes labels: {dict(labels)}"
        if style in INJECTION_STYLES:
            assert set(labels) == {"injection"}, style
        else:
            assert style.startswith("benign_"), style


def test_obfuscated_rows_really_hold_the_characters() -> None:
    for row in ROWS:
        codes = [ord(c) for c in row["text"]]
        if row["style"] == "zero_width":
            assert any(c in INVISIBLE or 0xE0000 <= c <= 0xE007F for c in codes), row["id"]
        if row["style"] == "homoglyph":
            assert any(c > 0x7F for c in codes), row["id"]


def test_agent_prompts_are_three_to_thirty_lines() -> None:
    for row in ROWS:
        assert 3 <= len(row["text"].splitlines()) <= 30, row["id"]
