"""SA203 (prompt sections): the fast heading scan agrees with a plain line-by-line reading.

``spec._headings`` collects heading lines with ``str.find`` for speed; this test holds it to
the obvious definition (every line, an ATX heading marker, the stem at a word start) on edge
cases and on every corpus file.
"""

from __future__ import annotations

import re

import pytest

from corpus_helpers import CORPUS, needs_corpus
from subagents.lint.rules.spec import SECTION_NAMES, _has_section, _headings

_ATX = re.compile(r" {0,3}#{1,6}[ \t](.*)")


def _reference(prompt: str) -> set[str]:
    found: set[str] = set()
    for line in prompt.lower().split("\n"):
        m = _ATX.match(line)
        if m is None:
            continue
        content = m.group(1)
        for name, stem, word_end in SECTION_NAMES:
            for hit in re.finditer(re.escape(stem), content):
                a, b = hit.start(), hit.end()
                if (a == 0 or not content[a - 1].isalnum()) and (
                        not word_end or b >= len(content) or not content[b].isalnum()):
                    found.add(name)
    return found


def _fast(prompt: str) -> set[str]:
    heads = _headings(prompt.lower())
    return {name for name, stem, word in SECTION_NAMES if _has_section(heads, stem, word)}


@pytest.mark.parametrize("prompt, expected", [
    ("# Role\ntext", {"Role"}),                                   # first line
    ("text\n   ## Core Capabilities\n", {"Capabilities"}),        # indented up to 3 spaces
    ("text\n    ## Role\n", set()),                               # 4 spaces: code, not heading
    ("####### Role\n", set()),                                    # 7 hashes: not a heading
    ("#Role\n", set()),                                           # no space after the marker
    ("x\n## Roles and Methodology", {"Methodology"}),             # "Roles" is not "Role"
    ("x\n##\tCommunication Style\n## Constraints", {"Communication Style", "Constraints"}),
    ("Role and constraints in prose\n", set()),                   # not in a heading
    ("## Our Methodologies\n## Controle\n", {"Methodology"}),      # stem at a word start only
])
def test_edge_cases(prompt: str, expected: set[str]) -> None:
    assert _fast(prompt) == expected == _reference(prompt)


@needs_corpus
def test_agrees_with_the_line_reading_on_the_corpus() -> None:
    checked = 0
    for path in sorted(CORPUS.rglob("*.md")):
        text = path.read_text(encoding="utf-8", errors="replace").replace("\r\n", "\n")
        assert _fast(text) == _reference(text), path
        checked += 1
    assert checked > 500
