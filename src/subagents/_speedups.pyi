"""The injection detector's blank collapsing in C (optional; see
subagents/lint/rules/injection_text.py, whose Python functions give the same results)."""

from typing import Any

def collapse(text: str, nfkc: bool = False) -> str:
    """``injection_text._collapse_py``."""

def lower_collapse(text: str) -> str:
    """``injection_text._collapse_py(text.lower())``."""

def collapse_utf8(data: bytes, text: str) -> bytes | None:
    """``injection_text._collapse_utf8_py``."""

def lower_collapse_utf8(data: bytes, text: str) -> bytes | None:
    """``injection_text._collapse_utf8_py(data.lower(), text)``."""

def simple_rows(text: str, offset: int) -> list[tuple[str, int, int, str]] | None:
    """``formats.yamltree._simple_rows_py`` (see _speedups_read.c)."""

def simple_pairs(
    rows: list[tuple[str, int, int, str]], keys: dict[Any, Any], tags: dict[str, str],
    typed_first: frozenset[str], str_tag: str, scalar: type,
) -> list[tuple[Any, Any]] | None:
    """``formats.yamltree._simple_tree``'s loop for the usual text (see _speedups_read.c)."""
