"""Shared test set-up: every test gets its own HOME and no provider credentials.

Like simonw/llm's tests, the user directory is redirected per test, so no test ever reads or
writes the real ``~/.claude`` or ``~/.codex``, and no test can reach a real model provider by
accident (keys and base URLs are removed; tests that need them set them explicitly).

The fast loop is ``pytest -m "not slow" -n 2``.  A test that reads the shared corpus (the
``corpus`` mark, ``corpus_helpers.needs_corpus``, a ``*corpus*`` fixture, or a test named
for the corpus) is slow by
nature and is marked so here, and skips with one reason when the corpus is absent; the
hypothesis profile (fewer examples in the fast loop) is chosen in ``pytest_configure``, see
hypothesis_helpers.py.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from corpus_helpers import CORPUS, NO_CORPUS
from hypothesis_helpers import choose_profile

_SCRUBBED = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_AUTH_TOKEN",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "CLAUDE_CODE_SUBAGENT_MODEL",
    # a developer's own defaults would change which model a run asks for, or write
    # transcripts into one folder shared by every test (and every xdist worker)
    "ANTHROPIC_MODEL",
    "OPENAI_MODEL",
    "SUBAGENTS_TRANSCRIPT_DIR",
)


def pytest_configure(config: pytest.Config) -> None:
    choose_profile(config)
    # Started with SIGINT ignored (nohup, `cmd &` in a script, some CI launchers), Python keeps
    # ignoring it and so does every child: the Ctrl-C tests would wait for an interruption
    # that never comes.  Take it back, as a terminal run has it (children then start with the
    # default action and Python turns it into KeyboardInterrupt, as for a user).
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects: the marks added here count
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        # the mark, a fixture that reads the corpus, or a test named for it (the harness
        # modules' corpus-wide round trips)
        fixtures = getattr(item, "fixturenames", ())
        if (item.get_closest_marker("corpus") or any("corpus" in f for f in fixtures)
                or "corpus" in item.name):
            item.add_marker(pytest.mark.slow)
            if not CORPUS.is_dir():
                item.add_marker(pytest.mark.skip(reason=NO_CORPUS))


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
