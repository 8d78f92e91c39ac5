"""Convert agent definitions between dialects, and say exactly what did not survive.

``convert_definitions(defs, target)`` writes each :class:`AgentDefinition` in the target
dialect (Claude Markdown, Codex Markdown, ``agents.json``, Agent SDK wire JSON) and returns the
output files plus diagnostics.

Design notes
------------
* **No silent loss.**  Instead of a hand-kept table of "what each target supports", every
  output is *read back* with the real reader for its dialect and compared with the source,
  field by field (the system prompt with outer whitespace stripped, since every harness strips
  it).  Each field that was dropped or changed becomes a ``CV001``/``CV002`` warning naming the
  field, its source line and the target — so the report is true even when a writer or reader
  changes later.  The caller decides whether a warning is fatal (``convert --strict``).
* **Names.**  Codex requires ``[a-z][a-z0-9_-]{2,63}``: a name outside it is an
  error (``CV003``) and that agent is not written — the hint suggests a valid spelling, but we
  never rename silently.  Claude Code skips names containing ``:`` or starting with ``-``
  (REFERENCE.md): a warning.  A name that cannot be a file name (``/``, ``..``, empty) is an
  error for the Markdown targets.  Two inputs with one name: the first wins, the second is an
  error (``CV004``).
* **One reading.**  :func:`read_for_conversion` reads every input as every other command does:
  a Claude file as Claude Code reads it (the definition the registry runs, so ``convert`` and
  ``list`` see the same prompt; a file Claude Code loads is converted even where strict YAML
  parsers refuse it, with ``validate``'s findings as the report), another harness's file by
  that harness's reader.  When one Claude agents folder defines a name twice, the file Claude
  Code keeps (the last path in its order) is the one converted.
* The SDK form comes from :func:`subagents.formats.sdkwire.to_sdk_dict` (imported lazily); it is
  read back as JSON, which accepts the SDK's camelCase spelling.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from subagents.definition import FIELD_ALIASES, AgentDefinition, Dialect
from subagents.diagnostics import Diagnostic, Severity
from subagents.formats.writers import (
    to_claude_markdown,
    to_codex_markdown,
    to_json_entry,
    to_json_text,
)
from subagents.harnesses.loader import parse_agent_text
from subagents.harnesses.table import HARNESS_NAMES, get_spec, same_name_rule
from subagents.lint.rules.catalog import rule
from subagents.names import CODEX_NAME, file_stem

__all__ = [
    "HARNESS_TARGETS",
    "ConversionResult",
    "OutputFile",
    "Target",
    "conversion_inputs",
    "convert_definitions",
    "diagnostic_for",
    "field_losses",
    "read_for_conversion",
    "same_name_order",
]


class Target(StrEnum):
    CLAUDE = "claude"
    CODEX = "codex"  # the official Codex CLI's TOML
    CODEX_MD = "codex-md"  # the Markdown form in .codex/agents/*.md
    GEMINI = "gemini"
    OPENCODE = "opencode"
    COPILOT = "copilot"
    CURSOR = "cursor"
    QWEN = "qwen"
    FACTORY = "factory"
    JSON = "json"
    SDK = "sdk"


# targets written by a harness module (subagents.harnesses), read back by the same module
HARNESS_TARGETS = frozenset({Target.CODEX, Target.GEMINI, Target.OPENCODE, Target.COPILOT,
                             Target.CURSOR, Target.QWEN, Target.FACTORY})


@dataclass(frozen=True, slots=True)
class OutputFile:
    filename: str  # relative to the output folder
    text: str
    names: tuple[str, ...]  # the agents it holds


@dataclass(frozen=True, slots=True)
class ConversionResult:
    outputs: tuple[OutputFile, ...]
    diagnostics: tuple[Diagnostic, ...]
    converted: tuple[str, ...]  # names written
    failed: tuple[str, ...]  # names not written (errors)

    @property
    def has_errors(self) -> bool:
        return any(d.severity is Severity.ERROR for d in self.diagnostics)

    @property
    def has_losses(self) -> bool:
        return any(d.rule in ("CV001", "CV002") for d in self.diagnostics)


_PROVENANCE = frozenset({"dialect", "source", "path", "plugin", "locations", "body_line"})
_COMPARED = tuple(
    f.name
    for f in dataclasses.fields(AgentDefinition)
    if f.name not in _PROVENANCE and f.name not in ("name", "extra")
)
# attribute -> the spelling users write (camelCase where the files use it)
_SPELLING: dict[str, str] = {}
for _key, _attr in FIELD_ALIASES.items():
    if _attr not in _SPELLING or (_key != _attr and "_" not in _key):
        _SPELLING[_attr] = _key
_SPELLING["system_prompt"] = "system prompt (body)"


def _where(defn: AgentDefinition) -> str:
    return str(defn.path) if defn.path is not None else f"<{defn.name or 'agent'}>"


def _diag(
    defn: AgentDefinition,
    code: str,
    variant: str = "",
    *,
    attr: str | None = None,
    hint: str | None = None,
    **params: Any,
) -> Diagnostic:
    """A finding of the convert rule ``code``; its wording and severity are the registry's
    (:mod:`subagents.lint.rules.catalog`)."""
    loc = defn.location_of(attr) if attr else defn.location_of("name")
    return rule(code).templated(variant, _where(defn), loc.line if loc else None,
                                loc.column if loc else None, hint, **params)


def diagnostic_for(
    defn: AgentDefinition, code: str, variant: str = "", *, attr: str | None = None,
    hint: str | None = None, **params: Any,
) -> Diagnostic:
    """A conversion finding pointing at ``attr``'s line in the source file (the wording and
    severity are the registry's template ``variant`` of ``code``)."""
    return _diag(defn, code, variant, attr=attr, hint=hint, **params)


