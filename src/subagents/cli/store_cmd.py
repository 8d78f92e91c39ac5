"""``subagents define`` / ``remove`` / ``export``: the agents.json store from the command line.

The same operations the MCP server offers (:mod:`subagents.store.mcp_server`), for people without an
MCP client.  Design notes:

* The command line is the operator's tool, so it may write the global store (``--scope
  global``) without a ``--main`` flag: whoever can run it can edit the file anyway.  The MCP
  server is where the main-group rule is enforced.
* ``--group-dir`` defaults to ``$SUBAGENTS_GROUP_DIR`` or the current directory;
  ``--global-dir`` to ``$SUBAGENTS_GLOBAL_DIR`` (none = no global store).
* ``--force`` is the only way to replace a corrupt store: the bad file is first copied to
  ``agents.json.bak-<timestamp>`` (printed), then the write goes ahead.
* ``export --format sdk`` prints ``{name: {...}}`` in the Claude Agent SDK's ``agents=`` wire
  form (camelCase, ``None`` dropped) for the merged store, the group winning; entries the
  loader would skip are left out and named on stderr.  ``--format json`` prints the merged
  store as it is written in ``agents.json`` (unknown keys kept).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from subagents.cli.options import format_option
from subagents.diagnostics import Severity
from subagents.known_tools import split_tool_list

__all__ = ["define", "export", "remove"]


def _store_dirs(fn: Any) -> Any:
    fn = click.option(
        "--group-dir",
        type=click.Path(file_okay=False, path_type=Path),
        envvar="SUBAGENTS_GROUP_DIR",
        default=".",
        show_default="$SUBAGENTS_GROUP_DIR or .",
        help="Folder holding this group's agents.json.",
    )(fn)
    return click.option(
        "--global-dir",
        type=click.Path(file_okay=False, path_type=Path),
        envvar="SUBAGENTS_GLOBAL_DIR",
        default=None,
        help="Folder holding the global agents.json shared by every group "
        "[default: $SUBAGENTS_GLOBAL_DIR; none = no global store].",
    )(fn)


_SCOPE = click.option(
    "--scope",
    type=click.Choice(["group", "global"]),
    default="group",
    show_default=True,
    help="Which agents.json to change.",
)
_FORCE = click.option(
    "--force",
    is_flag=True,
    help="If the store is corrupt, back it up to agents.json.bak-<timestamp> and start afresh.",
)


def _store(global_dir: Path | None, group_dir: Path) -> Any:
    from subagents.store.core import AgentStore

    return AgentStore(global_dir, group_dir, main=True)


def _report(result: Any, output_format: str) -> None:
    if output_format == "json":
        click.echo(json.dumps(result.to_dict(), indent=2))
        return
    for warning in result.warnings:
        click.echo(warning.format_text(), err=True)
    if result.backup is not None:
        click.echo(f"backed up the corrupt store to {result.backup}", err=True)
    click.echo(f"{result.name}: {result.action} in {result.path}")


@click.command()
@click.argument("name")
@click.option("-d", "--description", required=True, help="When the orchestrator should use it.")
@click.option("-p", "--prompt", help="The system prompt (or use --prompt-file).")
@click.option(
    "--prompt-file",
    type=click.File("r", encoding="utf-8"),
    help="Read the system prompt from a file ('-' = stdin).",
)
@click.option(
    "--tools",
    "tools_text",
    help='Allowed tools, comma-separated ("WebSearch, WebFetch"); omit to inherit all. '
    'Pass "" for no tools.',
)
@click.option("--model", help="sonnet, opus, haiku, inherit, or a full model id; omit to inherit.")
@_SCOPE
@_store_dirs
@_FORCE
@format_option("text", "json")
def define(
    name: str,
    description: str,
    prompt: str | None,
    prompt_file: Any,
    tools_text: str | None,
    model: str | None,
    scope: str,
    global_dir: Path | None,
    group_dir: Path,
    force: bool,
    output_format: str,
) -> None:
    """Add or replace agent NAME in an agents.json store (validated, atomic, locked).

    \b
    Example:
      subagents define fact-checker -d "Verifies claims with web search" \\
          -p "You check facts. Cite sources." --tools "WebSearch, WebFetch" --model haiku

    The store is {name: {description, prompt, tools?, model?}}; other entries and unknown
    keys are kept.  Exit 1 when the definition is refused (the reason is printed).
    """
    if (prompt is None) == (prompt_file is None):
        raise click.UsageError("give exactly one of --prompt and --prompt-file")
    text = prompt if prompt is not None else prompt_file.read()
    tools = split_tool_list(tools_text) if tools_text is not None else None
    result = _store(global_dir, group_dir).define(
        name, description, text, tools=tools, model=model, scope=scope, force=force
    )
    _report(result, output_format)


@click.command()
@click.argument("name")
@_SCOPE
@_store_dirs
@_FORCE
@format_option("text", "json")
def remove(
    name: str,
    scope: str,
    global_dir: Path | None,
    group_dir: Path,
    force: bool,
    output_format: str,
) -> None:
    """Remove agent NAME from an agents.json store (other entries are kept)."""
    result = _store(global_dir, group_dir).remove(name, scope=scope, force=force)
    _report(result, output_format)


@click.command()
@format_option(
    "sdk",
    "json",
    help="sdk: the Claude Agent SDK agents= wire form (camelCase); "
    "json: the merged agents.json as written.",
)
@_store_dirs
def export(output_format: str, global_dir: Path | None, group_dir: Path) -> None:
    """Print the merged global + group agents.json (the group wins) as JSON.

    \b
    Python:
      agents = {k: AgentDefinition(**v) for k, v in json.loads(out).items()}
      query(prompt, options=ClaudeAgentOptions(agents=agents))
    """
    store = _store(global_dir, group_dir)
    payload: dict[str, Any]
    if output_format == "json":
        payload = store.merged()
    else:
        from subagents.formats.sdkwire import to_sdk_mapping

        definitions, diagnostics = store.definitions()
        for diag in diagnostics:
            if diag.severity is not Severity.INFO:
                click.echo(diag.format_text(), err=True)
        payload = to_sdk_mapping(definitions)
    sys.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
