"""The click group behind ``subagents``: commands imported on first use, did-you-mean.

Split from :mod:`subagents.cli.main` so that ``subagents validate FILE ...`` (the pre-commit
case, :mod:`subagents.cli.quick`) runs without importing click at all; every other command
line comes here.
"""

from __future__ import annotations

import importlib

import click

from subagents import __version__
from subagents.cli.main import COMMANDS

__all__ = ["LazyGroup", "cli"]


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(COMMANDS))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in COMMANDS:
            target, short_help = COMMANDS[cmd_name]
            module_name, attr = target.split(":")
            try:
                module = importlib.import_module(module_name)
            except ModuleNotFoundError as exc:
                if exc.name and exc.name.startswith("subagents"):
                    return _unavailable(cmd_name, short_help)
                raise
            command: click.Command = getattr(module, attr)
            return command
        return super().get_command(ctx, cmd_name)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        # A mistyped command gets the closest names (difflib, as click does for options).
        name = click.utils.make_str(args[0]) if args else ""
        if args and self.get_command(ctx, name) is None and not name.startswith("-"):
            import difflib

            close = difflib.get_close_matches(name, self.list_commands(ctx), n=3, cutoff=0.6)
            message = f"No such command {name!r}."
            if close:
                message += " Did you mean " + " or ".join(repr(c) for c in close) + "?"
            raise click.UsageError(message, ctx)
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Short help from the table: listing commands must not import them all.
        rows = [(name, COMMANDS[name][1]) for name in sorted(COMMANDS)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def _unavailable(name: str, short_help: str) -> click.Command:
    @click.command(name=name, help=short_help, context_settings={"ignore_unknown_options": True})
    @click.argument("args", nargs=-1, type=click.UNPROCESSED)
    def _cmd(args: tuple[str, ...]) -> None:
        raise click.ClickException(f"`subagents {name}` is not available in this build yet")

    return _cmd


@click.group(
    cls=LazyGroup,
    invoke_without_command=True,
    no_args_is_help=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(__version__, "-V", "--version", prog_name="subagents")
@click.option("--claude-code", "claude_code", metavar="VERSION", default=None,
              help="Follow this recorded Claude Code version (default: `claude-code` in "
                   "the config, else the newest recorded); also accepted after the command.")
@click.pass_context
def cli(ctx: click.Context, claude_code: str | None) -> None:
    """Read, judge, repair, find and run AI subagent definitions.

    Agents are Markdown files with YAML frontmatter (.claude/agents/*.md, .codex/agents/*.md)
    or JSON (agents.json, --agents).  Start with `subagents validate` in a project.
    """
    if claude_code is not None:
        import os

        # the config reader and the registry read the choice from the environment; put the
        # old value back when the command ends (an in-process caller keeps its own)
        before = os.environ.get("SUBAGENTS_CLAUDE_CODE_VERSION")
        os.environ["SUBAGENTS_CLAUDE_CODE_VERSION"] = claude_code

        def _restore() -> None:
            if before is None:
                os.environ.pop("SUBAGENTS_CLAUDE_CODE_VERSION", None)
            else:
                os.environ["SUBAGENTS_CLAUDE_CODE_VERSION"] = before

        ctx.call_on_close(_restore)
    if ctx.invoked_subcommand is None:  # bare `subagents`: the help, and success
        click.echo(ctx.get_help())
        ctx.exit(0)
