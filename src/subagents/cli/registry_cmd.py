"""``subagents list``, ``show``, ``doctor`` and ``new``: the registry on the command line.

Design notes
------------
* ``list --format json`` is a contract (DESIGN.md): ``agents`` (name, description, source,
  path, model, tools), ``shadowed`` (name, source, path — plus ``shadowed_by``) and
  ``diagnostics`` (the ``validate`` shape).  ``source`` is managed|cli|project|user|plugin, so
  the built-in agents are left out unless ``--include-builtin`` asks for them.  ``path`` is
  spelled as ``validate`` spells it (relative to the current folder, ``../`` at most once,
  else absolute), ``null`` for ``--agents``; diagnostics use the same spelling.
* Text output is a plain aligned table (stable for scripts and pipes); ``rich`` is imported only
  when stdout is a terminal.
* ``show`` explains instead of failing quietly: an unknown name exits 1 with the file that
  tried to define it and why it is not loaded, or the closest names, and always the
  general-purpose fallback.  ``doctor`` lives in
  :mod:`subagents.cli.doctor_cmd` (re-exported here for the command table).
* ``new`` writes from the packaged templates: Claude files keep the template's
  comments and layout with only the ``name:`` line replaced; ``codex-md`` files go through the
  Codex Markdown writer and ``codex`` (the Codex CLI's TOML) through the Codex harness's writer,
  whose notes (trust, tools it cannot express) are printed.  Other harnesses get a usage error
  pointing at ``convert --to``: one writer per harness, no second template set.  Folders
  are created with mode 755.  The write is atomic *and* refuses to overwrite: temp file +
  fsync, then ``os.link`` to the final name (fails if it exists, so two concurrent ``new``
  calls cannot both win), then the temp name is removed.  Where hard links are not
  supported the name is claimed with ``O_EXCL`` and the file renamed over it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any

import click

from subagents.cli.doctor_cmd import doctor
from subagents.cli.options import (
    RegistryOptions,
    cwd_option,
    dialect_option,
    fail,
    fail_json,
    format_option,
    option_group,
    report_broken_scopes,
)
from subagents.definition import AgentDefinition, Dialect, Scope
from subagents.diagnostics import Severity
from subagents.errors import AgentNotFoundError, DefinitionError
from subagents.fs import display_path, link_escape
from subagents.harnesses.layout import find_git_root
from subagents.names import CODEX_NAME, PORTABLE_NAME
from subagents.registry.core import AgentRegistry


def safe_echo(text: str = "", *, err: bool = False) -> None:
    """``show``'s text output is for people, piped or not: every line made terminal-safe
    (``--format json`` is for programs and escapes in JSON's own way)."""
    from subagents.terminal import echo

    echo(text, err=err, always=True)


__all__ = ["FALLBACK", "doctor", "list_agents", "new", "not_found_lines", "show"]

TEMPLATES = (
    "code-reviewer",
    "security-auditor",
    "implementer-tester",
    "researcher",
    "architect-review",
)
_FOLDER_ERRORS = ("SA603", "SA605")  # a scope folder that is a file or cannot be read
_CODEX_KEYWORDS = {
    "code-reviewer": ("review", "diff", "lint"),
    "security-auditor": ("security", "audit", "vulnerability"),
    "implementer-tester": ("implement", "feature", "test"),
    "researcher": ("research", "explain", "where"),
    "architect-review": ("architecture", "design", "adr"),
}


def _tools_text(tools: tuple[str, ...] | None) -> str:
    return "(all)" if tools is None else (", ".join(tools) or "(none)")


def _table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)
    ]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip()]
    for row in rows:
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    return "\n".join(lines)


