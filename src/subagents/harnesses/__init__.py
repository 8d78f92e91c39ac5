"""Every coding-agent harness's own subagent format: where it looks, how it reads, how to write.

The facts every module shares (folders, version, code prefix, file names, the files a harness
reads hooks, MCP servers and settings from) are one table, :mod:`subagents.harnesses.table`.
One module per harness implements :class:`subagents.harnesses.base.Harness` (see that module
for the design); :mod:`subagents.harnesses.crosswalk` translates tool names between them.
:func:`get_harness` finds one by its dialect name, importing only that module.

==========  =====================================  ==========================================
dialect     harness                                files
==========  =====================================  ==========================================
claude      Claude Code                            ``.claude/agents/**/*.md``
codex       OpenAI Codex CLI                       ``.codex/agents/**/*.toml``, ``config.toml``
codex-md    Codex Markdown agents                  ``.codex/agents/**/*.md``
gemini      Gemini CLI                             ``.gemini/agents/*.md``
opencode    OpenCode                               ``.opencode/agent(s)/**/*.md``, opencode.json
copilot     GitHub Copilot                         ``.github/agents/**/*.agent.md``
cursor      Cursor                                 ``.cursor/agents/*.md``
qwen        Qwen Code                              ``.qwen/agents/*.md``
factory     Factory Droid                          ``.factory/droids/*.md``
==========  =====================================  ==========================================

``json`` (``agents.json``) and ``sdk`` (the Agent SDK's wire form) are formats, not harnesses
with folders of their own; :mod:`subagents.repair.convert` handles them.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path

from subagents.errors import UsageError
from subagents.harnesses.table import HARNESS_NAMES, SPECS, get_spec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from subagents.harnesses.base import Harness, HarnessAgent

__all__ = ["HARNESS_NAMES", "agent_files", "get_harness", "load_project"]

# dialect name -> (module, attribute), from the one harness table; the order is the order of
# listings and `sync`
_HARNESSES: dict[str, tuple[str, str]] = {spec.name: (spec.module, spec.attribute)
                                          for spec in SPECS}


def get_harness(name: str) -> Harness:
    """The harness of a dialect name (``gemini``, ``codex``, ...); a clear error otherwise."""
    key = name.strip().lower()
    if key not in _HARNESSES:
        import difflib

        close = difflib.get_close_matches(key, HARNESS_NAMES, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise UsageError(f"unknown dialect {name!r}",
                         hint=f"{hint}known dialects: {', '.join(HARNESS_NAMES)}")
    module, attribute = _HARNESSES[key]
    harness: Harness = getattr(importlib.import_module(module), attribute)
    return harness


def agent_files(harness: Harness, project: Path, home: Path) -> list[Path]:
    """Every file in ``harness``'s agent folders (and its agent-defining files such as
    ``opencode.json``) for ``project`` and ``home``, also those the harness would not read now
    (an untrusted Codex project): the files to check (``validate --dialect X`` with no PATH)."""
    found: list[Path] = []
    for loc in harness.locations(project, home):
        if loc.path.is_file():
            found.append(loc.path)
        elif loc.path.is_dir():
            walk = loc.path.rglob("*") if loc.recursive else loc.path.glob("*")
            found += sorted((p for p in walk if p.is_file() and p.name.endswith(loc.suffixes)),
                            key=str)
    return list(dict.fromkeys(found))


def load_project(harness: Harness, project: Path, home: Path) -> list[HarnessAgent]:
    """Every agent file ``harness`` reads for ``project`` and ``home``, with what it does.

    A harness that models its whole loading (layers, trust, acknowledgements, built-ins)
    offers ``load_all``; for the others each discovered file is read in the harness's order
    and the first file to load an id wins it (later ones are reported as skipped).
    """
    load_all = getattr(harness, "load_all", None)
    if callable(load_all):
        loaded: Sequence[HarnessAgent] = load_all(project, home)
        return list(loaded)
    from subagents.fs import read_regular
    from subagents.harnesses.base import Effect, Finding, HarnessAgent, Outcome

    agents: list[HarnessAgent] = []
    taken: dict[str, Path | None] = {}
    spec = get_spec(harness.name)  # its codes: the ones `validate` gives the same findings
    for path in harness.discover(project, home):
        try:
            data = read_regular(path, 1 << 20)
        except OSError as exc:
            agents.append(HarnessAgent(harness.name, path, Outcome.SKIPPED, None, findings=(
                Finding(spec.unreadable_code, f"cannot read the file: {exc}",
                        Effect.SKIP),)))
            continue
        text = data.decode("utf-8", errors="replace")
        for read in harness.read_text(text, path):
            agent, agent_id = read, read.agent_id
            if agent.outcome.value == "loads" and agent_id is not None:
                if agent_id in taken:
                    agent = HarnessAgent(
                        read.harness, read.path, Outcome.SKIPPED, None, read.description,
                        findings=(*read.findings, Finding(
                            spec.duplicate_code,
                            f"{harness.display_name} uses {taken[agent_id]} "
                            f"for {agent_id!r}; this file is not used", Effect.SKIP)),
                        definition=read.definition)
                else:
                    taken[agent_id] = path
            agents.append(agent)
    return agents
