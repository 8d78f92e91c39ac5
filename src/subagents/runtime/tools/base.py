"""The tool interface every built-in (and later MCP / Task) tool implements.

A :class:`Tool` has a ``name`` (Claude Code's spelling), a ``description`` and a JSON Schema
``input_schema`` (what the model is offered), a ``read_only`` flag (read-only tools need no
permission), and an async ``run(input, ctx) -> ToolOutput``.  Tools never raise for expected
failures: they return ``ToolOutput(content, is_error=True)`` with a message the model can act
on.  The runner additionally catches anything a tool raises and turns it into an ``is_error``
result, so a buggy tool cannot crash a run.

Design notes
------------
* Blocking tools (file system, ``grep``) subclass :class:`BlockingTool` and implement ``call``;
  ``run`` sends it to a worker thread (a pool of 32 of our own, context variables copied) so
  parallel calls in one assistant message really overlap, even on a one-CPU machine.
  ``Bash`` is natively async (asyncio subprocess) so it can be killed.
* Input is validated against ``input_schema`` before the tool runs (:func:`validate_input`):
  a small validator for the JSON Schema subset tools use (``type``, ``properties``,
  ``required``, ``additionalProperties``, ``enum``, ``items``, ``minimum``/``maximum``,
  ``minLength``, ``minItems``).  Keywords it does not know are ignored, never fatal; it is
  deliberately dependency-free because the runtime must not pull in ``jsonschema``.
* Paths: tools accept absolute paths or paths relative to ``ctx.cwd``; :meth:`ToolContext.resolve`
  resolves symlinks, so the permission check sees where a write really lands.  A call's paths
  are resolved **once**: the tool step pins them (:meth:`ToolContext.resolved_once`) before
  the permission decision, and the decision and the tool both get that one resolution; the
  file tools then open it beneath its root (:meth:`ToolContext.root_of`) with no link followed
  (:mod:`subagents.fs_beneath`), so a link swapped in after the decision fails the call
  instead of sending it elsewhere.
* ``write_paths(input)`` names the files a call would change; the permission policy refuses a
  call whose write paths leave the working folder.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import os
import signal
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import InitVar, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from subagents.providers.base import ToolSpec

if TYPE_CHECKING:
    from subagents.definition import AgentDefinition
    from subagents.runtime.permissions import Decision, PermissionPolicy
    from subagents.runtime.result import AgentResult
    from subagents.runtime.transcript import Transcript

__all__ = [
    "BlockingTool",
    "Delegate",
    "ProcessRegistry",
    "Tool",
    "ToolContext",
    "ToolInputError",
    "ToolOutput",
    "input_issues",
    "input_validation_error",
    "resolve_path",
    "validate_input",
    "wrap_tool_use_error",
]


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """What a tool call produced: text for the model, and whether it is an error."""

    content: str
    is_error: bool = False

    @staticmethod
    def error(message: str) -> ToolOutput:
        return ToolOutput(message, is_error=True)

    @staticmethod
    def tool_use_error(message: str) -> ToolOutput:
        """An ``is_error`` result marked as Claude Code marks a call refused before it did
        anything (unknown tool, bad input, an edit that cannot apply)."""
        return ToolOutput(wrap_tool_use_error(message), is_error=True)


def wrap_tool_use_error(message: str) -> str:
    """``message`` inside ``<tool_use_error>`` (once: an already wrapped one is kept)."""
    if message.startswith("<tool_use_error>"):
        return message
    return f"<tool_use_error>{message}</tool_use_error>"


class ProcessRegistry:
    """Process groups started by tools during one run, killed when the run ends or is cut."""

    def __init__(self) -> None:
        self._pgids: set[int] = set()

    def add(self, pgid: int) -> None:
        self._pgids.add(pgid)

    def discard(self, pgid: int) -> None:
        self._pgids.discard(pgid)

    @property
    def active(self) -> frozenset[int]:
        return frozenset(self._pgids)

    def kill_all(self) -> None:
        for pgid in list(self._pgids):
            kill_process_group(pgid)
        self._pgids.clear()


def kill_process_group(pgid: int) -> None:
    """SIGKILL a whole process group; a group that is already gone is fine."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


