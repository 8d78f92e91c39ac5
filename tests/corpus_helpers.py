"""The shared corpus of real agent files: one definition for every test that reads it.

The corpus (about 600 agent files from public collections) lives beside the project, at
``../shared/corpus``; tests read it and never copy it into the repository.  Set
``SUBAGENTS_CORPUS`` to use a copy somewhere else.  When the folder is absent, every test that
needs it skips with the one reason :data:`NO_CORPUS` (``needs_corpus`` as a mark, or the
``corpus`` fixture in conftest.py), so a checkout without the corpus still runs the rest.
Reading the corpus is slow by nature: conftest.py marks these tests ``slow``, so the fast loop
(``-m "not slow"``) needs no corpus at all.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CORPUS = Path(
    os.environ.get("SUBAGENTS_CORPUS")
    or Path(__file__).resolve().parents[2] / "shared" / "corpus"
)
VOLT = CORPUS / "VoltAgent__awesome-claude-code-subagents"
FURAI = CORPUS / "0xfurai__claude-code-subagents"
CATLOG = CORPUS / "catlog22__Claude-Code-Workflow"

NO_CORPUS = (
    f"the shared corpus of real agent files is not at {CORPUS} "
    "(set SUBAGENTS_CORPUS to its folder)"
)

#: Mark a test (or a module, via ``pytestmark``) that reads the corpus; conftest.py makes it
#: ``slow`` and skips it with :data:`NO_CORPUS` when the folder is absent.
needs_corpus = pytest.mark.corpus
