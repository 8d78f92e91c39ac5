"""Record the other harnesses' cases, record arbitrary files, and compare a reader with the data.

- :func:`record_harness` runs an empty project once (the built-in agents), then every case of
  :mod:`subagents.conformance.hcases` for one harness, and returns an
  :class:`~subagents.conformance.hmodel.HRecording`.
- :func:`record_files` puts many files into one of a harness's agents folders, many per run, and
  says for each whether it was offered; a file not settled in its batch runs alone.  When a
  batch makes the CLI exit non-zero (OpenCode refuses to start when one file is invalid), the
  batch is split in halves until the files that do it are found.
- the comparison of a reader with the data lives in :mod:`subagents.conformance.hcompare`.

Design decisions: the trust settings a harness needs are written for a case unless it says
``trust=False``; messages keep only lines that speak of agents or errors, with the temporary
folders replaced by ``<project>`` and ``~``, and timestamps removed, so a re-recording diffs
cleanly.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from subagents.conformance.clis import (
    PROMPT,
    CliSpec,
    first_main_request,
    request_model,
    request_system,
)
from subagents.conformance.fakeapi import offered_tool_names
from subagents.conformance.harness import HarnessError
from subagents.conformance.hcases import HARNESS_CASES, MARK, HCase
from subagents.conformance.hmodel import (
    HCaseResult,
    HFilesRecording,
    HFileVerdict,
    HRecording,
    HSpawn,
    OfferedAgent,
)
from subagents.conformance.record import name_guess
from subagents.conformance.runner import CliRun, run_cli

__all__ = ["load_files_recording", "record_files", "record_harness", "run_case"]

_KEEP = re.compile(r"agent|\.md\b|\.toml\b|error|warning|invalid|↳|skipp|refus", re.I)
_NOISE = re.compile(r"TERM=dumb|256-color|truecolor|--yolo|YOLO|Data collection|"
                    r"Loaded cached credentials|experiments|telemetry|update available|"
                    r"PATH aliases|Reading additional input|^• |^✓ |"
                    # runtime lines that are not about agents: Codex's model metadata,
                    # Copilot CLI's metrics, native runtime and session plumbing
                    r"Model metadata for|CAFE metrics|\[rust:|SessionClient|^collab: ", re.I)
_IDS = ((re.compile(r"\bses_[A-Za-z0-9]+"), "ses_<id>"),
        (re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), "<uuid>"),
        (re.compile(r"task_id: \S+"), "task_id: <id>"),
        (re.compile(r'"nickname":\s*"[^"]*"'), '"nickname":"<name>"'))
# the transcript Codex prints to stderr: its header, the prompt, the reply and the token count
_NOT_CONTINUED = re.compile(r"^(codex|OK-FAKE|tokens used|[\d,]+|-+|OpenAI Codex.*|user|"
                            + re.escape(PROMPT) + r"|(workdir|model|provider|approval|sandbox|"
                            r"reasoning \w+|session id): .*)$")


def _scrub(text: str) -> str:
    """Run-specific ids (sessions, uuids, task ids) replaced, so re-recordings diff cleanly."""
    for pattern, shown in _IDS:
        text = pattern.sub(shown, text)
    return text
_STAMP = re.compile(r"^\d{4}-\d\d-\d\dT[\d:.]+Z?\s*")


def _write_tree(root: Path, files: Mapping[str, str | bytes]) -> None:
    for rel, data in files.items():
        if rel.startswith("/") or ".." in Path(rel).parts:
            raise ValueError(f"case file path must stay inside its folder: {rel!r}")
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)


def _trust(spec: CliSpec, project: Path, home: Path) -> None:
    """The settings without which the harness ignores project agents."""
    if spec.name == "codex":
        config = home / ".codex" / "config.toml"
        config.parent.mkdir(parents=True, exist_ok=True)
        old = config.read_text("utf-8") if config.exists() else ""
        config.write_text(old + '\n[projects."<PROJECT>"]\ntrust_level = "trusted"\n', "utf-8")
    elif spec.name == "gemini":
        folder = project / ".gemini" / "agents"
        acks: dict[str, str] = {}
        for path in sorted(folder.glob("*.md")) if folder.is_dir() else []:
            text = path.read_bytes().decode("utf-8", errors="replace")
            name = name_guess(path.read_bytes())
            if name:
                acks[name] = hashlib.sha256(text.encode("utf-8")).hexdigest()
        target = home / ".gemini" / "acknowledgments" / "agents.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps({"<PROJECT>": acks}), "utf-8")


def _relative(text: str, run: CliRun) -> str:
    for real, shown in ((str(run.project), "<project>"), (str(run.home), "~")):
        text = text.replace(real, shown)
    return text


def _messages(run: CliRun) -> tuple[str, ...]:
    """Lines about agents or errors, each with the lines that continue it (no stack frames)."""
    out: list[str] = []
    block = False
    logged = [ln for ln in run.logs.splitlines() if "[ERROR]" in ln or "[WARNING]" in ln]
    for raw in [*run.stderr.splitlines(), "", *logged]:
        line = _STAMP.sub("", _relative(raw.rstrip(), run)).strip()
        line = re.sub(r"\x1b\[[0-9;]*m", "", line)
        if not line:
            block = False
            continue
        if line.startswith("at ") or _NOISE.search(line) or "node_modules" in line:
            continue
        if _NOT_CONTINUED.match(line):
            block = False
            continue
        if _KEEP.search(line) or (block and not line.startswith("[")):
            block = True
            line = _scrub(line)
            if line not in out:
                out.append(line[:400])
        else:
            block = False
    return tuple(out[:40])


def _tool_result(requests: list[dict[str, Any]], tool: str) -> str | None:
    for request in requests:
        text = json.dumps(request.get("body"), ensure_ascii=False)
        for key in ('"function_call_output"', '"role": "tool"', '"functionResponse"'):
            if key in text:
                body = request.get("body")
                return _find_result(body)
    return None


def _find_result(body: Any) -> str | None:
    items = []
    if isinstance(body, dict):
        items = list(body.get("messages") or body.get("input") or [])
        for content in body.get("contents") or []:
            items.extend(content.get("parts") or [] if isinstance(content, dict) else [])
    for item in items:
        if not isinstance(item, dict):
            continue
        if item.get("type") == "function_call_output":
            return str(item.get("output"))[:300]
        if item.get("role") == "tool":
            return str(item.get("content"))[:300]
        if isinstance(item.get("functionResponse"), dict):
            return json.dumps(item["functionResponse"].get("response"))[:300]
    return None


def _spawn(spec: CliSpec, run: CliRun, agent: str, body: str | None) -> HSpawn:
    child = None
    for request in run.requests:
        if MARK in json.dumps(request.get("body"), ensure_ascii=False):
            child = request
            break
    result = _tool_result(run.requests, spec.delegation_tool)
    result = _scrub(_relative(result, run)) if result else None
    if child is None or not isinstance(child.get("body"), dict):
        return HSpawn(agent, False, tool_result=result)
    data = child["body"]
    system = request_system(data)
    config = data.get("generationConfig") if isinstance(data.get("generationConfig"), dict) \
        else data
    temp = config.get("temperature")
    text = (body or MARK).strip()
    return HSpawn(agent, True, request_model(str(child.get("path", "")), data),
                  tuple(sorted(set(offered_tool_names(data)))),
                  body_in_prompt=text in system,
                  prompt_starts_with_body=system.lstrip().startswith(text),
                  temperature=float(temp) if isinstance(temp, (int, float)) else None,
                  tool_result=result)


def _body_of(case: HCase) -> str | None:
    """The prompt text of the delegated agent's file (the line holding the marker)."""
    for text in case.all_files().values():
        for line in text.splitlines():
            if MARK in line:
                return line.strip()
    return None


