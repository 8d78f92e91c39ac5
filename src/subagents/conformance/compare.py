"""Compare the project's reading with a recording of the real Claude Code, case by case.

The comparison goes through :class:`~subagents.registry.core.AgentRegistry` -- what ``list``,
``show``, ``run``, ``route`` and the Task tool see -- not through the emulation alone, so a case
agrees only when a user of ``subagents`` gets exactly what Claude Code gave: the same agents,
each with the same description, listing tools, model, source file, and, for the agents the
recorder spawned, the same model id and tools.

Deliberate differences are data (:data:`DELIBERATE`): each names the case and why we differ on
purpose; ``docs/conformance.md`` lists them. ``python -m subagents.conformance compare`` prints
the agreement table.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from subagents.claude_code.profile import get_profile
from subagents.claude_code.reader import listing_tools
from subagents.conformance.casekit import Case, fill
from subagents.conformance.model import CaseResult, Recording, SpawnResult

if TYPE_CHECKING:
    from subagents.registry.core import AgentEntry, AgentRegistry

__all__ = ["DELIBERATE", "CaseComparison", "compare_case", "compare_recording"]

# case id -> why subagents differs from Claude Code on purpose
_SEARCH_TOOLS = (
    "Claude Code (2.1.330 and 2.1.332) does not give a subagent Grep or Glob when it also has "
    "Bash (its "
    "build searches through the shell); subagents gives every tool the agent names"
)
DELIBERATE: dict[str, str] = {
    "tools-comma": _SEARCH_TOOLS,
    "tools-space-separated": _SEARCH_TOOLS,
    "tools-disallowed-bash-pattern": (
        "Claude Code 2.1.332 launches the agent without Bash when disallowedTools holds "
        "`Bash(rm:*)`; subagents keeps Bash and refuses only the commands the pattern matches, "
        "and validate reports the difference as an error (SA021). Loading and listing agree."),
}


@dataclass(frozen=True, slots=True)
class CaseComparison:
    id: str
    differences: tuple[str, ...]
    deliberate: str | None = None

    @property
    def agrees(self) -> bool:
        return not self.differences


def _relative(
    path: Path | None, project_agents: Path, user_agents: Path | None, project: Path
) -> str | None:
    """A file as the recording names it: ``project/REL``, ``user/REL`` or ``<project>/REL``."""
    if path is None:
        return None
    roots = (("project", project_agents), ("user", user_agents), ("<project>", project))
    for prefix, root in roots:
        if root is None:
            continue
        try:
            rel = path.relative_to(root)
        except ValueError:
            continue
        return f"{prefix}/{rel.as_posix()}"
    return str(path)


def _base_tool(entry: str) -> str:
    return entry.split("(", 1)[0]


def compare_case(
    case: Case, expected: CaseResult, recording: Recording, workdir: Path
) -> CaseComparison:
    """Materialise ``case`` under ``workdir`` and compare the registry with ``expected``."""
    from subagents.registry.core import AgentRegistry

    profile = get_profile(recording.version)
    project = workdir / "project"
    home = workdir / "home"
    (project / ".git").mkdir(parents=True, exist_ok=True)  # the project root, as recorded
    home.mkdir(parents=True, exist_ok=True)
    agents_dir, user_dir = case.materialise(project, home)
    cwd = project / case.cwd if case.cwd else project
    cwd.mkdir(parents=True, exist_ok=True)
    cli_text = fill(case.cli_agents, project, home) if case.cli_agents is not None else None
    registry = AgentRegistry(
        cwd, home=home, claude_code=recording.version, cli_agents=cli_text,
        plugin_dirs=[project / folder for folder in case.plugin_dirs],
    ).load_all()
    if expected.startup_error is not None:
        return CaseComparison(case.id, _refusal_differences(registry, expected.startup_error),
                              DELIBERATE.get(case.id))
    builtin = {b.name for b in recording.builtin_agents}
    got = {e.name: e for e in registry.list() if e.source.value != "builtin"}
    want = {a.name: a for a in expected.agents}
    diffs: list[str] = []
    for name in sorted(set(want) - set(got)):
        diffs.append(f"{name!r}: Claude Code loads it, subagents does not")
    for name in sorted(set(got) - set(want)):
        if name in builtin:
            continue
        diffs.append(f"{name!r}: subagents loads it, Claude Code does not")
    for name in sorted(set(want) & set(got)):
        a, e = want[name], got[name]
        header = e.header
        listing = listing_tools(header.tools, header.disallowed_tools)
        pairs: tuple[tuple[str, str | None, str | None], ...] = (
            ("description", a.description, e.description),
            ("tools", a.tools, listing),
            ("model", a.model, e.model),
            ("source", a.source, _relative(e.path, agents_dir, user_dir, project)),
        )
        for what, theirs, mine in pairs:
            if theirs != mine:
                diffs.append(f"{name!r}: {what} {theirs!r} (Claude Code) != {mine!r}")
    available = _available_tools(recording)
    for spawned in expected.spawned:
        entry = got.get(spawned.name)
        if entry is None:
            continue  # already reported above
        header = entry.header
        model = profile.resolve_model(header.model, recording.parent_model)
        if spawned.error is None and spawned.model != model:
            diffs.append(f"{spawned.name!r}: spawned on {spawned.model!r} != {model!r}")
        if header.tools is None or available is None:
            continue  # every tool: depends on the build's tool set, not on loading
        denied = set(header.disallowed_tools or ())
        ours = sorted(
            {_base_tool(t) for t in header.tools if _base_tool(t) in available} - denied
        )
        if spawned.error is not None:
            if ours or header.tools == ():
                diffs.append(
                    f"{spawned.name!r}: Claude Code refused to spawn it ({spawned.error[:60]}…) "
                    f"but subagents would give it {ours}"
                )
        elif sorted(t for t in spawned.tools if t not in _INTERNAL) != ours:
            diffs.append(f"{spawned.name!r}: spawned with {list(spawned.tools)} != {ours}")
    for spawned in expected.spawned:
        entry = got.get(spawned.name)
        if entry is None or spawned.error is not None:
            continue
        diffs.extend(_launch_differences(spawned, entry, cwd, home))
    return CaseComparison(case.id, tuple(diffs), DELIBERATE.get(case.id))


def _refusal_differences(registry: AgentRegistry, said: str) -> tuple[str, ...]:
    """Claude Code refused to start: subagents must refuse the ``--agents`` value as a whole
    (none of its agents listed) with an error that says nothing starts."""
    from subagents.definition import Scope

    diffs: list[str] = []
    listed = [e.name for e in registry.list() if e.source is Scope.CLI]
    if listed:
        diffs.append(f"Claude Code refuses to start ({said.splitlines()[-1][:80]}), "
                     f"but subagents lists --agents entries {listed}")
    if not any(d.path == "--agents" and d.severity.value == "error"
               and "refuses to start" in d.message for d in registry.diagnostics()):
        diffs.append("Claude Code refuses to start; subagents reports no error saying so")
    return tuple(diffs)


def _launch_differences(spawned: SpawnResult, entry: AgentEntry, cwd: Path,
                        home: Path) -> list[str]:
    """The MCP servers a launched agent gets and the effort its request carries."""
    from subagents.claude_code.launch import effort_sent, servers_started

    diffs: list[str] = []
    defn = entry.definition
    theirs = sorted({name.split("__")[1] for name in spawned.mcp if name.count("__") >= 2})
    ours = sorted(servers_started(defn, cwd=cwd, home=home))
    if theirs != ours:
        diffs.append(f"{spawned.name!r}: MCP servers started {theirs} != {ours}")
    sent = spawned.param("output_config")
    if sent is not None:
        raw: object = defn.effort
        if entry.path is not None:
            from subagents.claude_code.reader import read_claude_code

            raw = read_claude_code(entry.path.read_bytes()).frontmatter.get("effort")
        effort = effort_sent(raw, get_profile(None).efforts)
        mine = "(absent)" if effort is None else f'{{"effort":"{effort}"}}'
        if sent != mine:
            diffs.append(f"{spawned.name!r}: output_config {sent} (Claude Code) != {mine}")
    return diffs


# Tools Claude Code adds on its own (a stand-in for MCP tools whose server is not running).
_INTERNAL = frozenset({"DeferredToolPlaceholder"})


def _available_tools(recording: Recording) -> frozenset[str] | None:
    """Every tool a subagent of this build was seen to get, in any recorded spawn."""
    seen = frozenset(t for c in recording.cases for s in c.spawned for t in s.tools)
    return (seen - _INTERNAL) or None


def compare_recording(
    recording: Recording, cases: Iterable[Case], workdir: Path | None = None
) -> list[CaseComparison]:
    """Every case of ``cases`` that ``recording`` holds, compared."""
    out: list[CaseComparison] = []
    with tempfile.TemporaryDirectory(prefix="sa-conformance-") as tmp:
        base = workdir or Path(tmp)
        for case in cases:
            try:
                expected = recording.case(case.id)
            except KeyError:
                continue
            out.append(compare_case(case, expected, recording, base / case.id))
    return out


def agreement_table(results: list[CaseComparison]) -> str:
    """The table ``compare`` prints: one line per case that differs, then the totals."""
    lines: list[str] = []
    agree = sum(r.agrees for r in results)
    deliberate = [r for r in results if not r.agrees and r.deliberate]
    differ = [r for r in results if not r.agrees and not r.deliberate]
    for r in differ:
        lines.append(f"DIFFERS     {r.id}")
        lines.extend(f"    {d}" for d in r.differences)
    for r in deliberate:
        lines.append(f"DELIBERATE  {r.id}: {r.deliberate}")
    lines.append(
        f"{agree} of {len(results)} recorded cases agree; {len(deliberate)} deliberate "
        f"difference{'' if len(deliberate) == 1 else 's'}; {len(differ)} other"
    )
    return os.linesep.join(lines)
