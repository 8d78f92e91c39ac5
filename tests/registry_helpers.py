"""Helpers for the registry tests: write agent files into temporary scope folders."""

from __future__ import annotations

from pathlib import Path

import pytest


def write_agent(
    folder: Path,
    name: str | None,
    *,
    description: str = "Does things. Use when things need doing.",
    body: str = "You do things.\n",
    filename: str | None = None,
    extra: str = "",
) -> Path:
    """Write a minimal valid agent (``name`` None: omit the field) and return its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (filename or f"{name or 'unnamed'}.md")
    lines = ["---"]
    if name is not None:
        lines.append(f"name: {name}")
    if description:
        lines.append(f"description: {description}")
    if extra:
        lines.append(extra.rstrip("\n"))
    lines.append("---")
    path.write_text("\n".join(lines) + "\n" + body, encoding="utf-8")
    return path


@pytest.fixture
def layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A git project with a subfolder, and a redirected HOME."""
    home = tmp_path / "home"
    project = tmp_path / "project"
    sub = project / "pkg" / "sub"
    (project / ".git").mkdir(parents=True)
    sub.mkdir(parents=True)
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(sub)
    return {
        "home": home,
        "project": project,
        "sub": sub,
        "user_agents": home / ".claude" / "agents",
        "root_agents": project / ".claude" / "agents",
        "sub_agents": sub / ".claude" / "agents",
    }