class ToolInputError(Exception):
    """A tool call's input cannot be used; ``message`` goes back to the model as the call's
    ``is_error`` result (refusal ``arguments``), and nothing was run.

    Raised by :meth:`Tool.check_input` (not an object, schema mismatch) and by a tool's ``run``
    for checks of its own; the runner turns it into the result the model sees."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Delegate(Protocol):
    """What a tool may ask of the run hosting it (``ctx.delegate``).

    The runner implements it; a tool gets no wider handle on the runner than this."""

    async def spawn(
        self,
        agent: AgentDefinition,
        prompt: str,
        *,
        parent: ToolContext,
        model: str | None = None,
        extra_tools: Sequence[Tool] = (),
    ) -> AgentResult:
        """Run ``agent`` on ``prompt`` as a child of ``parent``: one level deeper, under the
        parent's policy restricted to the child (never looser)."""
        ...

    def emit(self, kind: str, data: Mapping[str, Any]) -> None:
        """Send a progress event to the run's event sink (failures of the sink are ignored)."""
        ...

    async def check_permission(
        self, tool: Tool, input: Mapping[str, Any], ctx: ToolContext
    ) -> Decision:
        """Would the run's policy let ``tool`` run with ``input`` (asking, if it asks)?"""
        ...


def resolve_path(cwd: Path, path: str) -> Path:
    """``path`` made absolute from ``cwd`` (``~`` expanded), links resolved, now."""
    p = Path(os.path.expanduser(path))
    if not p.is_absolute():
        p = cwd / p
    return p.resolve()


#: the paths of the call being judged and run: (cwd, path as given) -> its one resolution
_PINNED: contextvars.ContextVar[Mapping[tuple[str, str], Path] | None] = \
    contextvars.ContextVar("subagents_pinned_paths", default=None)


@dataclass(slots=True, kw_only=True)
class ToolContext:
    """What a tool may know about the run calling it.

    ``delegate`` (the hosting run, see :class:`Delegate`), ``depth`` and ``children`` exist for
    delegation (``Task``): a child run started with ``parent=ctx`` is one level deeper, and
    its result is appended to ``ctx.children``, which the runner copies into
    ``AgentResult.children``.  ``runner=`` is the former name of ``delegate`` and still
    accepted.
    """

    cwd: Path
    agent_name: str = ""
    model: str = ""
    run_id: str = ""
    depth: int = 0
    policy: PermissionPolicy | None = None
    processes: ProcessRegistry = field(default_factory=ProcessRegistry)
    todos: list[dict[str, Any]] = field(default_factory=list)
    children: list[AgentResult] = field(default_factory=list)
    transcript: Transcript | None = None
    delegate: Delegate | None = None
    runner: InitVar[Delegate | None] = None
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self, runner: Delegate | None) -> None:
        if self.delegate is None:
            self.delegate = runner

    def resolve(self, path: str) -> Path:
        """An absolute, symlink-resolved path; relative paths are taken from ``cwd``.  Inside
        :meth:`resolved_once`, a pinned path comes back as it was resolved then."""
        pinned = _PINNED.get()
        if pinned is not None:
            hit = pinned.get((str(self.cwd), path))
            if hit is not None:
                return hit
        return resolve_path(self.cwd, path)

    @contextlib.contextmanager
    def resolved_once(self, paths: Sequence[object]) -> Iterator[None]:
        """Resolve ``paths`` now and let :meth:`resolve` answer them so until the block ends
        (in this task and the worker threads it starts): what the permission policy judged
        is what the tool opens.  A path that cannot be resolved is left to fail later, as
        before."""
        pins: dict[tuple[str, str], Path] = {}
        for raw in paths:
            if isinstance(raw, str):
                with contextlib.suppress(OSError, RuntimeError, ValueError):
                    pins[(str(self.cwd), raw)] = resolve_path(self.cwd, raw)
        token = _PINNED.set(pins)
        try:
            yield
        finally:
            _PINNED.reset(token)

    def roots(self) -> tuple[Path, ...]:
        """The folders this run may write in (the working folder, the policy's writable
        folders) that exist, resolved: the roots file tools open paths beneath (a writable
        folder not made yet is reached from a root above it, and made on the way)."""
        dirs = self.policy.writable_dirs if self.policy is not None else ()
        out: list[Path] = []
        for folder in (self.cwd, *dirs):
            with contextlib.suppress(OSError, RuntimeError, ValueError):
                real = Path(folder).resolve()
                if real.is_dir():
                    out.append(real)
        return tuple(out)

    def root_of(self, path: Path) -> Path:
        """The deepest of :meth:`roots` that holds ``path`` (resolved), else ``/`` (a read the
        user approved outside them): the folder ``path`` is opened beneath."""
        inside = [r for r in self.roots() if path == r or path.is_relative_to(r)]
        return max(inside, key=lambda r: len(r.parts)) if inside else Path(path.anchor or "/")


