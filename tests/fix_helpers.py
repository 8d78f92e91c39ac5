"""Shared helpers for the fix/convert/examples tests (imported explicitly, not a conftest)."""

from __future__ import annotations

import difflib
import re
from typing import Any

import yaml

_LINE_RE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def split_lines(text: str) -> list[str]:
    return _LINE_RE.findall(text)


def frontmatter(text: str) -> str:
    """The YAML between the first two `---` lines (CRLF normalised)."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n")
    lines = text.split("\n")
    assert lines[0].strip() == "---", lines[0]
    end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    return "\n".join(lines[1:end])


def load_frontmatter(text: str) -> dict[str, Any]:
    data = yaml.safe_load(frontmatter(text))
    assert isinstance(data, dict)
    return data


def changed_regions(before: str, after: str) -> list[tuple[str, list[str], list[str]]]:
    """The non-equal opcodes between the two texts, by line (endings included)."""
    a, b = split_lines(before), split_lines(after)
    out: list[tuple[str, list[str], list[str]]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag != "equal":
            out.append((tag, a[i1:i2], b[j1:j2]))
    return out


def yaml_breaks(text: str) -> bool:
    try:
        yaml.safe_load(frontmatter(text))
    except yaml.YAMLError:
        return True
    return False
