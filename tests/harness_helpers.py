"""Shared by the harness dialect tests: the corpus files Claude Code loads, read once."""

from __future__ import annotations

from functools import lru_cache

from corpus_helpers import CORPUS
from subagents.definition import AgentDefinition


@lru_cache(maxsize=1)
def claude_corpus_definitions() -> tuple[AgentDefinition, ...]:
    """Every corpus file our Claude Code emulation loads, as a definition."""
    from subagents.harnesses.loader import parse_agent_text

    out = []
    for path in sorted(CORPUS.rglob("*.md")):
        result = parse_agent_text(path.read_bytes(), path=str(path))
        view = result.claude_code
        if view is None or not view.loaded or not result.definitions:
            continue
        out.append(result.definitions[0])
    return tuple(out)