class Tool(ABC):
    """A tool the model can call: an object with a name, a typed input schema and ``run``.

    ``name``, ``description``, ``input_schema``, ``read_only`` and ``edits_files`` are plain
    attributes: a subclass may give them as class attributes (the built-ins do) or set them
    per instance in ``__init__`` (MCP tools, one tool per agent), so no class is made at run
    time for a tool.
    """

    name: str = ""
    description: str = ""
    input_schema: Mapping[str, Any] = {"type": "object", "properties": {}}
    read_only: bool = False
    edits_files: bool = False  # acceptEdits approves these inside the working folder

    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, self.description, self.input_schema)

    def validate(self, input: Mapping[str, Any]) -> str | None:
        """An error message if ``input`` does not match the schema, else ``None``."""
        return validate_input(input, self.input_schema)

    def check_input(self, input: object) -> Mapping[str, Any]:
        """``input`` if this tool can run with it; else :class:`ToolInputError` whose message
        is Claude Code's ``InputValidationError`` shape (one line per problem)."""
        if not isinstance(input, Mapping):
            raise ToolInputError(input_validation_error(
                self.name, [f"The input must be an object, provided as `{_js_type(input)}`"]))
        issues = input_issues(input, self.input_schema)
        if issues:
            raise ToolInputError(input_validation_error(self.name, issues))
        return input

    def write_paths(self, input: Mapping[str, Any]) -> Sequence[str]:
        """Paths this call would write to (for the working-folder check)."""
        return ()

    def read_paths(self, input: Mapping[str, Any]) -> Sequence[str]:
        """Paths this call would read (reads outside the working folders need permission)."""
        return ()

    @abstractmethod
    async def run(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput: ...


# Blocking tools get their own pool rather than the loop's default executor, whose size
# (cpu_count + 4) would serialise ten parallel calls on a small machine.
_POOL_SIZE = 32


@functools.cache
def _tool_pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=_POOL_SIZE, thread_name_prefix="subagents-tool")


