"""Findings of the round-2 audit of the rules, each pinned by a test.

* A `maxTurns` that is present but of the wrong type is SA108's finding; SA302 ("no maxTurns")
  must not also claim it is missing.
* In agents.json, a model that is not a valid alias or id at all is SA105's error; SA505 (the
  seed's alias-only rule) warns only about a valid full id, instead of repeating the error.
"""

from __future__ import annotations

import json

import pytest

from subagents.definition import Dialect
from subagents.lint.validate import validate_text
from validate_helpers import agent, diags, only


@pytest.mark.parametrize("value", ["true", "1.5", "ten", "0", "-3"])
def test_a_bad_max_turns_is_not_also_missing(value: str) -> None:
    ds = diags(agent(f"name: a-agent\ndescription: Checks release notes for the team\n"
                     f"maxTurns: {value}\n"))
    assert [d.rule for d in only(ds, "SA108")] == ["SA108"]
    assert only(ds, "SA302") == []


def test_a_missing_max_turns_is_still_reported() -> None:
    ds = diags(agent("name: a-agent\ndescription: Checks release notes for the team\n"))
    assert only(ds, "SA302") == []  # advice: only under --strict or when selected
    ds = diags(agent("name: a-agent\ndescription: Checks release notes for the team\n"),
               strict=True)
    assert [d.rule for d in only(ds, "SA302")] == ["SA302"]


def _json(model: str) -> list[str]:
    text = json.dumps({"summariser": {"description": "Summarises diffs for release notes",
                                    "prompt": "You review code. " * 10, "model": model,
                                    "maxTurns": 5}}, indent=2)
    return sorted(d.rule for d in validate_text(text, path="agents.json", dialect=Dialect.JSON))


def test_json_model_is_one_finding_not_two() -> None:
    assert _json("sonet") == ["SA105"]
    assert _json("claude-sonnet-4-5") == ["SA505"]
    assert _json("sonnet") == []


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_a_tools_line_with_thousands_of_unknown_entries_stays_linear() -> None:
    # before: each entry's column was found by re-scanning the whole line and each got a fuzzy
    # "did you mean" match (an 87 KB file took 65 s); the positions must still be exact
    n = 20_000
    value = ", ".join(f"Tool{i}x" for i in range(n))
    text = agent(f"name: a-agent\ndescription: Checks release notes for the team\n"
                 f"maxTurns: 3\ntools: Read, {value}, Grep\n")
    found = only(diags(text), "SA104")
    assert len(found) == n
    line = text.split("\n")[4]
    assert [d.column for d in found[:3]] == [line.index(f" Tool{i}x,") + 2 for i in range(3)]
    assert found[-1].column == line.index(f" Tool{n - 1}x,") + 2
    assert all(d.line == 5 for d in found)
    assert sum("did you mean" in (d.hint or "") for d in found) <= 20
