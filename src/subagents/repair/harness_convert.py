"""Conversion into a harness's own format (Codex TOML, Gemini, OpenCode, Copilot, ...).

:func:`convert_to_harness` is the harness half of :func:`subagents.repair.convert.
convert_definitions`: each definition goes through the target harness's writer
(:meth:`~subagents.harnesses.base.Harness.write`), and the output is read back with the same
harness's reader, the one that reproduces what the real CLI does.  The report is the
difference between the source and what the harness will run, field by field, so it cannot
drift from what the writer really does:

* ``CV001`` a field the target cannot carry (dropped), ``CV002`` a field it carries changed
  (a tool list narrowed by the crosswalk, a name made into a slug, a model alias dropped);
* ``CV002`` as an error when the written file would not load (a writer bug: never seen on the
  corpus, but checked on every file);
* ``CV004`` two agents that would be written to one file;
* ``CV007`` a note the user must act on that no file can say (Gemini's acknowledgement of
  project agents, Codex's trusted projects), as information.

Design decisions: the output file name is the base name of the harness's own path
(``reviewer.toml``, ``reviewer.agent.md``), so ``--out DIR`` is the harness's agents folder;
the harness's folder layout is what ``subagents sync`` writes.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from subagents.definition import AgentDefinition
from subagents.diagnostics import Diagnostic
from subagents.errors import DefinitionError
from subagents.harnesses import get_harness
from subagents.harnesses.base import Outcome, WrittenFile
from subagents.repair.convert import (
    ConversionResult,
    OutputFile,
    diagnostic_for,
    field_losses,
)

__all__ = ["convert_to_harness", "written_file"]


def written_file(defn: AgentDefinition, harness_name: str) -> WrittenFile:
    """What the harness's writer makes of one definition (its own path and text)."""
    return get_harness(harness_name).write(defn)


def convert_to_harness(defs: Iterable[AgentDefinition], harness_name: str) -> ConversionResult:
    """Write each definition for ``harness_name``; every loss and every note reported."""
    harness = get_harness(harness_name)
    label = f"{harness.display_name} {harness.version}".strip()
    diagnostics: list[Diagnostic] = []
    outputs: list[OutputFile] = []
    converted: list[str] = []
    failed: list[str] = []
    by_file: dict[str, AgentDefinition] = {}
    notes_seen: set[str] = set()
    for defn in defs:
        try:
            written = harness.write(defn)
        except DefinitionError as exc:  # the writer cannot make a file the harness loads
            diagnostics.append(diagnostic_for(
                defn, "CV002", "not-loaded", attr="name", hint=exc.hint,
                target=harness_name, label=label, why=exc.message))
            failed.append(defn.name)
            continue
        filename = PurePosixPath(written.relpath).name
        if filename in by_file:
            diagnostics.append(diagnostic_for(
                defn, "CV004", "same-file", attr="name", hint="rename one of them",
                filename=filename, first=by_file[filename].path or by_file[filename].name))
            failed.append(defn.name)
            continue
        by_file[filename] = defn
        back_agents = [a for a in harness.read_text(written.text, Path(written.relpath))
                       if a.definition is not None]
        back = back_agents[0] if back_agents else None
        if back is None or back.outcome is not Outcome.LOADS or back.definition is None:
            why = "; ".join(f.message for f in back.findings) if back else "nothing was read"
            diagnostics.append(diagnostic_for(
                defn, "CV002", "not-loaded", attr="name",
                hint="please report this: the writer should never do it",
                target=harness_name, label=label, why=why))
            failed.append(defn.name)
            continue
        if back.definition.name != defn.name:
            diagnostics.append(diagnostic_for(
                defn, "CV002", "renamed", attr="name", target=harness_name,
                before=defn.name, after=back.definition.name, label=label))
        diagnostics.extend(field_losses(defn, back.definition, harness_name))
        for note in written.notes:
            if note not in notes_seen:
                notes_seen.add(note)
                diagnostics.append(diagnostic_for(defn, "CV007", note=note))
        outputs.append(OutputFile(filename, written.text, (defn.name,)))
        converted.append(defn.name)
    return ConversionResult(tuple(outputs), tuple(diagnostics), tuple(converted), tuple(failed))