def run_case(spec: CliSpec, binary: Path, case: HCase, *, netns: bool = True,
             known: frozenset[str] | None = None) -> tuple[CliRun, dict[str, str]]:
    """Run one case; (the raw run, the agents offered as {id: description})."""
    def write(project: Path, home: Path) -> None:
        _write_tree(project, case.project)
        _write_tree(home, case.home)
        if case.trust:
            _trust(spec, project, home)

    def setup(project: Path, home: Path, url: str) -> tuple[list[str], dict[str, str]]:
        return spec.setup(str(binary), project, home, url)

    run = run_cli(setup, write, toolcall=spec.toolcall(case.spawn) if case.spawn else None,
                  delay_after_tool=spec.delay_after_tool if case.spawn else 0.0,
                  netns=netns, log_dir=spec.log_dir)
    main = first_main_request(spec, run.requests)
    offered = spec.offered(main["body"], known) if main else {}
    return run, {k: _relative(v, run) for k, v in offered.items()}


def _case_result(spec: CliSpec, case: HCase, run: CliRun, offered: Mapping[str, str],
                 builtins: Mapping[str, str]) -> HCaseResult:
    agents = []
    for agent_id, description in sorted(offered.items()):
        if agent_id in builtins:
            if builtins[agent_id] == description:
                continue
            agents.append(OfferedAgent(agent_id, description, overrides_builtin=True))
        else:
            agents.append(OfferedAgent(agent_id, description))
    errors = []
    if not run.requests and run.returncode == 0:
        errors.append("the CLI sent no request to the fake model API")
    if run.requests and first_main_request(spec, run.requests) is None:
        errors.append(f"no request offered the {spec.delegation_tool} tool")
    spawned = _spawn(spec, run, case.spawn, _body_of(case)) if case.spawn else None
    if spawned is not None and not spawned.requested and not spawned.tool_result:
        errors.append(f"the delegation to {case.spawn!r} left no trace")
    return HCaseResult(case.id, case.about, tuple(sorted(case.all_files())), run.returncode,
                       tuple(agents), _messages(run), spawned, tuple(errors))


