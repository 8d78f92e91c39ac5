"""Judging a file meant for another harness (Codex, Gemini CLI, OpenCode, Copilot, ...).

The harness modules (:mod:`subagents.harnesses`) say what each harness does with a file, as
findings with an *effect*; this module turns them into diagnostics under the one severity rule
every dialect shares:

* **error**: the harness skips the agent, refuses to start because of the file, or silently
  does something other than what the file says (effects ``skip``, ``fatal``, ``differs``);
* **warning**: portability and style (the harness reads it as meant);
* **info**: information (a note such as "project agents need an acknowledgement").

``--strict`` turns the portability and style warnings into errors, as for Claude files.  Each
finding keeps its harness's own code (``GM004`` for Gemini, ``OC002`` for OpenCode, ...), so
``--select``/``--ignore`` and inline ``subagents: ignore`` comments work on them as on every
other rule.  The security rules, which judge what an agent may do rather than how a harness
reads it, run on every dialect's definitions.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from subagents.definition import AgentDefinition, Dialect
from subagents.diagnostics import Diagnostic, Severity
from subagents.harnesses.loader import harness_diagnostics, severity_of
from subagents.harnesses.table import OWN_READERS

TYPE_CHECKING = False
if TYPE_CHECKING:  # (the harness types are imported when a harness's file is read)
    from subagents.harnesses.base import HarnessAgent

__all__ = [
    "HARNESS_DIALECTS",
    "definitions_of",
    "diagnostics_for",
    "read_for_harness",
    "severity_of",
]

# dialects judged by a harness module rather than by the Claude/Markdown rules
HARNESS_DIALECTS: frozenset[Dialect] = frozenset(Dialect(name) for name in OWN_READERS)

def read_for_harness(
    path: Path, dialect: Dialect, *, max_bytes: int,
) -> tuple[list[HarnessAgent], str | None, Diagnostic | None]:
    """``(agents, text, problem)``: what the dialect's harness makes of the file at ``path``.

    ``problem`` is a diagnostic when the file cannot be read at all (too large, not a regular
    file, unreadable); the text is returned for inline ignores and source snippets."""
    from subagents.fs import NotRegular, TooLarge, read_regular
    from subagents.harnesses import get_harness

    try:
        data = read_regular(path, max_bytes)
    except TooLarge as exc:
        return [], None, Diagnostic(path=str(path), line=None, column=None, rule="SA002",
                                    severity=Severity.ERROR,
                                    message=f"the file is {exc.size:,} bytes, over the "
                                    f"{max_bytes:,}-byte limit")
    except (NotRegular, OSError) as exc:
        return [], None, Diagnostic(path=str(path), line=None, column=None, rule="SA011",
                                    severity=Severity.ERROR,
                                    message=f"cannot read the file: {exc}")
    text = data.decode("utf-8", errors="replace")
    return list(get_harness(dialect.value).read_text(text, path)), text, None


def diagnostics_for(
    agents: Iterable[HarnessAgent], display: str, dialect: Dialect, *, strict: bool = False,
) -> list[Diagnostic]:
    """Every finding of every agent in one file, as diagnostics with the shared severity."""
    from subagents.harnesses import get_harness

    return harness_diagnostics(agents, display, get_harness(dialect.value).display_name,
                               strict=strict)


def definitions_of(agents: Iterable[HarnessAgent], dialect: Dialect) -> list[AgentDefinition]:
    """The canonical definitions of the agents the harness loads (for scope and security
    rules), marked with the dialect they were read from."""
    from subagents.harnesses.base import Outcome

    return [a.definition.evolve(dialect=dialect) for a in agents
            if a.outcome is Outcome.LOADS and a.definition is not None]
