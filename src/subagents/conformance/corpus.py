"""Record whether Claude Code loads each file of a corpus of real agent files.

The corpus is other people's work, so only a fingerprint is kept: the name, the description's
length and SHA-1, the model as reported and the listed tools — never the text.

Files go into ``.claude/agents`` in batches (default 25) under unique names
(``NNNN-<file name>``), so each listed agent maps back to one file by its ``name:``.  A file
that did not load in its batch, or whose agent could not be named, is run again alone; alone,
the one non-built-in agent (if any) is its agent.

Design decision: the corpus root is never copied into the project; paths in the data file are
relative to the corpus root.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from subagents.conformance.extract import extract, is_builtin
from subagents.conformance.harness import run_project
from subagents.conformance.model import BuiltinAgent, CorpusEntry, CorpusRecording, LoadedAgent
from subagents.conformance.record import name_guess, record_builtins

__all__ = ["corpus_files", "record_corpus"]


def corpus_files(root: Path) -> list[Path]:
    """Every ``*.md`` file under ``root`` except README.md at the top."""
    return sorted(p for p in root.rglob("*.md")
                  if p.is_file() and p.relative_to(root).as_posix() != "README.md")


def _fingerprint(path: str, agent: LoadedAgent, how: str, debug: tuple[str, ...]
                 ) -> CorpusEntry:
    data = agent.description.encode("utf-8")
    return CorpusEntry(path, True, agent.name, len(agent.description),
                       hashlib.sha1(data).hexdigest(), agent.model, agent.tools, how, debug)


def _run(claude: Path, files: Mapping[str, bytes], builtins: Mapping[str, BuiltinAgent],
         netns: bool) -> tuple[list[LoadedAgent], tuple[str, ...], tuple[str, ...]]:
    def write(project: Path, home: Path) -> None:
        agents = project / ".claude" / "agents"
        agents.mkdir(parents=True)
        for name, data in files.items():
            (agents / name).write_bytes(data)

    facts = extract(run_project(claude, write, netns=netns))
    agents = [a for a in facts.agents if not is_builtin(a, builtins)]
    return agents, facts.debug, facts.errors


def _file_debug(debug: Sequence[str], batch_name: str) -> tuple[str, ...]:
    needle = f"project/{batch_name}"
    return tuple(line.replace(needle, "FILE") for line in debug if needle in line)


def record_corpus(
    claude: Path,
    root: Path,
    *,
    version: str,
    batch_size: int = 25,
    jobs: int = 1,
    netns: bool = True,
    progress: Callable[[str], None] | None = None,
) -> CorpusRecording:
    """Run every corpus file through Claude Code (see module docstring)."""
    builtin_list, _model, _seen = record_builtins(claude, netns=netns)
    builtins = {b.name: b for b in builtin_list}
    paths = corpus_files(root)
    named = [(f"{i:04d}-{p.name}", p.relative_to(root).as_posix(), p.read_bytes())
             for i, p in enumerate(paths)]
    batches = [named[i:i + batch_size] for i in range(0, len(named), batch_size)]
    entries: dict[str, CorpusEntry] = {}

    def batch(items: list[tuple[str, str, bytes]]) -> list[tuple[str, str, bytes]]:
        agents, debug, errors = _run(claude, {n: d for n, _, d in items}, builtins, netns)
        by_name: dict[str, list[LoadedAgent]] = {}
        for agent in agents:
            by_name.setdefault(agent.name, []).append(agent)
        guesses = [name_guess(d) for _, _, d in items]
        again = []
        for (batch_name, rel, _data), guess in zip(items, guesses, strict=True):
            hits = by_name.get(guess or "", [])
            unique = guesses.count(guess) == 1
            if not errors and len(hits) == 1 and unique:
                entries[rel] = _fingerprint(rel, hits[0], "batch", _file_debug(debug, batch_name))
            else:
                again.append((batch_name, rel, _data))
        if progress is not None:
            progress(f"batch of {len(items)}: {len(agents)} agent(s), {len(again)} to run alone")
        return again

    def alone(item: tuple[str, str, bytes]) -> None:
        batch_name, rel, data = item
        agents, debug, errors = _run(claude, {batch_name: data}, builtins, netns)
        file_debug = _file_debug(debug, batch_name) + tuple(f"run error: {e}" for e in errors)
        if len(agents) == 1:
            entries[rel] = _fingerprint(rel, agents[0], "alone", file_debug)
        else:
            entries[rel] = CorpusEntry(rel, False, decided_by="alone", debug=file_debug)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        rerun = [item for group in pool.map(batch, batches) for item in group]
        list(pool.map(alone, rerun))
    return CorpusRecording("claude-code", version, _dt.date.today().isoformat(), batch_size,
                           tuple(entries[rel] for _, rel, _ in named))
