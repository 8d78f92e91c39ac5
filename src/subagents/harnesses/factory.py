"""Factory Droid custom droids (``.factory/droids/*.md``) — from docs and binary strings only.

Nothing here was run.  Factory's documentation (docs.factory.ai/cli/configuration/
custom-droids) says: droids are ``.md`` files directly in ``<repo>/.factory/droids/`` or
``~/.factory/droids/`` (top level only), the CLI validates each definition, a project droid
overrides a personal one of the same name, and droids become ``subagent_type`` values of the
Task tool.  Fields: ``name``, ``description``, ``model`` (``inherit`` or a model id),
``reasoningEffort``, ``tools`` (a category such as ``read-only``, or a list of Factory tool
IDs: Read, LS, Grep, Glob, Create, Edit, ApplyPatch, Execute, WebSearch, FetchUrl, TodoWrite).
The ``droid@0.215.0`` binary holds the name pattern ``^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$``.

Design notes
------------
* Findings that state Factory behaviour say "Factory's documentation" (or the binary) and
  are warnings: how the CLI treats an invalid droid is not verified.  A droid without a valid
  slug ``name`` or without a description is reported ``SKIPPED`` (the docs say definitions are
  validated), with a warning-level finding that says so.
* Tool lists are translated with :mod:`subagents.harnesses.crosswalk` (``Create`` ->
  ``Write``, ``Execute`` -> ``Bash``, ``FetchUrl`` -> ``WebFetch``); IDs it cannot place stay as
  written.  A category string is kept in ``extra["x-factory"]["tools"]`` and the canonical
  ``tools`` stays None (every tool), since the categories' exact members are not documented.
* Writing slugifies the name, drops Claude model aliases, writes ``reasoningEffort`` from
  ``effort`` and Factory tool IDs for the Claude allowlist (names with no Factory ID dropped).
"""

from __future__ import annotations

import re
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
from subagents.harnesses.crosswalk import to_claude, to_native
from subagents.harnesses.folders import flat_locations, in_flat_folder, scan_flat
from subagents.harnesses.mdagent import dump_markdown, model_findings, read_markdown
from subagents.harnesses.table import TableHarness, get_spec
from subagents.names import slugify as slug_name

__all__ = ["HARNESS", "FactoryHarness", "slugify"]

DOCS = "Factory's documentation"
SPEC = get_spec("factory")
VERSION = str(SPEC.version)  # the binary whose strings were read; not run
SLUG = re.compile(r"^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$")
TOOL_IDS: tuple[str, ...] = ("Read", "LS", "Grep", "Glob", "Create", "Edit", "ApplyPatch",
                             "Execute", "WebSearch", "FetchUrl", "TodoWrite")
FIELDS: tuple[str, ...] = ("name", "description", "model", "reasoningEffort", "tools")


def slugify(name: str) -> str:
    """A name Factory's pattern accepts: lowercase letters, digits and inner hyphens."""
    return slug_name(name, fallback="droid", limit=128)


def _warn(code: str, message: str, *, line: int | None = None, key: str | None = None,
          hint: str | None = None, effect: Effect = Effect.PORTABILITY) -> Finding:
    return Finding(code, message, effect, line, key, hint)


