"""Shared test set-up: every test gets its own HOME and no provider credentials.

Like simonw/llm's tests, the user directory is redirected per test, so no test ever reads or
writes the real ``~/.claude`` or ``~/.codex``, and no test can reach a real model provider by
accident (keys and base URLs are removed; tests that need them set them explicitly).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from corpus_helpers import CORPUS, NO_CORPUS

_SCRUBBED = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_AUTH_TOKEN",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "CLAUDE_CODE_SUBAGENT_MODEL",
)


@pytest.fixture(autouse=True)
def _isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USERPROFILE", str(home))
    for name in _SCRUBBED:
        monkeypatch.delenv(name, raising=False)
    yield home


@pytest.fixture
def home(_isolated_home: Path) -> Path:
    """The per-test HOME folder."""
    return _isolated_home


@pytest.fixture
def corpus() -> Path:
    """The shared corpus of real agent files (read only; never copied into the repo)."""
    if not CORPUS.is_dir():
        pytest.skip(NO_CORPUS)
    return CORPUS
