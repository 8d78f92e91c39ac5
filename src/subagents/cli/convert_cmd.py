"""``subagents convert``: read agents in any dialect, write them in another.

Design notes
------------
* Inputs are files or folders (searched recursively as ``validate`` does: ``*.md`` agent files
  and ``agents.json``; a Markdown file without frontmatter found in a folder is skipped).
  The dialect of each input comes from its location (``subagents.harnesses.loader.detect_dialect``)
  unless ``--from`` says otherwise.
  An input with reader errors is not converted (exit 1): the hint points at ``subagents fix``.
* Output: ``--out DIR`` writes ``DIR/<name>.md`` per agent (claude, codex) or one
  ``DIR/agents.json`` / ``DIR/agents.sdk.json``; files are written atomically and an existing
  file is never replaced without ``--force``.  Without ``--out`` the result goes to stdout (for
  several Markdown agents, each preceded by a ``==> name.md <==`` line, like ``head``).
* Everything the target cannot carry is reported on stderr as ``CV001``/``CV002`` warnings with
  the source file and line (see :mod:`subagents.repair.convert`); ``--strict`` turns them into a
  failing exit status.  Exit codes: 0 converted; 1 an agent was not converted (or, with
  ``--strict``, lost data); 2 usage errors.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import click

from subagents.cli.options import format_option
from subagents.definition import AgentDefinition, Dialect
from subagents.diagnostics import Diagnostic, sort_diagnostics
from subagents.fs import find_git_root, link_escape

_TARGETS = ("claude", "codex", "codex-md", "gemini", "opencode", "copilot", "cursor", "qwen",
            "factory", "json", "sdk")
_SOURCES = _TARGETS[:-1]


def _display(path: Path) -> str:
    from subagents.fs import display_path

    return display_path(path)


def _read(
    paths: tuple[Path, ...], dialect: Dialect | None
) -> tuple[list[AgentDefinition], list[Diagnostic], int]:
    """The definitions to convert: :func:`subagents.repair.convert.read_for_conversion`, the
    reading every command shares (Claude Code's for Claude files, each harness's own)."""
    from subagents.registry.configured import chosen_claude_code
    from subagents.repair.convert import conversion_inputs, read_for_conversion

    return read_for_conversion(conversion_inputs(paths), dialect, display=_display,
                               claude_code=lambda path: chosen_claude_code(path.parent))


@click.command(name="convert")
@click.argument(
    "paths",
    nargs=-1,
    required=True,
    type=click.Path(exists=True, file_okay=True, dir_okay=True, path_type=Path),
)
@click.option(
    "--to",
    "target",
    required=True,
    type=click.Choice(_TARGETS, case_sensitive=False),
    help="Dialect to write: claude, codex (the Codex CLI's TOML), codex-md (Markdown in "
    ".codex/agents), gemini, opencode, copilot, cursor, qwen, factory, json (agents.json) or "
    "sdk (Agent SDK JSON).",
)
@click.option(
    "--from",
    "source",
    type=click.Choice(_SOURCES, case_sensitive=False),
    default=None,
    help="Read every input as this dialect instead of guessing from its location.",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, dir_okay=True, path_type=Path),
    default=None,
    help="Folder to write into (created if missing).  Without it, print to stdout.",
)
@click.option("--stdout", "to_stdout", is_flag=True, help="Print to stdout (the default).")
@click.option("--force", is_flag=True, help="Replace output files that already exist.")
@click.option(
    "--strict", is_flag=True, help="Exit 1 if the target cannot carry some field (CV001/CV002)."
)
@format_option(
    "text",
    "json",
    help="text: the converted files on stdout (or written with --out) and the report on "
    "stderr; json: one object on stdout with the files, the report and a summary.",
)
@click.pass_context
def convert(
    ctx: click.Context,
    *,
    paths: tuple[Path, ...],
    target: str,
    source: str | None,
    out_dir: Path | None,
    to_stdout: bool,
    force: bool,
    strict: bool,
    output_format: str,
) -> None:
    """Convert agents between dialects.

    Reads Claude (.claude/agents/*.md), Codex (.codex/agents/*.md) or JSON (agents.json,
    --agents, Agent SDK) definitions and writes them as another dialect.  Every field the
    target cannot carry is reported as a warning on stderr (for example `hooks` and `color`
    into Codex or the SDK) -- nothing is dropped silently.

    \b
    Examples:
      subagents convert .claude/agents --to json --out build/      # build/agents.json
      subagents convert agents.json --to claude --out .claude/agents
      subagents convert reviewer.md --to codex                     # print to stdout
      subagents convert .claude/agents --to sdk --strict           # fail on any loss
    """
    from subagents.lint.rules.catalog import rule
    from subagents.repair.convert import convert_definitions
    from subagents.repair.fix import write_atomic

    if out_dir is not None and to_stdout:
        raise click.UsageError("--out and --stdout exclude each other")
    forced = Dialect(source.lower()) if source else None
    defs, diagnostics, failures = _read(paths, forced)
    result = convert_definitions(defs, target)
    diagnostics.extend(result.diagnostics)

    written: list[str] = []
    as_json = output_format == "json"
    if out_dir is None and not as_json:
        many = len(result.outputs) > 1
        for out in result.outputs:
            if many:
                click.echo(f"==> {out.filename} <==")
            click.echo(out.text, nl=False)
    elif out_dir is not None:
        here = Path(os.getcwd())
        project = find_git_root(here) or here
        escape = link_escape(out_dir / "x", project)
        if escape:
            raise click.ClickException(
                f"cannot write into {out_dir}: {escape} (name the folder the link points to "
                "yourself, if that is what you mean)")
        out_dir.mkdir(parents=True, exist_ok=True)
        for out in result.outputs:
            dest = out_dir / out.filename
            if (dest.exists() or dest.is_symlink()) and not force:
                failures += 1
                diagnostics.append(rule("CV006").templated(
                    "", _display(dest), None, None,
                    "use --force to replace it, or another --out folder"))
                continue
            write_atomic(dest, out.text.encode("utf-8"))
            written.append(_display(dest))

    problems = len(result.failed) + failures
    losses = sum(d.rule in ("CV001", "CV002") for d in diagnostics)
    failed = bool(failures or result.failed or (strict and result.has_losses))
    if as_json:
        files = []
        for out in result.outputs:
            item: dict[str, Any] = {"filename": out.filename, "agents": list(out.names)}
            if out_dir is None:
                item["text"] = out.text
            else:
                shown = _display(out_dir / out.filename)
                item["path"] = shown
                item["written"] = shown in written
            files.append(item)
        click.echo(json.dumps({
            "summary": {"converted": len(result.converted), "to": target,
                        "problems": problems, "fields_not_carried": losses},
            "files": files,
            "diagnostics": [d.to_dict() for d in sort_diagnostics(diagnostics)],
        }, indent=2, ensure_ascii=False))
        if failed:
            ctx.exit(1)
        return
    for d in sort_diagnostics(diagnostics):
        click.echo(d.format_text(), err=True)
    if out_dir is not None:
        for w in written:
            click.echo(f"wrote {w}", err=True)
    click.echo(
        f"{len(result.converted)} agent(s) converted to {target}"
        + (f", {problems} problem(s)" if problems else "")
        + (f", {losses} field(s) not carried" if result.has_losses else ""),
        err=True,
    )
    if failed:
        ctx.exit(1)