def _is_empty(value: Any) -> bool:
    return value is None or value in ("", (), {}, [])


def field_losses(
    source: AgentDefinition, back: AgentDefinition | None, target: str
) -> list[Diagnostic]:
    """What ``back`` (the output read again) lost or changed compared with ``source``."""
    out: list[Diagnostic] = []
    if back is None:
        return [
            _diag(source, "CV002", "unreadable", target=target)
        ]
    for attr in _COMPARED:
        before, after = getattr(source, attr), getattr(back, attr)
        if attr in ("system_prompt", "description"):  # every harness trims both
            before, after = before.strip(), after.strip()
        if before == after or (_is_empty(before) and _is_empty(after)):
            continue
        name = _SPELLING.get(attr, attr)
        if _is_empty(after):
            out.append(
                _diag(
                    source,
                    "CV001",
                    field=name,
                    target=target,
                    attr=attr,
                    hint=_DROP_HINTS.get(attr),
                )
            )
        else:
            out.append(
                _diag(
                    source,
                    "CV002",
                    field=name,
                    target=target,
                    before=_short(before),
                    after=_short(after),
                    attr=attr,
                )
            )
    for key, value in source.extra.items():
        if key not in back.extra:
            out.append(
                _diag(
                    source,
                    "CV001",
                    "unknown-key",
                    field=key,
                    target=target,
                    attr=key,
                )
            )
        elif back.extra[key] != value:
            out.append(
                _diag(
                    source,
                    "CV002",
                    "unknown-key",
                    field=key,
                    target=target,
                    before=_short(value),
                    after=_short(back.extra[key]),
                    attr=key,
                )
            )
    return out


_DROP_HINTS = {
    "hooks": "configure the hooks in the harness's settings instead, or keep a Claude copy",
    "color": "cosmetic only; nothing to do",
}


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."




