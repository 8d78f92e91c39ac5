"""CI runs exactly the README's test command: the last line of ``.ci/run`` is the second
``sh`` block of README.md, so the two cannot drift apart."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _sh_blocks(text: str) -> list[str]:
    return [block.strip() for block in re.findall(r"```sh\n(.*?)```", text, re.S)]


def test_ci_runs_the_readmes_second_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]
    blocks = _sh_blocks((ROOT / "README.md").read_text())
    assert len(blocks) >= 2
    assert blocks[1] == ci
    assert ci.endswith(".venv/bin/pytest -q -p no:cacheprovider -n 2")