class FactoryHarness(TableHarness, dialect="factory"):

    def locations(self, project: Path, home: Path) -> Sequence[Location]:
        return flat_locations(project, home, ".factory", "droids")

    def discover(self, project: Path, home: Path) -> Sequence[Path]:
        return scan_flat(self.locations(project, home))

    def claims(self, path: Path) -> bool:
        return in_flat_folder(path, ".factory", "droids")

    def read_text(self, text: str, path: Path | None = None) -> Sequence[HarnessAgent]:
        if path is not None and not self.claims(path):
            return [HarnessAgent("factory", path, Outcome.NOT_READ, None, findings=(Finding(
                "FD001", f"not read: {DOCS} says droids are `.md` files directly in "
                ".factory/droids/ (top-level files only; documented, not measured)",
                Effect.INFO),))]
        md = read_markdown(text)
        if md.fields is None:
            finding = _warn("FD002", f"the frontmatter cannot be read ({md.problem}); {DOCS} "
                            "says each droid is validated, so Factory Droid presumably skips "
                            "it", line=md.problem_line,
                            hint="start the file with `---`, `name: ...`, `description: ...`, "
                            "`---`")
            return [HarnessAgent("factory", path, Outcome.SKIPPED, None, findings=(finding,))]
        return [self._agent(md.fields, md.body, md.lines, path)]

    def _agent(self, fields: dict[str, Any], body: str, lines: dict[str, int],
               path: Path | None) -> HarnessAgent:
        findings: list[Finding] = []
        skip = False
        name = fields.get("name")
        if not isinstance(name, str) or not SLUG.match(name):
            skip = True
            shown = "missing" if name is None else f"`{name}`"
            findings.append(_warn(
                "FD003", f"`name` is {shown}: the Factory Droid 0.215.0 binary checks names "
                f"against `{SLUG.pattern}` and {DOCS} says droids are validated, so this "
                "droid is presumably skipped", line=lines.get("name"), key="name",
                hint=f"use `name: {slugify(str(name or (path.stem if path else 'droid')))}`"))
        description = fields.get("description")
        if not isinstance(description, str) or not description.strip():
            skip = True
            findings.append(_warn("FD004", f"no description: {DOCS} shows one in every droid; "
                                  "the Task tool lists droids by it", line=lines.get(
                                      "description"), key="description"))
            description = None
        model, model_notes = model_findings(
            fields.get("model"), lines.get("model"), codes=("FD005", "FD006"), who=DOCS,
            allowed="`inherit` or a full model id")
        findings.extend(model_notes)
        effort = fields.get("reasoningEffort")
        native_tools, claude_tools, category = self._tools(fields, lines, findings)
        for key in fields:
            if key not in FIELDS:
                findings.append(_warn("FD009", f"`{key}` is not a field {DOCS} lists; Factory "
                                      "Droid presumably ignores it (documented, not measured)",
                                      line=lines.get(key), key=key))
        native_model = None if not isinstance(model, str) or model.strip().lower() == \
            "inherit" else model.strip()
        extra: dict[str, Any] = {"tools": category} if category is not None else {}
        definition = AgentDefinition(
            name=name if isinstance(name, str) else "",
            description=description or "",
            system_prompt=body,
            model=native_model,
            tools=claude_tools,
            effort=str(effort) if isinstance(effort, str | int) else None,
            extra={"x-factory": extra} if extra else {},
            path=path,
        )
        outcome = Outcome.SKIPPED if skip else Outcome.LOADS
        return HarnessAgent("factory", path, outcome, name if not skip else None, description,
                            body, native_model, native_tools, dict(fields), tuple(findings),
                            definition if isinstance(name, str) else None)

    def _tools(self, fields: dict[str, Any], lines: dict[str, int], findings: list[Finding]
               ) -> tuple[tuple[str, ...] | None, tuple[str, ...] | None, str | None]:
        if "tools" not in fields:
            return None, None, None
        tools = fields["tools"]
        if isinstance(tools, str):
            return (tools,), None, tools
        if not isinstance(tools, list) or not all(isinstance(t, str) for t in tools):
            findings.append(_warn("FD007", f"`tools` should be a category or a list of tool "
                                  f"IDs ({DOCS})", line=lines.get("tools"), key="tools"))
            return None, None, None
        for tool in tools:
            if tool not in TOOL_IDS:
                why = ("subagents cannot use it" if tool in ("Task", "AskUser")
                       else "it is not one of the tool IDs it lists")
                findings.append(_warn("FD008", f"`{tool}`: {DOCS} says {why}",
                                      line=lines.get("tools"), key="tools"))
        return tuple(tools), to_claude("factory", tools).names, None

    def write(self, definition: AgentDefinition) -> WrittenFile:
        name = slugify(definition.name)
        # a blank description makes the droid unlisted: fall back to a name that says something
        description = definition.description if definition.description.strip() else (
            definition.name.strip() or name)
        front: dict[str, Any] = {"name": name, "description": description}
        model = definition.model.strip() if definition.model else None
        if model and model.lower() not in MODEL_ALIASES:
            front["model"] = model
        if definition.effort:
            front["reasoningEffort"] = definition.effort
        x_factory = definition.extra.get("x-factory")
        category = x_factory.get("tools") if isinstance(x_factory, dict) else None
        if definition.tools is not None and "*" not in definition.tools:
            front["tools"] = list(to_native("factory", definition.tools).names)
        elif isinstance(category, str):
            front["tools"] = category
        return WrittenFile(SPEC.relpath(name),
                           dump_markdown(front, definition.system_prompt))


HARNESS = FactoryHarness()
