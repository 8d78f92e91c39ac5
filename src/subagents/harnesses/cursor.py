"""Cursor subagents (``.cursor/agents/*.md``): discovery, reader, writer — from the docs only.

Cursor is closed source and has no CLI on npm, so nothing here was measured.  What Cursor's
documentation (cursor.com/docs/subagents) and its staff on the forum say:

* project ``<root>/.cursor/agents/*.md`` (top level only) and user ``~/.cursor/agents/*.md``;
  the project copy wins a name clash;
* frontmatter ``name`` (optional, default: the file name), ``description`` (used for automatic
  delegation), ``model`` (``inherit`` — the default —, ``fast`` or a model id), ``readonly``
  (bool), ``is_background`` (bool); the body is the prompt;
* no tool list: a subagent inherits every tool of the parent; ``readonly: true`` is the only
  restriction.

Design notes
------------
* Every finding that states Cursor behaviour says it is documented, not measured, and keeps to
  warnings, except where the docs are explicit (a ``tools`` list is not applied: error).
* How Cursor treats a broken file is not documented.  Frontmatter that no YAML parser reads is
  reported ``SKIPPED`` with a warning; a file with no frontmatter at all loads under its file
  name, as the documented default says.
* Canonical form: ``model: inherit`` is None; ``readonly`` and ``is_background`` are kept in
  ``extra["x-cursor"]`` (``is_background`` also sets ``background``).
* Writing: ``readonly: true`` when the Claude allowlist has no tool that writes or runs
  (Write/Edit/MultiEdit/NotebookEdit/Bash) or the permission mode is ``plan``;
  ``is_background`` from ``background``; Claude model aliases are dropped (inherit).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from subagents.definition import MODEL_ALIASES, AgentDefinition
from subagents.harnesses.base import (
    Effect,
    Finding,
    HarnessAgent,
    Location,
    Outcome,
    WrittenFile,
)
from subagents.harnesses.folders import flat_locations, in_flat_folder, scan_flat
from subagents.harnesses.mdagent import dump_markdown, model_findings, read_markdown
from subagents.harnesses.table import TableHarness, get_spec

__all__ = ["HARNESS", "CursorHarness"]

DOCS = "Cursor's documentation"
SPEC = get_spec("cursor")
VERSION = str(SPEC.version)  # "docs": nothing was run, the behaviour is the documented one
FIELDS: tuple[str, ...] = ("name", "description", "model", "readonly", "is_background")
_WRITE_TOOLS = frozenset(("Write", "Edit", "MultiEdit", "NotebookEdit", "Bash", "*"))


def _warn(code: str, message: str, *, line: int | None = None, key: str | None = None,
          hint: str | None = None, effect: Effect = Effect.PORTABILITY) -> Finding:
    return Finding(code, message, effect, line, key, hint)


def read_only_tools(defn: AgentDefinition) -> bool:
    """True when the Claude allowlist leaves no tool that writes or runs anything."""
    if defn.tools is None:
        return False
    return not {t.split("(", 1)[0].strip() for t in defn.tools} & _WRITE_TOOLS


class CursorHarness(TableHarness, dialect="cursor"):

    def locations(self, project: Path, home: Path) -> Sequence[Location]:
        return flat_locations(project, home, ".cursor")

    def discover(self, project: Path, home: Path) -> Sequence[Path]:
        return scan_flat(self.locations(project, home))

    def claims(self, path: Path) -> bool:
        return in_flat_folder(path, ".cursor")

    def read_text(self, text: str, path: Path | None = None) -> Sequence[HarnessAgent]:
        if path is not None and not self.claims(path):
            why = (f"{DOCS} says project agents are found only directly in .cursor/agents/, "
                   "not in subfolders" if ".cursor" in path.parts and path.suffix == ".md"
                   else f"{DOCS} says Cursor reads `.md` files in .cursor/agents/")
            return [HarnessAgent("cursor", path, Outcome.NOT_READ, None, findings=(
                Finding("CU001", f"not read: {why} (documented, not measured)", Effect.INFO),))]
        md = read_markdown(text)
        stem = path.stem if path is not None else None
        if md.fields is None and not md.no_frontmatter:
            finding = _warn("CU002", f"the frontmatter cannot be read ({md.problem}); "
                            f"{DOCS} does not say what Cursor does with such a file, so it "
                            "is taken as skipped", line=md.problem_line,
                            hint="fix the YAML between the `---` lines")
            return [HarnessAgent("cursor", path, Outcome.SKIPPED, None, findings=(finding,))]
        fields: dict[str, Any] = md.fields or {}
        findings: list[Finding] = []
        if md.no_frontmatter:
            findings.append(_warn("CU003", f"no frontmatter: {DOCS} says the name defaults to "
                                  "the file name; with no description Cursor cannot pick "
                                  "this agent by itself", line=1,
                                  hint="start the file with `---`, `description: ...`, `---`"))
        return [self._agent(fields, md.body, md.lines, stem, path, findings)]

    def _agent(self, fields: dict[str, Any], body: str, lines: dict[str, int],
               stem: str | None, path: Path | None, findings: list[Finding]) -> HarnessAgent:
        name = fields.get("name")
        if name is not None and not isinstance(name, str | int | float):
            findings.append(_warn("CU004", f"`name` is not text; {DOCS} says the name defaults "
                                  "to the file name", line=lines.get("name"), key="name"))
            name = None
        agent_id = str(name).strip() if name is not None and str(name).strip() else stem
        description = fields.get("description")
        if not isinstance(description, str) or not description.strip():
            findings.append(_warn("CU005", f"no description: {DOCS} says Cursor delegates "
                                  "automatically by the description", key="description",
                                  line=lines.get("description")))
            description = None if not isinstance(description, str) else description
        model, model_notes = model_findings(
            fields.get("model"), lines.get("model"), codes=("CU006", "CU007"), who=DOCS,
            allowed="`inherit`, `fast` or a model id")
        findings.extend(model_notes)
        for flag in ("readonly", "is_background"):
            if flag in fields and not isinstance(fields[flag], bool):
                findings.append(_warn("CU008", f"`{flag}` should be true or false ({DOCS})",
                                      line=lines.get(flag), key=flag))
        for key in fields:
            if key in FIELDS:
                continue
            if key in ("tools", "disallowedTools"):
                findings.append(_warn(
                    "CU009", f"`{key}` is not applied: {DOCS} says a subagent inherits every "
                    "tool of the parent; only `readonly: true` restricts it",
                    line=lines.get(key), key=key, effect=Effect.DIFFERS,
                    hint="use `readonly: true` for an agent that must not write"))
            else:
                findings.append(_warn("CU010", f"`{key}` is not a field {DOCS} lists; Cursor "
                                      "presumably ignores it (documented, not measured)",
                                      line=lines.get(key), key=key))
        native_model = None if not isinstance(model, str) or model.strip().lower() == \
            "inherit" else model.strip()
        extra = {k: fields[k] for k in ("readonly", "is_background") if k in fields}
        background = fields.get("is_background")
        definition = AgentDefinition(
            name=agent_id or "",
            description=description or "",
            system_prompt=body,
            model=native_model,
            background=background if isinstance(background, bool) else None,
            extra={"x-cursor": extra} if extra else {},
            path=path,
        )
        return HarnessAgent("cursor", path, Outcome.LOADS, agent_id, description, body,
                            native_model, None, dict(fields), tuple(findings), definition)

    def write(self, definition: AgentDefinition) -> WrittenFile:
        name = definition.name.strip() or "agent"
        front: dict[str, Any] = {"name": name, "description": definition.description}
        model = definition.model.strip() if definition.model else None
        if model and model.lower() not in MODEL_ALIASES:
            front["model"] = model
        x_cursor = definition.extra.get("x-cursor")
        restored = x_cursor if isinstance(x_cursor, dict) else {}
        readonly = read_only_tools(definition) or definition.permission_mode == "plan"
        if readonly:
            front["readonly"] = True
        elif isinstance(restored.get("readonly"), bool):
            front["readonly"] = restored["readonly"]
        if definition.background is not None:
            front["is_background"] = definition.background
        elif isinstance(restored.get("is_background"), bool):
            front["is_background"] = restored["is_background"]
        notes = []
        if definition.tools is not None:
            notes.append(f"{DOCS} has no per-agent tool list: the tool settings were not "
                         "carried over" + (" (a read-only set became `readonly: true`)."
                                           if readonly else "."))
        return WrittenFile(SPEC.relpath(name),
                           dump_markdown(front, definition.system_prompt), tuple(notes))


HARNESS = CursorHarness()
