"""One job, run by a worker: the runner built from the batch's settings, made durable.

A worker may be another process or another machine, so everything a job needs travels as
plain JSON (:class:`BatchSettings` and the job itself) in its durable record; the worker
builds the provider, the tools (the Bash sandbox as configured), the permission policy and
the agent from it.  Design decisions:

* **Each job has its own working folder**: the job's ``cwd``, else a fresh folder of its own
  (``subagents-batch/<batch>/<job>`` where the batch was started; not under ``.subagents/``,
  whose contents no tool may write).  Tools stay inside it as
  in ``subagents run`` (writes outside it need ``writable-dirs``; ``Bash`` runs in the
  sandbox on every worker: ``required`` unless the worker's own user config says otherwise;
  what a submitter asks for may tighten that, never loosen it, network access included).
* **Nobody is asked.**  A batch has no terminal: calls that need permission are refused
  unless ``--yes`` or an allow rule approves them, exactly like ``subagents run`` without a
  terminal.
* **A job's failure is its result**, never an exception out of the workflow: an unknown
  agent, a provider that keeps failing (after the provider's own retries with backoff on
  429/5xx/timeouts, :mod:`subagents.providers.retry`) or a bad setting ends the job as
  ``failed`` with its error, and the queue goes on.
* **Models from Python** (library use): a :class:`~subagents.providers.base.Model` or a
  factory ``(job) -> Model`` given to :func:`subagents.batch.run_batch` is registered in
  this process under a key (:func:`register_model`); such jobs go to a queue only this
  process serves.  The CLI's ``--provider scripted --script FILE`` gives every job a fresh
  copy of the script (each job replays it from its first reply).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from subagents.batch.durable import DurableModel, Recorder, ToolCallIds, durable_tools
from subagents.batch.jobs import Job, slug
from subagents.definition import AgentDefinition
from subagents.errors import SubagentError, UsageError
from subagents.providers.base import Model, ModelRequest, ModelResponse

__all__ = [
    "BatchSettings",
    "ModelSource",
    "TurnScript",
    "job_folder",
    "register_model",
    "run_job",
]

ModelSource = Model | Callable[[Job], Model]

_MODELS: dict[str, ModelSource] = {}

DEFAULT_PROMPT = ("You work on one task of a batch, in the working folder you are given. "
                  "Do the task with the tools you have, then reply with the result.")


def register_model(source: ModelSource, key: str | None = None) -> str:
    """Make a Python model (or a factory of one per job) known to this process's workers."""
    key = key or f"py-{uuid.uuid4().hex[:12]}"
    _MODELS[key] = source
    return key


@dataclass(frozen=True, slots=True, kw_only=True)
class BatchSettings:
    """How the jobs of a batch run: plain data, stored with every job."""

    batch: str
    state_dir: str  # absolute: transcripts go under it
    work_dir: str = ""  # absolute: jobs without a cwd get a folder under it
    provider: str = "anthropic"
    provider_options: Mapping[str, Any] = field(default_factory=dict)
    model_key: str | None = None  # a Python model registered in the submitting process
    model_id: str | None = None  # the model every job uses unless it names its own
    max_turns: int | None = None
    permission_mode: str = "default"
    allow_rules: tuple[str, ...] = ()
    assume_yes: bool = False
    sandbox: str | None = None
    sandbox_network: bool = False
    transcripts: bool = True
    trusted: bool = False

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["provider_options"] = dict(self.provider_options)
        data["allow_rules"] = list(self.allow_rules)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BatchSettings:
        known = set(cls.__dataclass_fields__)
        values = {k: v for k, v in data.items() if k in known}
        values["allow_rules"] = tuple(values.get("allow_rules") or ())
        values["provider_options"] = dict(values.get("provider_options") or {})
        return cls(**values)

    @property
    def queue_key(self) -> str:
        """What the job's queue is named after: the provider, or this process's model."""
        return self.model_key or self.provider


def job_folder(settings: BatchSettings, job: Job) -> Path:
    """The job's working folder: its own ``cwd``, else one of its own under the state dir."""
    if job.cwd:
        return Path(job.cwd)
    base = Path(settings.work_dir or Path(settings.state_dir).parent.parent / "subagents-batch")
    return base / slug(settings.batch) / slug(job.id, 120)


def _model(settings: BatchSettings, job: Job) -> Model:
    if settings.model_key is not None:
        source = _MODELS.get(settings.model_key)
        if source is None:
            raise UsageError("this job was given a Python model in another process; only "
                             "that process can run it")
        if isinstance(source, Model):
            return source
        return source(job)
    if settings.provider == "scripted":
        return TurnScript(settings.provider_options.get("script"))
    from subagents.providers import get_provider

    return get_provider(settings.provider, **dict(settings.provider_options))