def _name_problems(defn: AgentDefinition, target: Target) -> list[Diagnostic]:
    name = defn.name
    out: list[Diagnostic] = []
    if target is Target.CODEX_MD and not CODEX_NAME.matches(name):
        suggestion = CODEX_NAME.suggest(name)
        hint = f"Codex names match {CODEX_NAME.pattern}"
        if suggestion is not None:
            hint += f"; rename it, e.g. `name: {suggestion}`"
        out.append(
            _diag(
                defn,
                "CV003",
                "codex",
                name=name,
                attr="name",
                hint=hint,
            )
        )
    elif target is Target.CLAUDE and (":" in name or name.startswith("-") or "---" in name):
        out.append(
            _diag(
                defn,
                "CV003",
                "claude-code",
                name=name,
                attr="name",
                hint="use lowercase letters, digits and hyphens",
            )
        )
    already = any(p.severity is Severity.ERROR for p in out)
    if target in (Target.CLAUDE, Target.CODEX_MD) and not already and not file_stem(name):
        out.append(
            _diag(
                defn,
                "CV003",
                "file-name",
                name=name,
                attr="name",
                hint="use lowercase letters, digits and hyphens",
            )
        )
    return out


def _sdk_dict(defn: AgentDefinition) -> dict[str, Any]:
    from subagents.formats.sdkwire import to_sdk_dict

    return to_sdk_dict(defn)


def convert_definitions(defs: Iterable[AgentDefinition], target: Target | str) -> ConversionResult:
    """Convert definitions to ``target``; outputs plus what each lost (never raises for data)."""
    target = Target(target)
    if target in HARNESS_TARGETS:
        from subagents.repair.harness_convert import convert_to_harness

        return convert_to_harness(defs, target.value)
    diagnostics: list[Diagnostic] = []
    outputs: list[OutputFile] = []
    converted: list[str] = []
    failed: list[str] = []
    seen: dict[str, AgentDefinition] = {}
    stems: dict[str, AgentDefinition] = {}
    entries: dict[str, dict[str, Any]] = {}
    for defn in defs:
        if defn.name in seen:
            diagnostics.append(
                _diag(
                    defn,
                    "CV004",
                    name=defn.name,
                    first=_where(seen[defn.name]),
                    attr="name",
                    hint="rename one of them",
                )
            )
            failed.append(defn.name)
            continue
        problems = _name_problems(defn, target)
        diagnostics.extend(problems)
        if any(p.severity is Severity.ERROR for p in problems):
            failed.append(defn.name)
            continue
        if target in (Target.CLAUDE, Target.CODEX_MD):
            stem = file_stem(defn.name)
            if stem in stems:
                diagnostics.append(_diag(defn, "CV004", "same-file", attr="name",
                                         hint="rename one of them", filename=f"{stem}.md",
                                         first=_where(stems[stem])))
                failed.append(defn.name)
                continue
            stems[stem] = defn
        seen[defn.name] = defn
        back: AgentDefinition | None
        if target in (Target.CLAUDE, Target.CODEX_MD):
            text = to_claude_markdown(defn) if target is Target.CLAUDE else to_codex_markdown(defn)
            dialect = Dialect.CLAUDE if target is Target.CLAUDE else Dialect.CODEX_MD
            back = parse_agent_text(text, dialect=dialect).definition
            outputs.append(OutputFile(f"{file_stem(defn.name)}.md", text, (defn.name,)))
        else:
            entry = to_json_entry(defn) if target is Target.JSON else _sdk_dict(defn)
            entries[defn.name] = entry
            reread = parse_agent_text(json.dumps({defn.name: entry}), dialect=Dialect.JSON)
            back = reread.definition
        diagnostics.extend(field_losses(defn, back, target.value))
        converted.append(defn.name)
    if target in (Target.JSON, Target.SDK) and entries:
        filename = "agents.json" if target is Target.JSON else "agents.sdk.json"
        outputs.append(OutputFile(filename, to_json_text(entries), tuple(entries)))
    return ConversionResult(tuple(outputs), tuple(diagnostics), tuple(converted), tuple(failed))


def conversion_inputs(paths: Iterable[Path]) -> list[tuple[Path, bool]]:
    """``(path, named explicitly)`` for the paths given to ``convert``: a folder is walked
    exactly as ``validate`` walks it (README.md, SKILL.md, skills/ and JSON files other than
    agents.json / *.agents.json are not agent files)."""
    from subagents.lint.validate import iter_agent_files

    out: list[tuple[Path, bool]] = []
    for target in paths:
        if not target.is_dir():
            out.append((target, True))
            continue
        out.extend((path, False) for path, _shown, _link in iter_agent_files(target, str(target)))
    return out


