"""The injection detector's blank collapsing and normalising in C (optional; see
subagents/lint/rules/injection_text.py, whose Python functions give the same results)."""

from collections.abc import Callable
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

def normalise(text: str, table: bytes | None, nfkc: bool
              ) -> tuple[list[str], bytes, bytes | None] | bool | None:
    """``injection._fast_both_utf8``'s variants, the first one's UTF-8 and the text's own
    UTF-8 (``None`` for an ASCII text) in one pass; ``False``: ``nfkc`` and a character NFKC
    may change (ask again with NFKC's result); ``None``: a lone surrogate, or a text beyond
    ASCII without a table."""

def text_table(ranges: list[tuple[int, int, int]]) -> bytes:
    """The table of characters beyond ASCII that :func:`normalise` reads."""

def nfkc_spans(text: str, table: bytes) -> list[tuple[int, int]]:
    """The stretches of ``text`` NFKC may change (``injection_native.nfkc_in_pieces``)."""

def similar_unit(docs: list[dict[str, int]], once: list[bool], df: dict[str, int],
                 idf_of: list[float], tf: dict[int, float]) -> list[dict[str, float]]:
    """``similarity._weigh``'s unit vectors (see _speedups_similar.c)."""

def similar_candidates(vectors: list[dict[str, float]], df: dict[str, int], reach: float,
                       cut: int) -> list[tuple[int, int]]:
    """The sorted pairs ``similarity._pairs`` scores (see _speedups_similar.c)."""

def similar_counts(low: str, memo: dict[str, str], stopwords: frozenset[str],
                   memo_max: int) -> tuple[dict[str, int], bool]:
    """A description's term counts as ``similarity._weigh`` counts them."""

def similar_stem(part: str) -> str:
    """``similarity._stem`` of a part of ASCII lower-case letters and digits."""

def similar_docs(
    texts: list[str], memo: dict[str, tuple[dict[str, int], bool]],
    count: Callable[[str], tuple[dict[str, int], bool]],
) -> tuple[list[dict[str, int]], list[bool], dict[str, int]]:
    """``similarity._weigh``'s counts, flags and document frequencies."""

def similar_find(
    docs: list[dict[str, int]], once: list[bool], df: dict[str, int], idf_of: list[float],
    tf: dict[int, float], reach: float, cut: int,
) -> tuple[list[tuple[int, int]], dict[int, dict[str, float]]]:
    """The pairs ``similarity._pairs`` scores and the unit vectors of their members."""