def record_builtins(spec: CliSpec, binary: Path, *, netns: bool = True) -> dict[str, str]:
    """The built-in agents the delegation tool offers.

    Read from an empty project; a harness that lists its built-ins only beside custom agents
    (Codex) has them read from a project holding one custom agent instead.
    """
    run, offered = run_case(spec, binary, HCase("empty", "an empty project"), netns=netns)
    if first_main_request(spec, run.requests) is None:
        raise HarnessError(f"{spec.title} {spec.version}: the empty-project run sent no request "
                           f"offering {spec.delegation_tool} (exit {run.returncode}; stderr: "
                           f"{_relative(run.stderr.strip(), run)[-400:]})")
    if not offered and spec.listed_builtins:
        probe = HCase("one", "one custom agent", home={
            f"{spec.user_agents}/zz-probe{spec.suffix}": _PROBE[spec.suffix]})
        run, offered = run_case(spec, binary, probe, netns=netns)
        offered = {k: v for k, v in offered.items() if k in spec.listed_builtins}
    return offered


_PROBE = {".toml": 'name = "zz-probe"\ndescription = "Probe."\ndeveloper_instructions = "x"\n',
          ".md": "---\nname: zz-probe\ndescription: Probe.\n---\nx\n",
          ".agent.md": "---\nname: zz-probe\ndescription: Probe.\n---\nx\n"}


def record_harness(spec: CliSpec, binary: Path, *, case_ids: Sequence[str] = (),
                   jobs: int = 2, netns: bool = True,
                   progress: Callable[[str], None] | None = None,
                   previous: HRecording | None = None) -> HRecording:
    """Record the cases of one harness (all, or ``case_ids`` keeping ``previous``'s others)."""
    builtins = record_builtins(spec, binary, netns=netns)
    cases = [c for c in HARNESS_CASES[spec.name] if not case_ids or c.id in case_ids]

    def one(case: HCase) -> HCaseResult:
        run, offered = run_case(spec, binary, case, netns=netns)
        result = _case_result(spec, case, run, offered, builtins)
        if progress is not None:
            flag = " (" + "; ".join(result.errors) + ")" if result.errors else ""
            progress(f"{case.id}: exit {result.exit_code}, {len(result.agents)} agent(s){flag}")
        return result

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        done = {r.id: r for r in pool.map(one, cases)}
    if previous is not None and case_ids:
        for old in previous.cases:
            done.setdefault(old.id, old)
    return HRecording(spec.name, spec.version, spec.package, _dt.date.today().isoformat(),
                      tuple(OfferedAgent(k, v) for k, v in sorted(builtins.items())),
                      tuple(sorted(done.values(), key=lambda r: r.id)))


# ----------------------------------------------------------------------------- record-files


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _declared_name(file_name: str, data: bytes) -> str | None:
    """The name a file declares: ``name`` of a TOML file, the frontmatter ``name:`` otherwise."""
    if file_name.endswith(".toml"):
        try:
            value = tomllib.loads(data.decode("utf-8", errors="replace")).get("name")
        except tomllib.TOMLDecodeError:
            return None
        return value if isinstance(value, str) else None
    return name_guess(data)


def _stem(file_name: str) -> str:
    for suffix in (".agent.md", ".md", ".toml"):
        if file_name.endswith(suffix):
            return file_name[: -len(suffix)]
    return file_name


Item = tuple[str, Path, bytes]