def read_for_conversion(
    inputs: Iterable[tuple[Path, bool]], dialect: Dialect | None, *,
    display: Callable[[Path], str] = str,
    claude_code: Callable[[Path], str | None] | None = None,
) -> tuple[list[AgentDefinition], list[Diagnostic], int]:
    """``(definitions, diagnostics, failures)`` for ``(path, named explicitly)`` inputs.

    A file found in a folder that is not an agent file (a README with no frontmatter) is passed
    over; a named one is always an agent file.  ``claude_code`` chooses the Claude Code version
    whose reading applies to a file (the configuration nearest it; default: the newest)."""
    from subagents.harnesses.loader import read_agent_file

    defs: list[AgentDefinition] = []
    diagnostics: list[Diagnostic] = []
    failures = 0
    for path, explicit in inputs:
        shown = display(path)
        version = claude_code(path) if claude_code is not None else None
        result = read_agent_file(path, dialect=dialect, display_path=shown, claude_code=version)
        if result.claude_code is not None:
            found, problems = _as_claude_code_reads(result, path, shown, explicit)
        elif result.dialect not in (Dialect.CLAUDE, Dialect.CODEX_MD, Dialect.JSON):
            found, problems = _as_the_harness_reads(result, shown, explicit)
        else:
            found, problems = _as_the_reader_reads(result, path, explicit)
        defs.extend(found)
        diagnostics.extend(problems)
        failures += bool(problems and not found and any(
            d.severity is Severity.ERROR for d in problems))
    defs, clashes = _clashes(defs, display)
    return same_name_order(defs), [*diagnostics, *clashes], failures + len(clashes)


def _folder_rule(defn: AgentDefinition) -> tuple[str, str] | None:
    """(agents folder, same-name rule) of a definition read from a harness's folder: the
    folder up to and including the table's agents folder it is in, and what the harness
    does with one name in two files there (``last``, ``neither``; None for ``first``, which
    needs nothing done here: the first is converted, the other reported)."""
    rule_ = same_name_rule(defn.dialect.value)
    if rule_ == "first" or defn.path is None or defn.dialect.value not in HARNESS_NAMES:
        return None
    text = defn.path.absolute().as_posix()
    spec = get_spec(defn.dialect.value)
    for folder in (*spec.project_folders, *spec.user_folders):
        cut = text.find(f"/{folder}/")
        if cut >= 0:
            return text[: cut + len(folder) + 2], rule_
    return str(defn.path.parent), rule_


def _clashes(
    defs: list[AgentDefinition], display: Callable[[Path], str],
) -> tuple[list[AgentDefinition], list[Diagnostic]]:
    """A harness whose rule is ``neither`` (codex-md): one name twice in one folder is a clash
    that loads neither (the registry's and validate's rule, SA601), so neither is converted."""
    groups: dict[tuple[str, str], list[AgentDefinition]] = {}
    for defn in defs:
        found = _folder_rule(defn)
        if found is not None and found[1] == "neither":
            groups.setdefault((found[0], defn.name), []).append(defn)
    dropped = {id(d) for group in groups.values() if len(group) > 1 for d in group}
    if not dropped:
        return defs, []
    problems = []
    for group in groups.values():
        if len(group) < 2:
            continue
        for defn in group:
            assert defn.path is not None
            others = ", ".join(display(o.path) for o in group if o is not defn and o.path)
            problems.append(rule("SA601").templated(
                "clash", display(defn.path), None, None,
                "rename one agent (the `name` field, not the file name) or delete one file",
                name=defn.name, others=others))
    return [d for d in defs if id(d) not in dropped], problems


def _not_converted(result_path: str, hint: str, **params: str) -> Diagnostic:
    kind = "harness" if params else ""
    return rule("CV005").templated(kind, result_path, None, None, hint, **params)


