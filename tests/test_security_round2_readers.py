"""Issue 20 (round two): one alias/size guard for every YAML reader — a ~500-byte alias
bomb is refused at once by the Qwen and Gemini readers (it hung the Qwen reader)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from subagents.harnesses import _yaml12
from subagents.harnesses.gemini import HARNESS as GEMINI
from subagents.harnesses.qwen import HARNESS as QWEN


def bomb() -> str:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    return "---\nname: bomb\ndescription: d\n" + "\n".join(lines) + "\n---\nbody\n"


def test_expanded_size_counts_without_expanding() -> None:
    import yaml

    assert _yaml12.expanded_size(yaml.compose("a: [1, 2]")) == 5  # map, key, seq, 1, 2
    with pytest.raises(_yaml12.TooDeep):
        _yaml12.load(bomb().split("---\n")[1])


@pytest.mark.parametrize("reader", [QWEN, GEMINI], ids=["qwen", "gemini"])
def test_an_alias_bomb_is_refused_promptly(reader: object) -> None:
    text = bomb()
    assert len(text.encode()) < 600
    result: list[object] = []
    worker = threading.Thread(target=lambda: result.append(
        reader.read_text(text, Path("bomb.md"))), daemon=True)  # type: ignore[attr-defined]
    worker.start()
    worker.join(60)  # a hang, not a speed limit: the old reader never returned
    assert result, "the reader did not return"
    (agent,) = result[0]  # type: ignore[misc]
    assert agent.outcome.value != "loads"
