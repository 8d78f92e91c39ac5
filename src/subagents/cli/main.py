"""The ``subagents`` command line.

This module is the only place that turns errors into exit codes and text.  Commands live one
per module in :mod:`subagents.cli` and are imported lazily (see ``COMMANDS``), so that
``subagents validate one.md`` never pays for ``anthropic``, ``mcp``, ``rich`` or ``watchfiles``.

Exit codes: 0 success; 1 the command ran and found errors (or a run failed); 2 usage error
(unknown flag, missing path, malformed ``--agents``); 3 a ``run --pipeline`` stopped before
its last stage; 130 interrupted.  Under ``--format json`` an error is a JSON object on stdout
(``{"error": {"message", "hint", "exit_code"}}``) with the same exit code.  A mistyped
command gets the closest names (difflib); bare ``subagents`` prints the help and exits 0;
``-V``/``--version`` prints the version.

``subagents validate FILE ...`` with nothing but existing paths (and ``--strict``) -- what a
pre-commit hook runs -- is answered by :mod:`subagents.cli.quick` without importing click
(about a tenth of the start-up); the output, the messages and the exit code are those of the
click command, which handles every other command line (and that one too when anything is
unusual: a glob, a missing path, a broken configuration).  The click group lives in
:mod:`subagents.cli.group`; ``cli`` here is that group, built on first use.
"""

from __future__ import annotations

import os
import sys

from subagents.errors import SubagentError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# command name -> "module:attribute"; the module is imported only when the command runs
# (or when --help lists it, which needs only the short help).
COMMANDS: dict[str, tuple[str, str]] = {
    "validate": ("subagents.cli.validate_cmd:validate", "Check agent files; exit 1 on errors."),
    "fix": ("subagents.cli.fix_cmd:fix", "Repair what can be repaired (atomic writes)."),
    "convert": ("subagents.cli.convert_cmd:convert", "Convert agents between dialects."),
    "sync": ("subagents.cli.sync_cmd:sync",
             "Write .claude/agents into every harness folder; --check for CI."),
    "schema": ("subagents.cli.validate_cmd:schema", "Print the frontmatter JSON Schema."),
    "rules": ("subagents.cli.validate_cmd:rules", "List every rule with its code and doc."),
    "explain": ("subagents.cli.explain_cmd:explain", "Explain one rule: why, example, fix."),
    "list": ("subagents.cli.registry_cmd:list_agents", "List the agents this directory sees."),
    "show": ("subagents.cli.registry_cmd:show", "Show one agent and its usage examples."),
    "doctor": ("subagents.cli.doctor_cmd:doctor", "Explain unloaded files and shadowed names."),
    "new": ("subagents.cli.registry_cmd:new", "Write a new agent file from a template."),
    "watch": ("subagents.cli.watch_cmd:watch", "Report agent changes as they happen."),
    "run": ("subagents.cli.run_cmd:run", "Run an agent (or the main thread) against a model."),
    "route": ("subagents.cli.route_cmd:route", "Rank the agents for a request."),
    "test": ("subagents.cli.route_cmd:test", "Check agents' usage examples route to them."),
    "define": ("subagents.cli.store_cmd:define", "Define an agent in an agents.json store."),
    "remove": ("subagents.cli.store_cmd:remove", "Remove an agent from an agents.json store."),
    "export": ("subagents.cli.store_cmd:export", "Export agents as Agent SDK JSON."),
    "serve-mcp": ("subagents.cli.mcp_cmd:serve_mcp", "Serve define/remove/list over MCP stdio."),
    "lsp": ("subagents.cli.lsp_cmd:lsp", "Language server for editors: diagnostics as you type."),
    "batch": ("subagents.cli.batch_cmd:batch",
              "Run an agent over many tasks, durably (resume, limits, workers)."),
    "worker": ("subagents.cli.batch_cmd:worker", "Take batch jobs from a shared database."),
}


def __getattr__(name: str) -> Any:
    # ``from subagents.cli.main import cli``: the click group, built when first asked for
    if name in ("cli", "LazyGroup"):
        from subagents.cli import group

        return getattr(group, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


CLAUDE_CODE_ENV = "SUBAGENTS_CLAUDE_CODE_VERSION"


def _take_claude_code(args: list[str]) -> list[str]:
    """``--claude-code X`` anywhere before ``--``: every command follows that Claude Code
    version (the environment carries it to the config reader and the registry)."""
    out: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            out.extend(args[i:])
            break
        if arg == "--claude-code" and i + 1 < len(args):
            os.environ[CLAUDE_CODE_ENV] = args[i + 1]
            i += 2
            continue
        if arg.startswith("--claude-code="):
            os.environ[CLAUDE_CODE_ENV] = arg.partition("=")[2]
            i += 1
            continue
        out.append(arg)
        i += 1
    return out


def run() -> None:
    """The ``subagents`` script and ``python -m subagents``: :func:`main`, and when the
    click-free ``validate`` path answered, the process leaves as soon as its output is
    flushed, without the interpreter's teardown (freeing every module and object costs about
    2% of ``validate one.md``; nothing on that path registers work for exit: no cache is
    written, no thread or child is left).  :func:`main` itself always returns or raises
    ``SystemExit``, for callers in the same process (tests, scripts)."""
    main(leave_after_quick=True)


def _leave(code: int) -> None:
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed pipe: the normal exit path decides the code
        sys.exit(code or 1)
    os._exit(code)


def main(argv: list[str] | None = None, *, leave_after_quick: bool = False) -> None:
    """Console-script entry point: SubagentError -> message + exit code, never a traceback.

    Under ``--format json`` an error is a JSON object on stdout, ``{"error": {"message",
    "hint", "exit_code"}}``, so a script reading stdout always gets JSON.
    ``leave_after_quick``: see :func:`run`."""
    args = _take_claude_code(sys.argv[1:] if argv is None else list(argv))
    try:
        from subagents.cli.quick import quick_validate

        quick = quick_validate(args)
    except BrokenPipeError:
        sys.exit(1)
    except KeyboardInterrupt:
        sys.stderr.write("Interrupted.\n")
        sys.exit(130)
    if quick is not None:
        if leave_after_quick:
            _leave(quick)
        if quick:  # as below: success returns, a failure exits with its code
            sys.exit(quick)
        return

    import click

    from subagents.cli.group import cli
    from subagents.cli.options import fail_json, wants_json

    try:
        rc = cli.main(args=args, prog_name="subagents", standalone_mode=False)
        if isinstance(rc, int) and rc:
            sys.exit(rc)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        if wants_json(args):
            message, _, hint = exc.format_message().partition("\n  hint: ")
            fail_json(message, hint or None, exc.exit_code)
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except KeyboardInterrupt:
        click.echo("Interrupted.", err=True)
        sys.exit(130)
    except SubagentError as exc:
        if wants_json(args):
            fail_json(exc.message, exc.hint, exc.exit_code)
        click.echo(f"error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except ImportError as exc:
        # A package a command needs is missing from this environment: say which, no traceback.
        from subagents._deps import MissingDependencyError, dependency_of

        module = dependency_of(exc)
        if module is None:
            raise
        err = MissingDependencyError(module, _command_name(args))
        if wants_json(args):
            fail_json(err.message, err.hint, err.exit_code)
        click.echo(f"error: {err}", err=True)
        sys.exit(err.exit_code)
    except BrokenPipeError:
        sys.exit(1)


def _command_name(args: list[str]) -> str:
    name = next((a for a in args if not a.startswith("-")), None)
    return f"`subagents {name}`" if name in COMMANDS else "this command"


if __name__ == "__main__":  # pragma: no cover
    main()