def _as_claude_code_reads(
    result: Any, path: Path, shown: str, explicit: bool,
) -> tuple[list[AgentDefinition], list[Diagnostic]]:
    from subagents.claude_code.reader import SkipKind

    view = result.claude_code
    if view.loaded:
        (defn,) = result.loaded  # the definition Claude Code runs, as the registry does
        if not result.has_errors:
            return [defn], []
        # strict parsers refuse it, Claude Code loads it: converted, with validate's words
        from subagents.lint.validate import validate_paths

        report = validate_paths([path], dialect=Dialect.CLAUDE)
        return [defn], [dataclasses.replace(d, path=shown) for d in report.diagnostics
                        if d.severity is not Severity.INFO]
    if not explicit and view.skip is not None and view.skip.kind is SkipKind.NO_FRONTMATTER:
        return [], []  # not an agent file (a README in the folder)
    from subagents.lint.rules.claude_code import skip_diagnostic

    text = result.document.text if result.document is not None else None
    hint = ("run `subagents fix` on it first" if result.recovered
            else "run `subagents validate` on it for details")
    return [], [skip_diagnostic(view, shown, text), _not_converted(shown, hint)]


def _as_the_harness_reads(
    result: Any, shown: str, explicit: bool,
) -> tuple[list[AgentDefinition], list[Diagnostic]]:
    """The agents the harness loads from one file; a file it would not load is not converted,
    with the harness's own reason."""
    loaded = list(result.definitions)
    if loaded or (not explicit and not result.harness_agents):
        return loaded, []
    if not result.harness_agents:  # not read at all (too large, not a regular file)
        return [], [*result.diagnostics, _not_converted(
            shown, "run `subagents validate` on it for details")]
    errors = [d for d in result.diagnostics if d.severity is Severity.ERROR]
    return [], [*errors, _not_converted(shown, "run `subagents validate` on it for details",
                                        dialect=str(result.dialect))]


def _as_the_reader_reads(
    result: Any, path: Path, explicit: bool,
) -> tuple[list[AgentDefinition], list[Diagnostic]]:
    """codex-md and agents.json (the strict reader is the format's reader), and a file that
    could not be read at all (not a regular file, too large)."""
    codes = {d.rule for d in result.diagnostics}
    if not explicit and not result.definitions and codes <= {"SA003", "SA012"}:
        return [], []  # not an agent file (a README)
    errors = [d for d in result.diagnostics if d.severity is Severity.ERROR]
    if errors or not result.definitions:
        hint = ("run `subagents fix` on it first" if result.recovered
                else "run `subagents validate` on it for details")
        return [], [*(errors or result.diagnostics), _not_converted(result.path, hint)]
    return [d.evolve(path=Path(result.path)) for d in result.definitions], []


def same_name_order(defs: list[AgentDefinition]) -> list[AgentDefinition]:
    """Definitions reordered so that of two with one name in one agents folder of a harness
    whose rule is ``last`` (Claude Code), the one it keeps (the last path in its order) comes
    first: ``convert_definitions`` writes the first and reports the other (CV004)."""
    from subagents.claude_code.scan import code_unit_key

    def folder(defn: AgentDefinition) -> str | None:
        found = _folder_rule(defn)
        return found[0] if found is not None and found[1] == "last" else None

    winners: dict[tuple[str, str], AgentDefinition] = {}
    for defn in defs:
        key = folder(defn)
        if key is None:
            continue
        best = winners.get((key, defn.name))
        assert defn.path is not None
        if best is None or code_unit_key(str(defn.path.absolute())) > code_unit_key(
                str(best.path.absolute() if best.path else "")):
            winners[(key, defn.name)] = defn
    if not winners:
        return defs
    out: list[AgentDefinition] = []
    placed: set[tuple[str, str]] = set()
    for defn in defs:
        key = folder(defn)
        if key is None or (key, defn.name) not in winners:
            out.append(defn)
            continue
        group = (key, defn.name)
        if group not in placed:
            placed.add(group)
            out.append(winners[group])
        if defn is not winners[group]:
            out.append(defn)
    return out
