"""Reduce the requests of one runtime run to structure: no harness prose survives.

A run's requests are grouped into *threads* by the markers of
:mod:`subagents.conformance.runtime_cases`: ``main`` and ``child:<agent>`` (a request carrying
neither is ``side``).  From them come *aspects*, flat ``name -> JSON value`` pairs that the
comparison checks one by one:

``params``  ``<thread>.model``, ``.max_tokens``, ``.thinking`` (its type), ``.effort``,
            ``.tool_choice`` of the thread's first request;
``context`` ``<thread>.context.<kind>``: where each kind of context sits in the first
            request (``system``, ``first-user``, ``system-message``, ``tool:<Name>``).  Kinds
            are recognised by content this project wrote or knows: ``claude-md`` (the rule
            marker of CLAUDE.md), ``git-status`` (the branch or commit marker), ``environment``
            (the project path), ``date`` (today), ``model-id`` (the request's model id),
            ``agent-listing`` (a ``- code-reviewer: ...`` line), ``deferred-tools`` (lines that
            are bare tool names, or a tool description naming two or more deferred tools),
            ``agent-body`` (the agent file's body marker), ``prompt`` (the scenario's prompt
            marker), ``invocation`` (an agent named outside the
            listing and the prompt);
``tools``   ``<thread>.tool.<Name>``: true for each tool the first request offers;
``schemas`` ``<thread>.schema.<Tool>.<field>``: ``required`` or ``optional`` for each input
            field of the core tools (Agent, Task, Read, Write, Edit, Bash, Grep, Glob,
            SendMessage);
``results`` ``result.<label>.<property>`` for each scripted tool call's result:
            ``is_error``, ``form`` (a string or content blocks), ``tags`` (the XML-like tags in
            it, in order), ``shape`` (its lines classified: numbered, padded, blank, tag, text,
            runs collapsed), ``lines`` and ``text`` (a SHA-1 of the text with paths, ids,
            dates and numbers masked: equal only when the format is);
``turns``   ``<thread>.requests`` (how many requests each thread sent), ``outcome.exit_code``,
            ``outcome.stop`` (success, max_turns or error);
``notices`` ``main.notices``: the user messages that arrive between turns (background
            notifications), as tags and kinds;
``invocation`` ``main.tool_choice`` and ``main.context.invocation``.

Besides the aspects, ``info`` keeps what is measured but not compared: each thread's first
request size in characters and its layout (block by block: location, kinds, size).

Design decision: only names, kinds, counts, sizes and hashes are stored.  A text of Claude
Code's own (its prompts, tool descriptions, notes and error wording) never is: a paragraph
that none of the kinds above recognises is ``other``, and a tool result keeps only its shape,
its tags and a hash.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import platform
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from subagents.conformance.runtime_cases import (
    AGENTS,
    BRANCH,
    CHILD_REPORT,
    COMMIT_MARKER,
    MAIN,
    RULE_MARKER,
    SUB,
    Scenario,
    agent_id_in,
    conversation_marker,
)

if TYPE_CHECKING:
    from subagents.conformance.runtime_record import Capture

__all__ = ["CORE_TOOLS", "classify", "fingerprint", "mask", "result_aspects"]

# Tools whose schema is compared (the others are compared by name only).
CORE_TOOLS = ("Agent", "Task", "Read", "Write", "Edit", "Bash", "Grep", "Glob", "SendMessage")
_KNOWN_TOOL_NAMES = frozenset({
    "Agent", "Task", "Bash", "Edit", "Read", "Write", "Grep", "Glob", "LS", "MultiEdit",
    "TodoWrite", "WebFetch", "WebSearch", "NotebookEdit", "SendMessage", "Monitor", "TaskStop",
    "CronCreate", "CronDelete", "CronList", "EnterWorktree", "ExitWorktree", "ToolSearch",
    "Skill", "ListAgents", "ReportFindings", "ScheduleWakeup", "Workflow", "TaskCreate",
    "TaskGet", "TaskList", "TaskUpdate", "TaskOutput", "KillShell", "BashOutput",
})
# Tools Claude Code 2.1.332 defers (loads through ToolSearch); a description naming two or more
# of them is where the deferred tools are announced.
_DEFERRED_NAMES = ("WebFetch", "WebSearch", "NotebookEdit", "SendMessage", "Monitor", "TaskStop",
                   "CronCreate", "CronDelete", "CronList", "EnterWorktree", "ExitWorktree")
_LISTING = re.compile(r"^\s*-\s*(" + "|".join(re.escape(n) for n in AGENTS) + r")\s*:", re.M)
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9_-]*)(?:\s[^<>]*)?>")
_PLATFORM = platform.system().lower() or "linux"
_NUMBERED = re.compile(r"^(\s*)(\d+)(\t|→)")


# --- text kinds -------------------------------------------------------------------------------


def _paragraph_kinds(text: str, ctx: Mapping[str, str]) -> set[str]:
    kinds: set[str] = set()
    if RULE_MARKER in text:
        kinds.add("claude-md")
    if BRANCH in text or COMMIT_MARKER in text:
        kinds.add("git-status")
    if ctx["project"] and ctx["project"] in text and _PLATFORM in text.lower():
        kinds.add("environment")
    if ctx["date"] in text:
        kinds.add("date")
    if ctx["model"] and ctx["model"] in text:
        kinds.add("model-id")
    if "RT-BODY-" in text:
        kinds.add("agent-body")
    if MAIN in text or SUB in text:
        kinds.add("prompt")
    if CHILD_REPORT in text:
        kinds.add("child-report")
    listing = bool(_LISTING.search(text))
    if listing:
        kinds.add("agent-listing")
    bare = [line.strip() for line in text.splitlines() if line.strip() in _KNOWN_TOOL_NAMES]
    if len(bare) >= 2:
        kinds.add("deferred-tools")
    if not kinds & {"agent-listing", "prompt", "agent-body"} and any(n in text for n in AGENTS):
        kinds.add("invocation")
    return kinds


def classify(text: str, ctx: Mapping[str, str]) -> list[str]:
    """The kinds of one text block (``reminder`` when wrapped as a system reminder)."""
    kinds: set[str] = set()
    body = text.strip()
    if body.startswith("<system-reminder>"):
        kinds.add("reminder")
    unknown = False
    for paragraph in re.split(r"\n\s*\n", body):
        found = _paragraph_kinds(paragraph, ctx)
        kinds |= found
        if not found and paragraph.strip() and not _only_tags(paragraph):
            unknown = True
    if unknown:
        kinds.add("other")
    return sorted(kinds)


def _only_tags(text: str) -> bool:
    return not _TAG.sub("", text).strip()


# --- masking ----------------------------------------------------------------------------------


def mask(text: str, ctx: Mapping[str, str]) -> str:
    """The text with its variable parts replaced: paths, ids, dates, durations, numbers."""
    out = text
    for key, token in (("project", "<proj>"), ("home", "<home>")):
        if ctx.get(key):
            out = out.replace(ctx[key], token)
    out = re.sub(r"<home>[^\s'\";,<>)]*", "<home-path>", out)  # the harness's own files
    agent_id = agent_id_in(out)
    if agent_id:
        out = re.sub(re.escape(agent_id[:6]) + r"\w*", "<id>", out)  # the id and its short form
    out = re.sub(r"(?<![\w<])/tmp/[^\s'\";,<>)]+", "<tmp>", out)
    out = re.sub(r"\b[0-9a-f]{6,}\b", "<id>", out)  # short hex ids (rarely an English word)
    out = re.sub(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", "<id>", out)
    out = re.sub(r"\b(?=[0-9a-z]*[0-9])(?=[0-9a-z]*[a-z])[0-9a-z]{12,}\b", "<id>", out)
    out = out.replace(ctx["date"], "<date>")
    return re.sub(r"\d+(\.\d+)?", "<n>", out)


def _line_class(line: str) -> str:
    numbered = _NUMBERED.match(line)
    if numbered:
        return "num-padded" if numbered.group(1) else "num"
    if not line.strip():
        return "blank"
    if _TAG.match(line.strip()):
        return "tag"
    return "text"


def _shape(text: str) -> list[str]:
    shape: list[str] = []
    for line in text.split("\n"):
        kind = _line_class(line)
        if not shape or shape[-1] != kind:
            shape.append(kind)
    return shape[:16]


def _tags(text: str) -> list[str]:
    seen: list[str] = []
    for closing, name in _TAG.findall(text):
        if not closing and name not in seen:
            seen.append(name)
    return seen


def _content_text(content: Any) -> tuple[str, str]:
    """(form, text) of a tool result's content."""
    if isinstance(content, str):
        return "string", content
    if isinstance(content, list):
        kinds = [str(b.get("type")) for b in content if isinstance(b, dict)]
        text = "\n".join(str(b.get("text", "")) for b in content
                         if isinstance(b, dict) and b.get("type") == "text")
        return "blocks:" + ",".join(kinds), text
    return "none", ""


