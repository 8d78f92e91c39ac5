"""Compare a harness reader with what the harness's real CLI was recorded doing.

Two ways in:

- :func:`compare_harness` replays every recorded case through any ``read(text, path)``
  callable, file by file (a reader that knows nothing of folders or precedence);
- :func:`compare_reader` lays each case out in a temporary project and HOME, with the trust
  and acknowledgement settings the recorder wrote, and loads it through this project's own
  reader for that harness (:func:`subagents.harnesses.load_project`), so folders, precedence,
  trust and start-up failures are compared too.

Both compare, per case: which agents are offered, their ids and descriptions; and, for the case
whose agent was launched, the child's model and tools when the reader states them.

Design decisions:

- descriptions are compared with outer whitespace stripped (every listing strips them); a
  reader's description of None is compared as empty;
- a reader's ``model`` of None means "inherit": the child's model is then the main agent's,
  which is not a question for a reader, so it is not compared;  OpenCode sends a
  ``provider/model`` as the bare model id, so only the part after the last ``/`` is compared;
- a reader's tools of None mean "every tool the harness has", which a reader does not list, so
  they are not compared; explicit tools must be exactly the child's tools, apart from the ones a
  harness adds to every child (:data:`SPAWN_ADDS`: Gemini CLI's ``complete_task``);
- a case where the CLI exited non-zero counts as "nothing offered", and must be one where the
  reader says some file stops the harness from starting (and the other way round).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol

from subagents.conformance.clis import cli_spec
from subagents.conformance.hcases import HARNESS_CASES, HCase
from subagents.conformance.hmodel import HCaseResult, HRecording

__all__ = ["SPAWN_ADDS", "ReadAgent", "ReadFn", "compare_harness", "compare_reader",
           "replay_case"]

# tools a harness gives every launched child on top of the ones its file lists
SPAWN_ADDS: Mapping[str, frozenset[str]] = {"gemini": frozenset({"complete_task"})}


class ReadAgent(Protocol):
    """What a harness reader returns per agent (only these attributes are compared)."""

    agent_id: str
    description: str | None
    outcome: str


ReadFn = Callable[[str, str], Iterable[Any]]


def _outcome(agent: Any) -> str:
    return str(getattr(getattr(agent, "outcome", ""), "value", getattr(agent, "outcome", "")))


def _loaded(agent: Any) -> bool:
    return _outcome(agent) in ("loaded", "loads") and bool(getattr(agent, "delegable", True))


def _case_diffs(recording: HRecording, case: HCase, expected: HCaseResult,
                ours: Mapping[str, Any], fatal: bool | None) -> list[str]:
    label = f"{recording.harness} {recording.version}"
    failed = expected.exit_code not in (0, None)
    theirs = {} if failed else {a.id: a.description for a in expected.agents}
    diffs: list[str] = []
    if fatal is not None and fatal != failed:
        diffs.append(f"{label} exited {expected.exit_code}; the reader says "
                     + ("a file stops it from starting" if fatal else "it starts"))
    if fatal:
        ours = {}
    for agent_id in sorted(set(ours) | set(theirs)):
        if agent_id not in theirs:
            diffs.append(f"{agent_id!r}: the reader loads it; {label} did not offer it")
            continue
        if agent_id not in ours:
            diffs.append(f"{agent_id!r}: {label} offered it; the reader does not load it")
            continue
        mine = getattr(ours[agent_id], "description", None)
        if (mine or "").strip() != theirs[agent_id]:
            diffs.append(f"{agent_id!r}: description {mine!r} != {theirs[agent_id]!r}")
    spawned = expected.spawned
    if spawned is not None and spawned.requested and spawned.agent in ours:
        agent = ours[spawned.agent]
        model = getattr(agent, "model", None)
        if model is not None and spawned.model not in (model, str(model).rsplit("/", 1)[-1]):
            diffs.append(f"{spawned.agent!r}: model {model!r}; {label} launched it with "
                         f"{spawned.model!r}")
        tools = getattr(agent, "native_tools", None)
        if tools is not None:
            adds = SPAWN_ADDS.get(recording.harness, frozenset())
            if set(tools) | adds != set(spawned.tools) | adds:
                diffs.append(f"{spawned.agent!r}: tools {sorted(set(tools))}; {label} gave "
                             f"the child {sorted(set(spawned.tools) - adds)}")
    return diffs


def _cases(recording: HRecording, cases: Iterable[HCase] | None
           ) -> Iterable[tuple[HCase, HCaseResult]]:
    for case in cases if cases is not None else HARNESS_CASES[recording.harness]:
        try:
            expected = recording.case(case.id)
        except KeyError:
            continue
        if not expected.errors:
            yield case, expected


def compare_harness(recording: HRecording, read: ReadFn, *,
                    cases: Iterable[HCase] | None = None) -> dict[str, list[str]]:
    """Replay each recorded case through ``read(text, path)``; {case id: differences}.

    ``path`` is the file's path as the case wrote it (``.gemini/agents/x.md`` for a project
    file, ``~/.gemini/agents/x.md`` for a user file).  Each returned object needs
    ``agent_id``, ``description`` and ``outcome`` (``"loaded"`` when the harness would offer
    it); ``model`` and ``native_tools`` are compared when present.  Cases about trust are
    left out (trust is not a question for a single-file reader).
    """
    out: dict[str, list[str]] = {}
    for case, expected in _cases(recording, cases):
        if not case.trust:
            continue
        ours: dict[str, Any] = {}
        for rel, text in list(case.project.items()) + [(f"~/{k}", v)
                                                        for k, v in case.home.items()]:
            for agent in read(text, rel):
                if _loaded(agent):
                    ours.setdefault(str(agent.agent_id), agent)
        diffs = _case_diffs(recording, case, expected, ours, None)
        if diffs:
            out[case.id] = diffs
    return out


def replay_case(harness: str, case: HCase) -> list[Any]:
    """Load ``case`` with this project's reader for ``harness``, laid out as it was recorded.

    The project and HOME get the case's files and the trust settings the recorder writes
    (unless the case is about their absence), with the recorder's ``<PROJECT>`` and ``<HOME>``
    placeholders filled in as the CLI's setup fills them in.
    """
    from subagents.conformance.hrecord import _trust, _write_tree
    from subagents.harnesses import get_harness, load_project

    with tempfile.TemporaryDirectory(prefix="sa-replay-") as tmp:
        project, home = Path(tmp).resolve() / "project", Path(tmp).resolve() / "home"
        project.mkdir()
        home.mkdir()
        _write_tree(project, case.project)
        _write_tree(home, case.home)
        if case.trust:
            _trust(cli_spec(harness), project, home)
        for path in [*home.rglob("*"), *project.rglob("*")]:
            if path.is_file() and not path.is_symlink():
                text = path.read_bytes().decode("utf-8", errors="surrogateescape")
                if "<PROJECT>" in text or "<HOME>" in text:
                    path.write_bytes(text.replace("<PROJECT>", str(project))
                                     .replace("<HOME>", str(home))
                                     .encode("utf-8", errors="surrogateescape"))
        return load_project(get_harness(harness), project, home)


def compare_reader(recording: HRecording, *, cases: Iterable[HCase] | None = None
                   ) -> dict[str, list[str]]:
    """Every recorded case loaded by this project's reader for the harness; the differences."""
    builtin = {b.id for b in recording.builtin_agents}
    out: dict[str, list[str]] = {}
    for case, expected in _cases(recording, cases):
        agents = replay_case(recording.harness, case)
        fatal = any(_outcome(a) == "fatal" for a in agents)
        ours: dict[str, Any] = {}
        for agent in agents:
            agent_id = getattr(agent, "agent_id", None)
            if not _loaded(agent) or not agent_id:
                continue
            if agent_id in builtin and getattr(agent, "path", None) is None:
                continue  # a built-in the reader models; the recording leaves them out
            ours.setdefault(str(agent_id), agent)
        diffs = _case_diffs(recording, case, expected, ours, fatal)
        if diffs:
            out[case.id] = diffs
    return out