def _batches(items: Sequence[Item], size: int) -> list[list[Item]]:
    """Runs of at most ``size`` items, no two with one file name or one declared name."""
    batches: list[list[Item]] = []
    seen: list[set[str]] = []
    for item in items:
        keys = {item[0], _stem(item[0]), _declared_name(item[0], item[2]) or item[0]}
        for batch, used in zip(batches, seen, strict=True):
            if len(batch) < size and not keys & used:
                batch.append(item)
                used.update(keys)
                break
        else:
            batches.append([item])
            seen.append(set(keys))
    return batches


def record_files(spec: CliSpec, binary: Path, files: Sequence[Path], *, placement: str,
                 scope: str = "project", batch_size: int = 20, jobs: int = 2,
                 netns: bool = True, progress: Callable[[str], None] | None = None,
                 keep_names: bool = False) -> HFilesRecording:
    """Put ``files`` into ``placement`` (under the project, or HOME with scope="user").

    Each file goes in as ``NNNN-<file name>`` (so two files of one name can share a run), or,
    with ``keep_names``, under its own name (a harness that takes the id from the file name,
    OpenCode, then offers the id the file really gets); a batch never holds two files of one
    file name or one declared name.
    """
    builtins = record_builtins(spec, binary, netns=netns)
    items = [(p.name if keep_names else f"{i:04d}-{p.name}", p, p.read_bytes())
             for i, p in enumerate(files)]
    verdicts: dict[int, HFileVerdict] = {}
    index = {id(item): i for i, item in enumerate(items)}

    def run(batch: list[tuple[str, Path, bytes]]) -> tuple[CliRun, dict[str, str]]:
        tree = {f"{placement}/{name}": data.decode("utf-8", errors="surrogateescape")
                for name, _, data in batch}
        case = HCase("files", "files", tree if scope == "project" else {},
                     tree if scope == "user" else {})
        known = frozenset(builtins) | {key for name, _, data in batch
                                       for key in (_stem(name), _declared_name(name, data))
                                       if key}
        return run_case(spec, binary, case, netns=netns, known=known)

    def verdict(item: tuple[str, Path, bytes], offered: Mapping[str, str], how: str,
                run_: CliRun, blocks: bool = False) -> HFileVerdict:
        name, path, data = item
        lines = tuple(line for line in _messages(run_) if name in line)
        ids = tuple(sorted(offered))
        return HFileVerdict(_shown(path), _sha(data), bool(offered), ids,
                            tuple(_sha(offered[i].encode()) for i in ids), how, blocks,
                            tuple(line.replace(name, "FILE") for line in lines))

    def new(offered: Mapping[str, str]) -> dict[str, str]:
        return {k: v for k, v in offered.items() if builtins.get(k) != v}

    def alone(item: tuple[str, Path, bytes], how: str = "alone") -> None:
        run_, offered = run([item])
        blocks = run_.returncode not in (0, None) and not offered
        verdicts[index[id(item)]] = verdict(item, new(offered), how, run_, blocks)

    def settle(batch: list[tuple[str, Path, bytes]]) -> None:
        run_, offered = run(batch)
        extra = new(offered)
        if not offered and run_.returncode not in (0, None) and len(batch) > 1:
            half = len(batch) // 2  # something stops start-up: bisect
            settle(batch[:half])
            settle(batch[half:])
            return
        if len(batch) == 1:
            blocks = run_.returncode not in (0, None) and not offered
            verdicts[index[id(batch[0])]] = verdict(batch[0], extra,
                                                   "bisect" if blocks else "alone",
                                            run_, blocks)
            return
        guesses = {item[0]: _declared_name(item[0], item[2]) for item in batch}
        for item in batch:
            guess = guesses[item[0]]
            stem = _stem(item[0])
            hit = [k for k in extra if k in (guess, stem)]
            unique = guess is None or list(guesses.values()).count(guess) == 1
            if len(hit) == 1 and unique:
                verdicts[index[id(item)]] = verdict(item, {hit[0]: extra[hit[0]]}, "batch",
                                                    run_)
            else:
                alone(item)
        if progress is not None:
            progress(f"batch of {len(batch)}: {len(extra)} agent(s)")

    batches = _batches(items, batch_size)
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        list(pool.map(settle, batches))
    return HFilesRecording(spec.name, spec.version, _dt.date.today().isoformat(), placement,
                           batch_size, tuple(verdicts[i] for i in range(len(items))))


def _shown(path: Path) -> str:
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.name


def load_files_recording(path: Path) -> HFilesRecording:
    """Read a ``record-files`` data file."""
    return HFilesRecording.from_json(json.loads(path.read_text("utf-8")), str(path))