class BlockingTool(Tool):
    """A tool whose work is synchronous; it runs in a worker thread."""

    async def run(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        loop = asyncio.get_running_loop()
        call = functools.partial(contextvars.copy_context().run, self.call, input, ctx)
        return await loop.run_in_executor(_tool_pool(), call)

    @abstractmethod
    def call(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput: ...


_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "object": (dict, Mapping),
    "array": (list, tuple),
    "null": (type(None),),
}


def _type_ok(value: Any, expected: str | Sequence[str]) -> bool:
    names = [expected] if isinstance(expected, str) else list(expected)
    for name in names:
        kinds = _TYPES.get(name)
        if kinds is None:
            return True  # unknown type keyword: do not judge
        # bool is an int in Python but not an integer/number in JSON
        if name in ("integer", "number") and isinstance(value, bool):
            continue
        if name == "integer" and isinstance(value, float) and value.is_integer():
            return True
        if isinstance(value, kinds):
            return True
    return False


def validate_input(value: Any, schema: Mapping[str, Any], where: str = "input") -> str | None:
    """Check ``value`` against the JSON Schema subset tools use; first problem or ``None``."""
    expected = schema.get("type")
    if expected is not None and not _type_ok(value, expected):
        shown = expected if isinstance(expected, str) else " or ".join(expected)
        return f"{where} must be {shown}, got {_json_type(value)}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{where} must be one of {', '.join(repr(v) for v in schema['enum'])}"
    if isinstance(value, Mapping):
        props: Mapping[str, Any] = schema.get("properties", {})
        for key in schema.get("required", ()):
            if key not in value:
                return f"{where} is missing required field {key!r}"
        for key, item in value.items():
            sub = props.get(key)
            if sub is None:
                if schema.get("additionalProperties") is False:
                    allowed = ", ".join(props) or "none"
                    return f"{where} has unknown field {key!r} (allowed: {allowed})"
                continue
            label = key if where == "input" else f"{where}.{key}"
            problem = validate_input(item, sub, label)
            if problem:
                return problem
    elif isinstance(value, (list, tuple)):
        if "minItems" in schema and len(value) < schema["minItems"]:
            return f"{where} needs at least {schema['minItems']} item(s)"
        items = schema.get("items")
        if isinstance(items, Mapping):
            for i, item in enumerate(value):
                problem = validate_input(item, items, f"{where}[{i}]")
                if problem:
                    return problem
    elif isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            return f"{where} must not be empty" if schema["minLength"] == 1 else (
                f"{where} must have at least {schema['minLength']} characters"
            )
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            return f"{where} must be >= {schema['minimum']}"
        if "maximum" in schema and value > schema["maximum"]:
            return f"{where} must be <= {schema['maximum']}"
    return None


def input_validation_error(tool: str, issues: Sequence[str]) -> str:
    """Claude Code's shape for input that does not match a tool's schema."""
    head = "issue" if len(issues) == 1 else "issues"
    return (f"InputValidationError: {tool} failed due to the following {head}:\n"
            + "\n".join(issues))


def _printable(key: str) -> str:
    """A key the model made up, on one line: a newline in it would split the issue list."""
    return key if key.isprintable() else key.encode("unicode_escape").decode("ascii")


def input_issues(value: Mapping[str, Any], schema: Mapping[str, Any]) -> list[str]:
    """Every problem of a tool call's arguments, in Claude Code's words for them: missing
    required parameters first, then unexpected ones, then wrong types or values."""
    props: Mapping[str, Any] = schema.get("properties", {})
    issues = [f"The required parameter `{k}` is missing"
              for k in schema.get("required", ()) if k not in value]
    if schema.get("additionalProperties") is False:
        issues += [f"An unexpected parameter `{_printable(k)}` was provided" for k in value
                   if k not in props]
    for key, item in value.items():
        sub = props.get(key)
        if sub is None:
            continue
        expected = sub.get("type")
        if expected is not None and not _type_ok(item, expected):
            shown = expected if isinstance(expected, str) else " or ".join(expected)
            shown = "number" if shown == "integer" and not isinstance(item, (int, float)) else shown
            issues.append(f"The parameter `{key}` type is expected as `{shown}` but provided "
                          f"as `{_js_type(item)}`")
            continue
        problem = validate_input(item, sub, key)
        if problem:
            issues.append(f"The parameter `{key}` is invalid: {problem}")
    return issues


def _js_type(value: Any) -> str:
    """The type name Claude Code (JavaScript) reports: ``number`` for any number."""
    kind = _json_type(value)
    return "number" if kind == "integer" else kind


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, (list, tuple)):
        return "array"
    return type(value).__name__
