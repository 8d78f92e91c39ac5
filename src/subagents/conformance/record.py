"""Record every case: run Claude Code on it, leave out the built-in agents, name the files.

The built-in agents are recorded once from an empty project and taken out of each case's agents
unless a file replaced one (same name, different description, model or listed tools): such an
agent stays, marked ``overrides_builtin``.

Which file an agent came from is not printed by Claude Code, so it is worked out: the cases give
each file its own name, so a file whose ``name:`` (read leniently) is the agent's name is its
source; when a name is in several files, the ``Duplicate agent name ... active: PATH`` debug line
names the winner, and across scopes the file holding the agent's description does.  Only files
inside an agents folder count (a link's target elsewhere does not), and nothing under a folder
the log says was skipped as a circular link.  When none of this settles it, ``source`` stays
None rather than a guess.

Design decision: cases run in a thread pool (each run is a child process), and the result is
sorted by case id, so ``--jobs`` never changes the data file.
"""

from __future__ import annotations

import datetime as _dt
import json
import posixpath
import re
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import yaml

from subagents.conformance.casekit import Case
from subagents.conformance.extract import extract, is_builtin
from subagents.conformance.harness import HarnessError, run_project
from subagents.conformance.model import (
    BuiltinAgent,
    CaseResult,
    FileResult,
    LoadedAgent,
    Recording,
)

__all__ = ["name_guess", "record_builtins", "record_case", "record_cases"]

_DUPLICATE = re.compile(r"Duplicate agent name '(.*)' \((\w+)\): .* — active: (\S+)$")


def name_guess(data: bytes) -> str | None:
    """The ``name:`` a file declares, read leniently (YAML first, then a plain line match)."""
    text = data.decode("utf-8", errors="replace").removeprefix("\ufeff").replace("\r\n", "\n")
    if not text.startswith("---"):
        return None
    match = re.match(r"---[^\n]*\n(.*?)^---", text, re.S | re.M)
    block = match.group(1) if match else text[3:]
    try:
        parsed = yaml.safe_load(block)
    except yaml.YAMLError:
        parsed = None
    if isinstance(parsed, dict) and isinstance(parsed.get("name"), str):
        return str(parsed["name"])
    line = re.search(r"(?m)^name:[ \t]*(.*?)[ \t]*$", block)
    if not line:
        return None
    value = re.sub(r"\s+#.*$", "", line.group(1))
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        value = value[1:-1]
    return value or None


def _project_key(rel: str) -> str:
    agents = ".claude/agents/"
    return f"project/{rel[len(agents):]}" if rel.startswith(agents) else f"<project>/{rel}"


def _case_files(case: Case) -> dict[str, bytes]:
    """Every file of the case by the name the recording uses (links as the files they reach)."""
    tree = {f".claude/agents/{rel}": data for rel, data in case.files.items()}
    tree.update(case.project_files)
    files = {_project_key(rel): data for rel, data in tree.items()}
    files.update({f"user/{rel}": data for rel, data in case.user_files.items()})
    for link, target in case.links.items():
        reached = posixpath.normpath(posixpath.join(posixpath.dirname(link), target))
        if reached in tree:
            files[_project_key(link)] = tree[reached]
            continue
        for rel, data in tree.items():
            if rel.startswith(reached + "/"):
                files[_project_key(link + rel[len(reached):])] = data
    # links in HOME: "{HOME}/x" targets are HOME-relative; only what lands in ~/.claude/agents
    home_tree = {**case.home_files,
                 **{f".claude/agents/{rel}": data for rel, data in case.user_files.items()}}
    user = ".claude/agents"
    for link, target in case.home_links.items():
        if target.startswith("{HOME}/"):
            reached = posixpath.normpath(target[len("{HOME}/"):])
        else:
            reached = posixpath.normpath(posixpath.join(posixpath.dirname(link), target))
        for rel, data in home_tree.items():
            if rel == reached or rel.startswith(reached + "/"):
                path = link + rel[len(reached):]
                if path.startswith(user + "/"):
                    files[f"user/{path[len(user) + 1:]}"] = data
    return files


def _plugin_files(case: Case, files: Mapping[str, bytes]) -> dict[str, tuple[str, bytes]]:
    """Each ``.md`` file of the case's plugin folders -> (its plugin's name, its bytes).

    A plugin is named by its manifest's ``name``, else by its folder.
    """
    out: dict[str, tuple[str, bytes]] = {}
    for folder in case.plugin_dirs:
        name = posixpath.basename(folder.rstrip("/"))
        manifest = case.project_files.get(f"{folder}/.claude-plugin/plugin.json")
        try:
            declared = json.loads(manifest) if manifest else None
        except ValueError:
            declared = None
        if isinstance(declared, dict) and isinstance(declared.get("name"), str):
            name = declared["name"]
        prefix = f"<project>/{folder}/"
        for path, data in files.items():
            if path.startswith(prefix) and path.endswith(".md"):
                out[path] = (name, data)
    return out


def _in_agents_folder(path: str) -> bool:
    return path.startswith(("project/", "user/")) or "/.claude/agents/" in path


