"""The injection detector's texts of a few dozen files judged together, ahead of the files.

Design notes
------------
* **Why.**  ``validate`` on many files reads a file, judges it (the rules, then the injection
  detector on its prompt and description), then the next file.  The detector's working set
  (a Hyperscan database, RE2 automata, its tables) and the rest's (the readers, the rules,
  the definitions) then push each other out of the processor's caches at every file.  Reading
  a chunk of files first, judging the texts the detector will be asked about all together,
  then judging the files (the detector answers them from its memory of verdicts,
  :mod:`.rules.injection_memo`) did the same work in about 0.8 of the CPU time on 2,000
  distinct files (docs/performance.md has the figures).
* **The answers cannot change.**  The detector is a pure function of the text, and a verdict
  remembered is the verdict it would give again.  The texts gathered here are a guess of what
  the detector will be asked (:func:`injection_texts`): a text it is asked that was not
  guessed is judged then, as before; a text guessed wrongly costs one judgement, never a
  different report.  A text the memory would not keep (too long, or memory turned off) is
  not judged ahead: it would be judged twice.  An exception here is swallowed: the same
  text raises again when the rule asks, where the rule engine reports it.
* **Chunks.**  At most :data:`CHUNK_FILES` files, and the texts gathered at most a quarter of
  what the memory keeps (so that none is forgotten before its file asks: the memory drops
  the oldest first).  One file at the prompt never comes here.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from subagents.harnesses.loader import LoadResult

__all__ = ["CHUNK_FILES", "injection_texts", "judge_ahead", "room"]

#: files read before their texts are judged together (measured on 2,000 distinct files:
#: 8 gave 0.93 of the CPU time of judging file by file, 32 0.85, 64 to 2,000 0.83 to 0.89;
#: the texts gathered stop a chunk first: a quarter of the memory is about 200 such files)
CHUNK_FILES = 256


def room() -> int:
    """Characters of text one chunk may gather (a quarter of what the memory keeps; 0: the
    detector remembers nothing, and nothing is judged ahead)."""
    from subagents.lint.rules import injection
    from subagents.lint.rules.injection_memo import CHARS

    return CHARS // 4 if injection.PREFILTER and injection.REMEMBER else 0


def injection_texts(result: LoadResult) -> list[str]:
    """The texts the injection rule will likely ask about for the definitions judged from
    ``result``: the prompt and description Claude Code reads when it loads the file, else
    those of the file's own reading (a guess: see the module's notes)."""
    view = result.claude_code
    if view is not None and view.loaded:
        return [t for t in (view.body, view.description) if t]
    out: list[str] = []
    for defn in result.definitions:
        for text in (defn.system_prompt, defn.description, defn.initial_prompt):
            if text:
                out.append(text)
    return out


def judge_ahead(texts: Iterable[str]) -> None:
    """Judge ``texts`` now, so that the injection rule finds each verdict remembered: the
    detector's first steps a step at a time over all of them (:mod:`.rules.injection_ahead`),
    then the rest text by text."""
    from subagents.lint.rules import injection
    from subagents.lint.rules.injection_ahead import stage, unstage
    from subagents.lint.rules.injection_memo import CHARS

    if not (injection.PREFILTER and injection.REMEMBER):
        return
    longest = CHARS // 8  # (the memory keeps no longer text)
    remembered = injection.remembered
    todo = [text for text in dict.fromkeys(texts)
            if len(text) <= longest and not remembered(text)]
    assess = injection.assess_injection
    try:
        with contextlib.suppress(Exception):  # (then each text is judged from the start)
            stage(todo)
        for text in todo:
            try:
                assess(text)
            except Exception:  # (the rule asks again; the engine reports what it raises)
                continue
    finally:
        unstage()