def result_aspects(block: Mapping[str, Any], ctx: Mapping[str, str]) -> dict[str, Any]:
    """The compared properties of one tool_result block."""
    form, text = _content_text(block.get("content"))
    return {
        "is_error": bool(block.get("is_error")),
        "form": form,
        "tags": _tags(text),
        "shape": _shape(text),
        "lines": len(text.split("\n")) if text else 0,
        "text": hashlib.sha1(mask(text, ctx).encode("utf-8")).hexdigest()[:12],
    }


# --- requests ---------------------------------------------------------------------------------


def _message_list(body: Mapping[str, Any]) -> list[Any]:
    messages = body.get("messages")
    return messages if isinstance(messages, list) else []


def _blocks(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [str(b.get("text", "")) for b in value
                if isinstance(b, dict) and b.get("type") == "text"]
    return []


def _layout(body: Mapping[str, Any], ctx: Mapping[str, str]) -> list[dict[str, Any]]:
    """Every text block of a first request: location, kinds, size."""
    rows: list[dict[str, Any]] = []
    for text in _blocks(body.get("system")):
        rows.append({"at": "system", "kinds": classify(text, ctx), "size": len(text)})
    messages = _message_list(body)
    first_user = True
    for message in messages:
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        if role == "user":
            where = "first-user" if first_user else "user"
            first_user = False
        elif role == "system":
            where = "system-message"
        else:
            where = str(role)
        for text in _blocks(message.get("content")):
            rows.append({"at": where, "kinds": classify(text, ctx), "size": len(text)})
    for tool in body.get("tools") or []:
        if not isinstance(tool, dict):
            continue
        described = str(tool.get("description", ""))
        kinds = ["agent-listing"] if _LISTING.search(described) else []
        if not kinds and sum(1 for name in _DEFERRED_NAMES if name in described) >= 2:
            kinds.append("deferred-tools")  # a tool that names the tools it can load
        if kinds:
            rows.append({"at": f"tool:{tool.get('name')}", "kinds": kinds,
                         "size": len(described)})
    return rows


def _tool_names(body: Mapping[str, Any]) -> list[str]:
    return sorted(str(t.get("name")) for t in body.get("tools") or [] if isinstance(t, dict))


def _schema(body: Mapping[str, Any], name: str) -> dict[str, str]:
    """A tool's input fields: ``required`` or ``optional`` each (empty when not offered)."""
    for tool in body.get("tools") or []:
        if isinstance(tool, dict) and tool.get("name") == name:
            schema = tool.get("input_schema") or {}
            required = set(schema.get("required") or [])
            return {str(f): "required" if f in required else "optional"
                    for f in sorted((schema.get("properties") or {}).keys())}
    return {}


def _tool_choice(body: Mapping[str, Any]) -> str | None:
    choice = body.get("tool_choice")
    if not isinstance(choice, dict):
        return None
    kind = str(choice.get("type"))
    return f"{kind}:{choice['name']}" if choice.get("name") else kind


def _threads(requests: Iterable[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    threads: dict[str, list[Mapping[str, Any]]] = {}
    for body in requests:
        kind, _script, agent = conversation_marker(body)
        key = f"child:{agent}" if kind == "child" else kind
        threads.setdefault(key, []).append(body)
    return threads


def _ctx(capture: Capture, body: Mapping[str, Any]) -> dict[str, str]:
    return {"project": capture.project, "home": capture.home,
            "date": _dt.date.today().isoformat(), "model": str(body.get("model") or "")}


def _first_results(requests: Sequence[Mapping[str, Any]]
                   ) -> dict[str, tuple[Mapping[str, Any], Mapping[str, Any]]]:
    """tool_use_id -> (the result block, the request that first carried it)."""
    found: dict[str, tuple[Mapping[str, Any], Mapping[str, Any]]] = {}
    for body in requests:
        for message in body.get("messages") or []:
            content = message.get("content") if isinstance(message, dict) else None
            for block in content if isinstance(content, list) else []:
                if (isinstance(block, dict) and block.get("type") == "tool_result"
                        and str(block.get("tool_use_id")) not in found):
                    found[str(block.get("tool_use_id"))] = (block, body)
    return found


def _notices(body: Mapping[str, Any], ctx: Mapping[str, str]) -> list[dict[str, Any]]:
    """User text after the first message that is not a tool result: tags and kinds."""
    out: list[dict[str, Any]] = []
    messages = _message_list(body)
    for message in messages[1:]:
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") ==
                                             "tool_result" for b in content):
            continue
        for text in _blocks(content):
            out.append({"tags": _tags(text), "kinds": classify(text, ctx)})
    return out


def fingerprint(scenario: Scenario, capture: Capture) -> dict[str, Any]:
    """``{"about", "aspects", "info", "problems"}`` for one run (see module docstring)."""
    want = scenario.aspects
    aspects: dict[str, Any] = {}
    info: dict[str, Any] = {"requests": len(capture.requests), "threads": {}}
    threads = _threads(capture.requests)
    for thread, bodies in sorted(threads.items()):
        if thread == "side":
            info["side_requests"] = len(bodies)
            continue
        first = bodies[0]
        ctx = _ctx(capture, first)
        layout = _layout(first, ctx)
        info["threads"][thread] = {
            "first_request_chars": len(json.dumps(first, ensure_ascii=False)),
            "requests": len(bodies), "stream": bool(first.get("stream")),
            "layout": layout,
        }
        if "params" in want:
            thinking = first.get("thinking")
            output = first.get("output_config")
            aspects[f"{thread}.model"] = first.get("model")
            aspects[f"{thread}.max_tokens"] = first.get("max_tokens")
            aspects[f"{thread}.thinking"] = thinking.get("type") \
                if isinstance(thinking, dict) else None
            aspects[f"{thread}.effort"] = output.get("effort") \
                if isinstance(output, dict) else None
            aspects[f"{thread}.tool_choice"] = _tool_choice(first)
        if "context" in want or ("invocation" in want and thread == "main"):
            where: dict[str, set[str]] = {}
            for row in layout:
                for kind in row["kinds"]:
                    if kind not in ("other", "reminder"):
                        where.setdefault(kind, set()).add(row["at"])
            kinds = _CONTEXT_KINDS if "context" in want else ("invocation",)
            for kind in kinds:
                aspects[f"{thread}.context.{kind}"] = sorted(where.get(kind, ()))
        if "invocation" in want and thread == "main":
            aspects["main.tool_choice"] = _tool_choice(first)
        if "tools" in want:
            for name in _tool_names(first):
                aspects[f"{thread}.tool.{name}"] = True
        if "schemas" in want and thread == "main":
            for name in CORE_TOOLS:
                for field_name, status in _schema(first, name).items():
                    aspects[f"{thread}.schema.{name}.{field_name}"] = status
        if "turns" in want:
            aspects[f"{thread}.requests"] = len(bodies)
        if "notices" in want:
            aspects[f"{thread}.notices"] = _notices(bodies[-1], _ctx(capture, bodies[-1]))
    if "results" in want:
        for tool_id, (block, body) in sorted(_first_results(capture.requests).items()):
            if not tool_id.startswith("toolu_rt_") or tool_id.startswith("toolu_rt_load_"):
                continue  # not scripted here, or scaffolding (loading a deferred tool)
            label = tool_id.removeprefix("toolu_rt_")
            for key, value in result_aspects(block, _ctx(capture, body)).items():
                aspects[f"result.{label}.{key}"] = value
    if "turns" in want:
        aspects["outcome.exit_code"] = capture.exit_code
        aspects["outcome.stop"] = capture.stop
    return {"about": scenario.about, "aspects": dict(sorted(aspects.items())), "info": info,
            "problems": list(capture.problems)}


_CONTEXT_KINDS = ("claude-md", "git-status", "environment", "date", "model-id", "agent-listing",
                  "deferred-tools", "agent-body", "prompt")