def match_sources(case: Case, agents: Iterable[LoadedAgent], debug: Iterable[str]
                  ) -> tuple[tuple[LoadedAgent, ...], tuple[FileResult, ...]]:
    """Give each agent its source file where it can be determined (see module docstring)."""
    files = _case_files(case)
    debug = list(debug)
    skipped = [m.group(1) + "/" for line in debug
               if (m := re.search(r"Skipping already visited directory[^:]*: (\S+)$", line))]
    readable = {p: d for p, d in files.items() if p.endswith(".md") and _in_agents_folder(p)
                and not p.startswith(tuple(skipped))}
    guesses = {p: name_guess(d) for p, d in readable.items()}
    active: dict[tuple[str, str], str] = {}
    for line in debug:
        m = _DUPLICATE.search(line)
        if m:
            scope = "project" if m.group(2).startswith("project") else "user"
            active[(m.group(1), scope)] = m.group(3)
    plugin_files = _plugin_files(case, files)
    out: list[LoadedAgent] = []
    taken: dict[str, str] = {}
    for agent in agents:
        if ":" in agent.name and plugin_files:
            # PLUGIN[:SUB...]:NAME, NAME being the file's name: or, without one, its stem
            found = [p for p, (plugin, data) in plugin_files.items()
                     if agent.name.startswith(plugin + ":") and any(
                         agent.name.endswith(":" + n) for n in
                         (name_guess(data), posixpath.basename(p)[:-3]) if n)]
            if len(found) > 1:  # a file's own name: beats another file's stem
                named = [p for p in found if agent.name.endswith(
                    ":" + (name_guess(plugin_files[p][1]) or "\0"))]
                found = named or found
            source = found[0] if len(found) == 1 else None
            if source is not None:
                taken[source] = agent.name
            out.append(LoadedAgent(agent.name, agent.description, agent.model, agent.tools,
                                   agent.listing_line, source, agent.overrides_builtin))
            continue
        candidates = [p for p, g in guesses.items() if g == agent.name]
        if not candidates:
            candidates = [p for p, d in readable.items() if p not in taken
                          and agent.name in d.decode("utf-8", errors="replace")]
        for scope, prefixes in (("project", ("project/", "<project>/")), ("user", ("user/",))):
            winner = active.get((agent.name, scope))
            if winner is not None:
                candidates = [p for p in candidates
                              if not p.startswith(prefixes) or p == winner]
        if len(candidates) > 1 and agent.description:
            head = agent.description[:40]
            holding = [p for p in candidates
                       if head in readable[p].decode("utf-8", errors="replace")]
            candidates = holding or candidates
        source = candidates[0] if len(candidates) == 1 else None
        if source is not None:
            taken[source] = agent.name
        out.append(LoadedAgent(agent.name, agent.description, agent.model, agent.tools,
                               agent.listing_line, source, agent.overrides_builtin))
    results = []
    for path in sorted(files):
        pattern = re.compile(re.escape(path) + r"(?![\w./-])")
        lines = tuple(line for line in debug if pattern.search(line))
        results.append(FileResult(path, taken.get(path), lines))
    return tuple(out), tuple(results)


def record_builtins(claude: Path, *, netns: bool = True
                    ) -> tuple[tuple[BuiltinAgent, ...], str | None, str | None]:
    """(built-in agents, the main thread's model id, the version) from an empty project."""
    run = run_project(claude, lambda project, home: (project / ".claude" / "agents").mkdir(
        parents=True), netns=netns)
    facts = extract(run)
    if facts.errors or not facts.agents:
        raise HarnessError("the empty-project run failed: " + "; ".join(facts.errors)
                           + (f" (stderr: {run.stderr.strip()[-300:]})" if run.stderr else ""))
    builtins = tuple(BuiltinAgent(a.name, a.description, a.model, a.tools)
                     for a in facts.agents)
    return builtins, facts.parent_model, facts.version


def record_case(claude: Path, case: Case, builtins: Mapping[str, BuiltinAgent], *,
                netns: bool = True) -> CaseResult:
    """Run one case and turn what Claude Code did into a :class:`CaseResult`."""
    run = run_project(claude, case.materialise, spawn=case.spawn, cwd=case.cwd, netns=netns,
                      args=case.claude_args)
    facts = extract(run, case.spawn, case.request_params)
    kept = []
    for agent in facts.agents:
        if is_builtin(agent, builtins):
            continue
        if agent.name in builtins:
            kept.append(LoadedAgent(agent.name, agent.description, agent.model, agent.tools,
                                    agent.listing_line, None, overrides_builtin=True))
        else:
            kept.append(agent)
    agents, files = match_sources(case, kept, facts.debug)
    return CaseResult(case.id, case.about, tuple(sorted(agents, key=lambda a: a.name)), files,
                      facts.debug, facts.spawned, facts.errors, facts.startup_error)


def record_cases(
    claude: Path,
    cases: Iterable[Case],
    *,
    version: str,
    jobs: int = 1,
    netns: bool = True,
    progress: Callable[[str], None] | None = None,
    previous: Recording | None = None,
) -> Recording:
    """Record ``cases`` (and the built-ins).  With ``previous``, its other cases are kept."""
    builtin_list, parent_model, _seen = record_builtins(claude, netns=netns)
    builtins = {b.name: b for b in builtin_list}
    todo = list(cases)

    def one(case: Case) -> CaseResult:
        result = record_case(claude, case, builtins, netns=netns)
        if progress is not None:
            flag = " (" + "; ".join(result.errors) + ")" if result.errors else ""
            progress(f"{case.id}: {len(result.agents)} agent(s){flag}")
        return result

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        results = list(pool.map(one, todo))
    done = {r.id: r for r in results}
    if previous is not None:
        for old in previous.cases:
            done.setdefault(old.id, old)
    return Recording(
        harness="claude-code", version=version, recorded=_dt.date.today().isoformat(),
        parent_model=parent_model, builtin_agents=tuple(sorted(builtin_list,
                                                               key=lambda b: b.name)),
        cases=tuple(sorted(done.values(), key=lambda r: r.id)),
    )