def _clip(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


@click.command("list")
@option_group(RegistryOptions)
@format_option("text", "json")
@click.option(
    "--include-builtin",
    is_flag=True,
    help="Also list the built-in agents (general-purpose, Explore, Plan).",
)
def list_agents(
    registry: RegistryOptions,
    output_format: str,
    include_builtin: bool,
) -> None:
    """List the agents this directory sees, which scope each comes from, and what is hidden.

    Scopes, highest first: managed, cli (--agents), project (.claude/agents here and in every
    parent up to the git root, closest first), user (~/.claude/agents), plugin.  A name defined
    in a higher scope shadows the lower ones; files that failed to load are listed at the end
    (run `subagents doctor` for the full explanation).  Exits 1 when a scope folder cannot be
    read (e.g. .claude/agents is a file), else 0.

    --dialect gemini (codex, opencode, ...) lists the agents that harness loads, as it loads
    them; --dialect all lists every harness with folders here, each agent tagged with its
    harness and file, and the files each harness skips with the reason.
    """
    if registry.every_harness:
        _list_every(registry, output_format, include_builtin)
        return
    reg = registry.load()
    listed = reg.list(include_builtin=include_builtin)
    shadowed = reg.shadowed(include_builtin=include_builtin)
    diags = reg.diagnostics()
    # A scope folder that cannot be read at all (a file, unreadable): the listing is not what
    # the directory was meant to see, so the command fails -- as validate, fix and doctor do.
    broken_scope = any(
        d.rule in _FOLDER_ERRORS and d.severity is Severity.ERROR for d in diags
    )
    if output_format == "json":
        click.echo(
            json.dumps(
                {
                    "agents": [e.to_dict() for e in listed],
                    "shadowed": [e.to_shadow_dict() for e in shadowed],
                    "diagnostics": [d.to_dict() for d in diags],
                },
                indent=2,
            )
        )
        if broken_scope:
            sys.exit(1)
        return
    headers = ["NAME", "SOURCE", "MODEL", "TOOLS", "PATH"]
    rows = [
        [
            e.name,
            e.source.value,
            e.model or "inherit",
            _clip(_tools_text(e.tools), 40),
            e.display_path or e.origin.label,
        ]
        for e in listed
    ]
    if sys.stdout.isatty() and _has_rich():  # pragma: no cover - needs a terminal
        _rich_table(headers, rows)
    else:
        click.echo(_table(headers, rows) if rows else "no agents found")
    if not include_builtin:
        click.echo(
            "(+ built-in: general-purpose, Explore, Plan unless overridden; "
            "--include-builtin lists them)"
        )
    if shadowed:
        click.echo(f"\nshadowed ({len(shadowed)}):")
        for e in shadowed:
            by = e.shadowed_by
            why = f"by {by.describe_origin()}" if by else "by a clash in a higher scope"
            click.echo(f"  {e.name}  {e.describe_origin()}  ({why})")
    errors = [d for d in diags if d.severity is Severity.ERROR]
    if errors:
        noun = "error" if len(errors) == 1 else "errors"
        click.echo(f"\nnot loaded ({len(errors)} {noun}; `subagents doctor` explains):")
        for d in errors:
            click.echo("  " + d.format_text().split("\n")[0])
    if broken_scope:
        sys.exit(1)


def _list_every(registry: RegistryOptions, output_format: str, include_builtin: bool) -> None:
    """``list --dialect all``: one group per harness present."""
    from subagents.cli.harness_text import every_harness_json, harness_lines, harness_reports

    regs = registry.load_every()
    broken_scope = any(
        d.rule in _FOLDER_ERRORS and d.severity is Severity.ERROR
        for reg in regs for d in reg.diagnostics()
    )
    if output_format == "json":
        click.echo(json.dumps(every_harness_json(regs, include_builtin=include_builtin),
                              indent=2))
        if broken_scope:
            sys.exit(1)
        return
    if not regs:
        click.echo("no agents found: no harness has agent folders here or in your home folder")
    for index, report in enumerate(harness_reports(regs)):
        if index:
            click.echo("")
        lines = harness_lines(report, names=False)
        click.echo(lines[0] + (":" if report.loads else ""))
        rows = [
            [e.name, e.source.value, e.model or "inherit", _clip(_tools_text(e.tools), 40),
             e.display_path or e.origin.label]
            for e in report.loads
        ]
        if rows:
            click.echo("\n".join("  " + line for line in
                                 _table(["NAME", "SOURCE", "MODEL", "TOOLS", "PATH"],
                                        rows).splitlines()))
        for line in lines[1:]:
            click.echo(line)
    if broken_scope:
        sys.exit(1)


def _has_rich() -> bool:
    import importlib.util

    return importlib.util.find_spec("rich") is not None


def _rich_table(headers: list[str], rows: list[list[str]]) -> None:  # pragma: no cover
    from rich.console import Console
    from rich.table import Table

    table = Table(*headers, box=None, header_style="bold")
    for row in rows:
        table.add_row(*row)
    Console().print(table)


FALLBACK = (
    "instead: the built-in general-purpose agent can do the task -- `subagents run PROMPT` "
    "without --agent lets the main thread handle it (or use subagent_type "
    '"general-purpose" in the Task tool).'
)


def not_found_lines(reg: AgentRegistry, name: str) -> list[str]:
    """What to tell a user who asked for an agent the directory does not have:
    why (a file that tried and failed, or the closest names) and the general-purpose option."""
    expl = reg.explain(name)
    lines: list[str] = []
    if expl.failed_files:
        lines.append(f"error: agent {name!r} is not loaded:")
        for path, diags in expl.failed_files:
            first = next((d for d in diags if d.severity is Severity.ERROR), None)
            if first is None:
                continue
            at = f":{first.line}" if first.line else ""
            lines.append(f"  {path}{at}: {first.rule} {first.message}")
            if first.hint:
                lines.append(f"    fix: {first.hint}")
    else:
        lines.append(f"error: no agent named {name!r} in this directory")
        suggestions = reg.suggest(name)
        if suggestions:
            lines.append("  did you mean: " + ", ".join(suggestions))
    lines.append("  " + FALLBACK)
    lines.append(f"  `subagents list` shows every agent here; `subagents doctor {name}` explains.")
    return lines


def _not_found(reg: AgentRegistry, name: str) -> None:
    for line in not_found_lines(reg, name):
        click.echo(line, err=True)
    sys.exit(1)


def _field_lines(d: AgentDefinition) -> list[tuple[str, str]]:
    out = [("model", d.model or "inherit"), ("tools", _tools_text(d.tools))]
    optional: list[tuple[str, Any]] = [
        ("disallowedTools", ", ".join(d.disallowed_tools) if d.disallowed_tools else None),
        ("permissionMode", d.permission_mode),
        ("maxTurns", d.max_turns),
        ("skills", ", ".join(d.skills) if d.skills else None),
        ("mcpServers", ", ".join(s.name for s in d.mcp_servers) if d.mcp_servers else None),
        ("hooks", ", ".join(d.hooks) if d.hooks else None),
        ("memory", d.memory),
        ("color", d.color),
        ("effort", d.effort),
        ("isolation", d.isolation),
        ("background", d.background),
        ("keywords", ", ".join(d.keywords) if d.keywords else None),
        ("version", d.version),
        ("tags", ", ".join(d.tags) if d.tags else None),
    ]
    out += [(k, str(v)) for k, v in optional if v is not None]
    return out


def json_fields(d: AgentDefinition) -> dict[str, Any]:
    """The optional fields of an agent as JSON, spelled as in the agent file (``maxTurns``,
    ``permissionMode``, ``disallowedTools``...) and typed as there: numbers are numbers,
    lists are lists, flags are booleans.  Unset fields are left out."""
    values: list[tuple[str, Any]] = [
        ("disallowedTools", list(d.disallowed_tools) if d.disallowed_tools else None),
        ("permissionMode", d.permission_mode),
        ("maxTurns", d.max_turns),
        ("skills", list(d.skills) if d.skills else None),
        ("mcpServers", [s.name for s in d.mcp_servers] if d.mcp_servers else None),
        ("hooks", list(d.hooks) if d.hooks else None),
        ("memory", d.memory),
        ("color", d.color),
        ("effort", d.effort),
        ("isolation", d.isolation),
        ("background", d.background),
        ("initialPrompt", d.initial_prompt),
        ("keywords", list(d.keywords) if d.keywords else None),
        ("version", d.version),
        ("author", d.author),
        ("tags", list(d.tags) if d.tags else None),
    ]
    return {k: v for k, v in values if v is not None}


@click.command()
@click.argument("name")
@option_group(RegistryOptions)
@format_option("text", "json")
@click.option(
    "--prompt/--no-prompt",
    "with_prompt",
    default=False,
    help="Also print the system prompt (the Markdown body).",
)
def show(
    name: str,
    registry: RegistryOptions,
    output_format: str,
    with_prompt: bool,
) -> None:
    """Show one agent: its fields, where it comes from, what it shadows, its usage examples.

    NAME is matched like the Task tool does: exactly, then ignoring case and -, _ and spaces.
    Usage examples come from a `## Usage Examples` section of the prompt or from <example>
    blocks in the description.  An unknown NAME exits 1 with the closest names.
    """
    reg = registry.load()
    try:
        entry = reg.entry(name)
        defn = entry.definition
    except AgentNotFoundError:
        if output_format == "json":
            fail_json(f"no agent named {name!r} in this directory", FALLBACK, 1,
                      suggestions=reg.suggest(name))
        _not_found(reg, name)
        return
    except DefinitionError as exc:
        if output_format == "json":
            fail_json(exc.message, exc.hint, 1,
                      diagnostics=[d.to_dict() for d in exc.diagnostics])
        safe_echo(f"error: {exc}", err=True)
        for d in exc.diagnostics:
            safe_echo("  " + d.format_text().split("\n")[0], err=True)
        sys.exit(1)
    shadowed = reg.explain(entry.name).shadowed
    from subagents.dispatch.examples import usage_examples  # the ones `subagents test` routes

    examples = [e.request for e in usage_examples(defn)]
    if output_format == "json":
        data = entry.to_dict()
        data.update(json_fields(defn))
        data["prompt"] = defn.system_prompt
        data["shadowed"] = [e.to_shadow_dict() for e in shadowed]
        data["examples"] = examples
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
        if report_broken_scopes(reg):
            sys.exit(1)
        return
    safe_echo(f"{entry.name}  ({entry.describe_origin()})")
    safe_echo("")
    for line in _wrap_field("description", defn.description):
        safe_echo(line)
    for key, value in _field_lines(defn):
        safe_echo(f"  {key + ':':<16}{value}")
    if shadowed:
        safe_echo("\nshadows:")
        for e in shadowed:
            safe_echo(f"  {e.describe_origin()}")
    safe_echo(
        "\nusage examples:"
        if examples
        else "\nusage examples: none (add a `## Usage Examples` section to the prompt)"
    )
    for i, ex in enumerate(examples, 1):
        body = ex.strip().replace("\n", "\n     ")
        safe_echo(f"  {i}. {body}")
    if with_prompt:
        safe_echo("\nsystem prompt:\n")
        safe_echo(defn.system_prompt.rstrip())
    if report_broken_scopes(reg):
        sys.exit(1)


def _wrap_field(key: str, value: str) -> list[str]:
    lines = value.strip().splitlines() or [""]
    out = [f"  {key + ':':<16}{lines[0]}"]
    out += [f"  {'':<16}{ln}" for ln in lines[1:]]
    return out


# --------------------------------------------------------------------------- new


def _template_text(template: str) -> str:
    return (resources.files("subagents") / "templates" / f"{template}.md").read_text("utf-8")


def render_template(template: str, name: str, dialect: Dialect = Dialect.CLAUDE) -> str:
    """The text of a new agent file from a packaged template, with ``name`` substituted."""
    text = _template_text(template)
    if dialect is Dialect.CODEX:
        return str(_codex_toml(template, name).text)
    if dialect is Dialect.CODEX_MD:
        from subagents.formats.writers import to_codex_markdown
        from subagents.harnesses.loader import parse_agent_text

        defn = parse_agent_text(text, path=f"{template}.md").definition
        assert defn is not None, f"packaged template {template} does not load"
        # Claude model aliases mean nothing to Codex: omit, so the session model is used.
        return to_codex_markdown(
            defn.evolve(name=name, model=None, keywords=_CODEX_KEYWORDS.get(template, ()))
        )
    new_text, count = re.subn(rf"(?m)^name: {re.escape(template)}$", f"name: {name}", text, count=1)
    assert count == 1, f"packaged template {template} has no name line"
    return new_text


def _codex_toml(template: str, name: str) -> Any:
    """The template as the Codex CLI's TOML agent (a ``WrittenFile``: text and notes)."""
    from subagents.harnesses import get_harness
    from subagents.harnesses.loader import parse_agent_text

    defn = parse_agent_text(_template_text(template), path=f"{template}.md").definition
    assert defn is not None, f"packaged template {template} does not load"
    # Claude model aliases mean nothing to Codex: omit, so the session model is used.
    return get_harness("codex").write(defn.evolve(name=name, model=None))


# `new` writes these; every other harness gets its file from `convert` (one writer per harness)
_NEW_DIALECTS = {Dialect.CLAUDE: (".claude", ".md"), Dialect.CODEX_MD: (".codex", ".md"),
                 Dialect.CODEX: (".codex", ".toml")}


def _make_dirs(folder: Path) -> None:
    """Create missing folders with mode 755, whatever the umask."""
    missing = []
    p = folder
    while not p.exists():
        missing.append(p)
        p = p.parent
    for d in reversed(missing):
        d.mkdir(mode=0o755)
        os.chmod(d, 0o755)


def write_new_file(path: Path, text: str) -> None:
    """Atomic, no-clobber write: temp + fsync, then link to the final name; mode 644."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        try:
            os.link(tmp, path)  # FileExistsError if someone else got there first
        except FileExistsError:
            raise
        except OSError:
            # No hard links here (some network/FUSE filesystems): claim the name with
            # O_EXCL, then rename the complete file over the empty claim.
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
            os.replace(tmp, path)
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    finally:
        with contextlib.suppress(FileNotFoundError):  # gone after the os.replace fallback
            os.unlink(tmp)


@click.command()
@click.argument("name")
@click.option(
    "--template",
    "-t",
    type=click.Choice(TEMPLATES),
    default="code-reviewer",
    show_default=True,
    help="Which template to start from.",
)
@click.option(
    "--scope",
    type=click.Choice(["project", "user"]),
    default="project",
    show_default=True,
    help="project: .claude/agents at the git root (or here); user: ~/.claude/agents.",
)
@dialect_option(help="Which file to write: claude (.claude/agents/NAME.md), codex (the Codex "
                "CLI's .codex/agents/NAME.toml) or codex-md (.codex/agents/NAME.md). For other "
                "harnesses write a claude agent and run `subagents convert --to HARNESS`.")
@cwd_option
@format_option("text", "json")
def new(
    name: str, template: str, scope: str, dialect: Dialect, cwd: Path | None, output_format: str
) -> None:
    """Write a new agent file NAME.md (NAME.toml for codex) from a template, ready to edit.

    The file goes to the project's agents folder (or the user's with --scope user), which is
    created if missing.  With --dialect codex it is the Codex CLI's TOML agent
    (.codex/agents/NAME.toml); codex-md writes the Markdown form some Codex tools read.  An
    existing file, or an agent of the same name in that folder, is never overwritten (exit 1).
    With --format json, prints {"path", "name", "template", "dialect", "scope"}.  Example:

    \b
        subagents new api-reviewer --template code-reviewer
    """
    if dialect not in _NEW_DIALECTS:
        raise click.UsageError(
            f"new writes claude, codex or codex-md agents, not {dialect.value}: write a claude "
            f"agent, then `subagents convert .claude/agents/{name}.md --to {dialect.value}`"
        )
    codex = dialect in (Dialect.CODEX, Dialect.CODEX_MD)
    grammar = CODEX_NAME if codex else PORTABLE_NAME
    if not grammar.matches(name):
        rule = f"{CODEX_NAME.pattern} (Codex)" if codex else PORTABLE_NAME.rule
        raise click.BadParameter(
            f"{name!r} is not a valid agent name: use {rule}", param_hint="NAME"
        )
    base = Path(os.path.abspath(cwd or os.getcwd()))
    dot, suffix = _NEW_DIALECTS[dialect]
    sub = Path(dot) / "agents"
    if scope == "user":
        home = Path(os.environ.get("HOME") or Path.home())
        folder = home / sub
    else:
        folder = (find_git_root(base) or base) / sub
    target = folder / f"{name}{suffix}"
    shown = display_path(target)
    if target.exists() or target.is_symlink():
        fail(output_format, f"{shown} already exists; not overwriting it",
             "pick another NAME or delete the file first")
    wanted = Scope.USER if scope == "user" else Scope.PROJECT
    for e in _defined_in(base, dialect):
        if (
            e.name == name
            and e.source is wanted
            and e.path is not None
            and folder in e.path.parents
        ):
            fail(output_format, f"agent {name!r} is already defined in {display_path(e.path)}; "
                 "a second file with that name would clash",
                 "pick another NAME, or edit that file")
    text = render_template(template, name, dialect)
    notes: tuple[str, ...] = _codex_toml(template, name).notes if dialect is Dialect.CODEX else ()
    if folder.exists() and not folder.is_dir():
        fail(output_format, f"{display_path(folder)} exists and is not a folder",
             "agents live in a folder of .md files; move that file away")
    escape = link_escape(target, find_git_root(base) or base) if scope != "user" else None
    if escape:
        fail(output_format, f"cannot write {shown}: {escape}",
             "agents of this project are written inside it; remove the link or use "
             "--scope user")
    try:
        _make_dirs(folder)
        write_new_file(target, text)
    except FileExistsError:
        fail(output_format, f"{shown} already exists; not overwriting it")
    except OSError as exc:
        where = display_path(Path(exc.filename)) if exc.filename else shown
        fail(output_format, f"cannot write {where}: {exc.strerror or exc}",
             "check that the folder is writable by you")
    if output_format == "json":
        click.echo(json.dumps({"path": shown, "name": name, "template": template,
                               "dialect": dialect.value, "scope": scope}, indent=2))
        return
    click.echo(f"wrote {shown} (template {template}, {dialect.value} dialect)")
    for note in notes:
        click.echo(f"note: {note}")
    click.echo(
        "next: edit the description and prompt, then `subagents validate "
        f"{shown}` and `subagents show {name}`"
    )


def _defined_in(base: Path, dialect: Dialect) -> list[Any]:
    """Every agent (winners and shadowed) of ``dialect`` that ``base`` sees -- for ``new``'s
    same-name check.  The Codex CLI's agents are read as Codex reads them, trusted or not."""
    if dialect is Dialect.CODEX:
        from subagents.harnesses.codex import CodexHarness
        from subagents.registry.harness_view import HarnessRegistry

        reg: AgentRegistry = HarnessRegistry(base, harness=CodexHarness(trusted=True))
    else:
        reg = AgentRegistry(base, dialect=dialect)
    reg.load_all()
    return [*reg.list(), *reg.shadowed()]


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