class TurnScript:
    """The ``scripted`` provider for batch jobs: every job gets the whole script, and the
    reply to a request is the script's entry for that turn (the number of model replies
    already in the conversation).  Answering by turn, not from a queue, is what lets a
    resumed job go on: its finished turns come from the record, not from the script."""

    name = "scripted"
    default_model: str | None = None

    def __init__(self, script: str | None) -> None:
        from subagents.providers.scripted import load_script

        if not script:
            raise UsageError("--provider scripted needs --script FILE (a JSON list of replies)")
        self.source = script
        self.replies = load_script(script)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        from subagents.errors import ProviderResponseError

        turn = sum(1 for m in request.messages if m.role == "assistant")
        if turn >= len(self.replies):
            raise ProviderResponseError(
                f"the script {self.source} has {len(self.replies)} replies; turn {turn + 1} "
                "asked for another")
        reply = self.replies[turn]
        if isinstance(reply, BaseException):
            raise reply
        if callable(reply):
            reply = reply(request)
        return ModelResponse(content=reply.content, stop_reason=reply.stop_reason,
                             usage=reply.usage, model=reply.model or request.model)


def _agent(name: str | None, folder: Path) -> AgentDefinition:
    if name is None:
        return AgentDefinition(name="batch", description="one task of a batch",
                               system_prompt=DEFAULT_PROMPT)
    from subagents.registry.core import AgentRegistry

    definition: AgentDefinition = AgentRegistry(cwd=folder).load_all().get(name)
    return definition


_STRICTNESS = {"off": 0, "ask": 1, "required": 2}


def _stricter(submitted: str | None, own: str | None) -> str:
    """The sandbox mode of a job on this worker: what was submitted may tighten this
    machine's own setting (user config, default ``required``), never loosen it."""
    modes = [m if m in _STRICTNESS else "required"
             for m in (own or "required", *([submitted] if submitted else []))]
    return max(modes, key=_STRICTNESS.__getitem__)


def _failed(job: Job, folder: Path, error: str, started: float) -> dict[str, Any]:
    return {"id": job.id, "state": "failed", "agent": job.agent, "model": job.model,
            "final_text": "", "stop_reason": "error", "error": error, "turns": 0,
            "tool_calls": 0, "usage": {"input_tokens": 0, "output_tokens": 0},
            "duration": round(time.perf_counter() - started, 6), "transcript_path": None,
            "cwd": str(folder)}


async def run_job(job_data: Mapping[str, Any], settings_data: Mapping[str, Any],
                  recorder: Recorder) -> dict[str, Any]:
    """Run one job to its end with every model turn and tool call recorded by ``recorder``;
    the job's result as plain data (``state`` is ``done`` or ``failed``)."""
    from subagents.lint.trust import TrustPolicy, project_root, run_config
    from subagents.runtime.permissions import PermissionPolicy, PermissionRequest
    from subagents.runtime.runner import AgentRunner
    from subagents.runtime.sandbox import SandboxSettings
    from subagents.runtime.tools import builtin_tools

    started = time.perf_counter()
    job = Job.from_dict(job_data)
    settings = BatchSettings.from_dict(settings_data)
    folder = job_folder(settings, job)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if not folder.is_dir():
            raise UsageError(f"the working folder {folder} is not a folder")
        config, _notes = run_config(folder, trusted=settings.trusted)
        agent = _agent(job.agent, folder)
        model = DurableModel(_model(settings, job), recorder)
        ask = None
        if settings.assume_yes:
            async def yes(request: PermissionRequest) -> bool:
                return request.protected is None  # never a protected path (.git, .claude)
            ask = yes
        policy = PermissionPolicy(
            mode=settings.permission_mode,
            allow_rules=(*config.allow_rules, *settings.allow_rules),
            writable_dirs=config.writable_dirs, allow_bypass=config.allow_bypass_permissions,
            ask=ask)
        sandbox = SandboxSettings(
            mode=_stricter(settings.sandbox, config.sandbox),  # type: ignore[arg-type]
            network=settings.sandbox_network and config.sandbox_network,
            writable=config.writable_dirs)
        tools = durable_tools(builtin_tools(sandbox=sandbox), recorder)
        transcript_dir = (Path(settings.state_dir) / slug(settings.batch) / "transcripts"
                          / slug(job.id, 120))
        root = project_root(folder)  # its agents, hooks, MCP servers: untrusted unless --trust
        runner = AgentRunner(
            model, cwd=folder, tools=tools, policy=policy, hooks=ToolCallIds(),
            transcript_dir=transcript_dir, transcripts=settings.transcripts,
            model_table=config.model_aliases or None, include_env=True,
            trust=TrustPolicy(untrusted=() if settings.trusted else (root,)),
            mcp_read_only=config.mcp_read_only)
        result = await runner.run(agent, job.prompt, model=job.model or settings.model_id,
                                  max_turns=settings.max_turns,
                                  run_id=f"{slug(job.id, 40)}-{uuid.uuid4().hex[:8]}")
    except SubagentError as exc:
        return _failed(job, folder, exc.message, started)
    except OSError as exc:
        return _failed(job, folder, f"{type(exc).__name__}: {exc}", started)
    return {
        "id": job.id, "state": "failed" if result.stop_reason == "error" else "done",
        "agent": result.agent, "model": result.model, "final_text": result.final_text,
        "stop_reason": result.stop_reason, "error": result.error, "turns": result.turns,
        "tool_calls": len(result.tool_calls),
        "usage": {"input_tokens": result.usage.input_tokens,
                  "output_tokens": result.usage.output_tokens},
        "duration": round(result.duration, 6),
        "transcript_path": str(result.transcript_path) if result.transcript_path else None,
        "cwd": str(folder), "warnings": list(result.warnings),
    }
