"""``subagents sync``: write the project's Claude agents into every harness folder it uses.

The logic is :mod:`subagents.repair.sync` (plan, then apply); this module reads the options
and the configuration and prints.

Design notes
------------
* Output: the problems (``SY`` codes and source errors, ``path:line: CODE severity: message``
  as ``validate`` prints them), the files written or removed, and a summary go to stdout; what
  the harnesses cannot carry (``CV001``/``CV002`` warnings) and the harnesses' notes
  (``CV007``) go to stderr, as ``convert`` prints them, for the files that change only (the
  summary counts every loss): a second ``sync`` or a ``--check`` in CI does not reprint the
  whole report of files already written.  ``--format json`` prints one object:
  ``summary`` (``to_write``/``to_remove``: what the plan does; ``written``/``removed``: what
  was done, 0 under ``--check`` and ``--dry-run``), ``problems`` (what makes the command
  fail), ``diagnostics`` (the rest: losses and notes) and ``files`` (each harness file with
  its state, the action sync takes for it and, unless nothing is written, whether it was done).
* Harnesses: ``--to`` (repeatable) wins over the configuration's ``sync`` list, which wins over
  the folders found in the project.
* Exit codes: 0 in sync (or synced); 1 a problem remains (``--check``: anything out of sync;
  otherwise a conflict or a hand edit without ``--force``, a source that cannot be read, a
  write that failed; with ``--strict``, a field a harness cannot carry); 2 usage errors (an
  unknown harness, no ``.claude/agents`` folder, no harness to sync to).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from subagents.cli.options import format_option
from subagents.diagnostics import sort_diagnostics

if TYPE_CHECKING:
    from subagents.repair.sync import FileStatus, SyncPlan

_TO_STDERR = frozenset({"CV001", "CV002", "CV007"})


def _shown(plan: SyncPlan, rel: str) -> str:
    from subagents.fs import display_path

    return display_path(plan.project / rel)


def _verb(f: FileStatus, *, done: bool) -> str:
    from subagents.repair.sync import Action

    if f.action is Action.REMOVE:
        return "removed" if done else "would remove"
    return "wrote" if done else "would write"


def _file_dict(plan: SyncPlan, f: FileStatus, done: set[str] | None) -> dict[str, Any]:
    item: dict[str, Any] = {"path": _shown(plan, f.path), "harness": f.harness,
                            "source": f.source, "state": str(f.state), "action": str(f.action)}
    if done is not None:
        item["done"] = f.path in done
    return item


@click.command(name="sync")
@click.argument("project", required=False, default=".",
                type=click.Path(exists=True, file_okay=False, dir_okay=True, path_type=Path))
@click.option("--to", "targets", multiple=True, metavar="HARNESS",
              help="A harness to write (repeatable): codex (the Codex CLI's TOML), codex-md, "
              "gemini, opencode, copilot, cursor, qwen, factory.  Default: the `sync` list of "
              "[tool.subagents], else every harness whose folder exists.")
@click.option("--check", is_flag=True,
              help="Write nothing; exit 1 with one line per file out of sync (for CI).")
@click.option("--dry-run", is_flag=True, help="Show what would be written or removed.")
@click.option("--force", is_flag=True,
              help="Also replace hand-written files and hand-edited generated files.")
@click.option("--strict", is_flag=True,
              help="Exit 1 if a harness cannot carry some field (CV001/CV002).")
@format_option("text", "json",
               help="text: problems and changes on stdout, what harnesses cannot carry on "
               "stderr; json: one object with summary, problems and files.")
@click.pass_context
def sync(ctx: click.Context, *, project: Path, targets: tuple[str, ...], check: bool,
         dry_run: bool, force: bool, strict: bool, output_format: str) -> None:
    """Write the agents of .claude/agents into every harness folder the project uses.

    .claude/agents is the source of truth: each agent there is written for each harness
    (Codex, Gemini CLI, OpenCode, Copilot, Cursor, Qwen Code, Factory) at the harness's own
    path, with a first comment line saying it was generated from which source and must not
    be edited by hand.  A file sync did not write is never replaced (unless --force), and a
    generated file whose source is gone is removed.

    \b
    Examples:
      subagents sync                          # the harness folders that exist
      subagents sync --to gemini --to codex   # these harnesses (folders created)
      subagents sync --check                  # in CI: exit 1 on drift
      subagents sync --dry-run                # show what would change
      subagents sync --check --format json

    \b
    In pyproject.toml:
      [tool.subagents]
      sync = ["gemini", "codex"]
    """
    from subagents.cli.options import fail
    from subagents.errors import ConfigError, UsageError
    from subagents.lint.config import load_config
    from subagents.repair.sync import (
        Action,
        State,
        apply_sync,
        folder_problems,
        plan_sync,
        resolve_targets,
    )

    root = project
    try:
        config = load_config(start=root)
        chosen = resolve_targets(root, targets, config.sync)
        plan = plan_sync(root, chosen, force=force)
    except (UsageError, ConfigError) as exc:
        fail(output_format, exc.message, exc.hint, exc.exit_code)
    problems = plan.problems(check=check)
    done: set[str] | None = None
    if not check and not dry_run:
        result = apply_sync(plan)
        done = set(result.written) | set(result.removed)
        problems += result.diagnostics
    elif dry_run and not check:
        problems += folder_problems(plan)
    changes = [f for f in plan.files if f.action is not Action.NONE]
    in_sync = sum(f.state is State.IN_SYNC for f in plan.files)
    losses = plan.losses
    failed = bool(problems or (strict and losses))
    mode = "check" if check else "dry-run" if dry_run else "write"
    if output_format == "json":
        others = [d for d in plan.diagnostics if d not in problems]
        click.echo(json.dumps({
            "summary": {"mode": mode, "harnesses": list(plan.targets), "sources": plan.sources,
                        "in_sync": in_sync,
                        "to_write": sum(f.action is Action.WRITE for f in changes),
                        "to_remove": sum(f.action is Action.REMOVE for f in changes),
                        "written": sum(f.action is Action.WRITE and f.path in (done or ())
                                       for f in changes),
                        "removed": sum(f.action is Action.REMOVE and f.path in (done or ())
                                       for f in changes),
                        "problems": len(problems), "fields_not_carried": len(losses),
                        "ok": not failed},
            "problems": [d.to_dict() for d in sort_diagnostics(problems)],
            "diagnostics": [d.to_dict() for d in sort_diagnostics(others)],
            "files": [_file_dict(plan, f, done) for f in plan.files],
        }, indent=2, ensure_ascii=False))
        ctx.exit(1 if failed else 0)
    # What a harness cannot carry is shown for the files that change (written now, or out
    # of sync under --check), once: an unchanged file's losses were shown when it was
    # written, and reprinting them on every run buried the drift a check is run to find.
    # (--strict fails on any loss: then every loss is the reason and is shown.)
    changing = {f.path for f in plan.files if f.action is Action.WRITE}
    shown_losses = losses if strict else [
        d for rel in sorted(changing) for d in plan.output_losses.get(rel, ())]
    notes = [d for d in plan.diagnostics if d.rule == "CV007"] if changing else []
    for d in sort_diagnostics([*shown_losses, *notes]):
        click.echo(d.format_text(), err=True)
    for d in sort_diagnostics(problems):
        click.echo(d.format_text())
    if not check:
        for f in changes:
            if done is None or f.path in done:
                click.echo(f"{_verb(f, done=done is not None)} {_shown(plan, f.path)}")
    names = ", ".join(plan.targets)
    if check:
        summary = (f"{len(problems)} problem(s); {in_sync} file(s) in sync ({names})"
                   if problems else f"in sync: {in_sync} file(s) for {names}")
    else:
        n = len(changes) if done is None else len(done)
        verb = "would change" if done is None else "changed"
        summary = (f"{plan.sources} agent(s) synced to {names}: {n} file(s) {verb}, "
                   f"{in_sync} in sync" + (f", {len(problems)} problem(s)" if problems else ""))
    if losses:
        summary += f", {len(losses)} field(s) not carried"
        if len(shown_losses) < len(losses):
            summary += (f" ({len(shown_losses)} shown: those of the files that change; "
                        "--format json lists all)")
    click.echo(summary)
    ctx.exit(1 if failed else 0)
