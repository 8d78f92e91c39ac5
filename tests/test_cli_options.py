"""Option groups: one decorator adds a group's flags and hands the command one typed object."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import click
import pytest
from click.testing import CliRunner

from subagents.cli.main import COMMANDS, cli
from subagents.cli.options import RegistryOptions, ScopeOptions, option_group
from subagents.definition import Dialect


def test_a_group_reaches_the_command_as_one_frozen_object(tmp_path: Path) -> None:
    seen: list[RegistryOptions] = []

    @click.command()
    @option_group(RegistryOptions)
    def probe(registry: RegistryOptions) -> None:
        seen.append(registry)

    args = ["--dialect", "codex-md", "--cwd", str(tmp_path), "--plugin-dir", str(tmp_path / "p"),
            "--group-dir", str(tmp_path / "g"), "--global-dir", str(tmp_path / "h")]
    result = CliRunner().invoke(probe, args)
    assert result.exit_code == 0, result.output
    (opts,) = seen
    assert opts == RegistryOptions(dialect=Dialect.CODEX_MD, cwd=tmp_path,
                                   plugin_dirs=(tmp_path / "p",), group_dir=tmp_path / "g",
                                   global_dir=tmp_path / "h")
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.cwd = None  # type: ignore[misc]
    # the group and global folders reach the registry through the object, nothing else
    assert opts.build().agents_json == (tmp_path / "h" / "agents.json",
                                        tmp_path / "g" / "agents.json")


def test_a_group_whose_options_miss_a_field_is_refused() -> None:
    @dataclass(frozen=True)
    class Broken:
        param: ClassVar[str] = "broken"
        click_options: ClassVar[tuple[Callable[[Any], Any], ...]] = (
            click.option("--one", "one", default=None),
        )
        one: str | None = None
        two: str | None = None

    with pytest.raises(TypeError, match="two"):
        option_group(Broken)


def test_scope_options_leave_unset_values_to_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SUBAGENTS_GROUP_DIR", str(tmp_path / "g"))
    reg = ScopeOptions().build_registry(cwd=tmp_path)
    assert reg.dialect is Dialect.CLAUDE
    assert reg.agents_json == (None, tmp_path / "g" / "agents.json")


def test_no_command_takes_more_than_a_dozen_parameters() -> None:
    """Flags come in groups: no command declares a parameter per flag any more."""
    for name, (target, _) in COMMANDS.items():
        module, attr = target.split(":")
        command = getattr(importlib.import_module(module), attr)
        callback = inspect.unwrap(command.callback)
        count = len(inspect.signature(callback).parameters)
        assert count <= 13, f"{name}: {count} parameters"


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_flag_is_still_in_help(name: str) -> None:
    result = CliRunner().invoke(cli, [name, "--help"])
    assert result.exit_code == 0, result.output
    command = cli.get_command(click.Context(cli), name)
    assert command is not None
    for param in command.params:
        if isinstance(param, click.Option) and not param.hidden:
            for opt in param.opts:
                assert opt in result.output, f"{name}: {opt} missing from --help"


def test_shared_options_are_declared_once() -> None:
    """--format, --dialect, --cwd, --agents come from subagents.cli.options only: a command
    that declared its own copy (fix did) drifted from the others' spelling and help."""
    import re

    cli_dir = Path(__file__).resolve().parents[1] / "src" / "subagents" / "cli"
    for module in cli_dir.glob("*.py"):
        if module.name == "options.py":
            continue
        text = module.read_text(encoding="utf-8")
        for flag in ("--format", "--dialect", "--cwd", "--agents"):
            if (module.name, flag) == ("validate_cmd.py", "--dialect"):
                continue  # validate's own: read every file as this dialect (any of them)
            assert not re.search(rf'click\.option\(\s*"{flag}"', text), (module.name, flag)
