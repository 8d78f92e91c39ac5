"""``python -m subagents``: the same command line as the ``subagents`` script."""

from subagents.cli.main import run

run()
