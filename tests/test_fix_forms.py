"""`fix` on each broken-frontmatter form, judged by what Claude Code reads (the emulation).

Where Claude Code reads a value whole, the repair keeps exactly its reading; where it cuts a
description to its first line or skips the file, the repair keeps the whole text written, up
to the next real field.  The set of fields Claude Code sees after a repair is the set of real
fields written; a line that looks like a mangled field is never absorbed into a text.
"""

from __future__ import annotations

import re

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fix_helpers import frontmatter, load_frontmatter, split_lines
from hypothesis_helpers import examples
from subagents.claude_code import ClaudeCodeView, ParseMode, get_profile, read_claude_code
from subagents.harnesses.loader import parse_agent_text
from subagents.repair.fix import FixResult, FixStatus, fix_text


def _fixed(text: str) -> tuple[FixResult, ClaudeCodeView, ClaudeCodeView]:
    result = fix_text(text.encode())
    assert result.status is FixStatus.FIXED, (result.problems, result.notes)
    after = read_claude_code(result.fixed)
    assert after.parse is ParseMode.YAML  # strict YAML now: no lenient pass needed
    assert fix_text(result.fixed).status is FixStatus.UNCHANGED  # idempotent
    return result, read_claude_code(text), after


def _only_lines_of(text: str, fixed: str, key: str) -> None:
    """Nothing outside the ``key`` field changed, byte for byte: the lines before it and the
    lines from the next field (or the closing ``---``) on are the same."""
    lines = split_lines(text)
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{key}:"))
    stop = next(
        i
        for i in range(start + 1, len(lines))
        if lines[i].rstrip("\r\n") == "---"
        or (re.match(r"[a-z]+:", lines[i]) and not lines[i].startswith(("user:", "assistant:")))
    )
    head, tail = "".join(lines[:start]), "".join(lines[stop:])
    assert fixed.startswith(head + f"{key}: ")
    assert fixed.endswith(tail)
    middle = fixed[len(head) : len(fixed) - len(tail)]
    assert all(
        line.startswith((f"{key}: ", "  ")) or not line.strip() for line in split_lines(middle)
    ), middle


# --------------------------------------------------------------------------- read whole


def test_one_line_with_colon_keeps_claude_codes_reading() -> None:
    text = "---\nname: rev\ndescription: Use it when: the diff is big  \ntools: Read\n---\nBody\n"
    result, before, after = _fixed(text)
    assert before.parse is ParseMode.LENIENT and before.loaded
    # the lenient pass keeps the trailing spaces: so does the repair
    assert before.description == "Use it when: the diff is big  "
    assert after.essentials() == before.essentials()
    assert load_frontmatter(result.fixed.decode())["description"] == before.description
    _only_lines_of(text, result.fixed.decode(), "description")
    assert "Claude Code reads the same value as before" in result.changes[0].message


def test_literal_backslash_n_examples_stay_escapes_claude_code_converts() -> None:
    raw = (
        'Use after a change. Examples:\\n\\n<example>\\nContext: a PR\\nuser: "review it"\\n'
        'assistant: "I\'ll use the reviewer"\\n</example>'
    )
    text = f"---\nname: reviewer\ndescription: {raw}\nmodel: sonnet\n---\nYou review.\n"
    result, before, after = _fixed(text)
    assert before.loaded and before.description is not None and "\n<example>" in before.description
    data = load_frontmatter(result.fixed.decode())
    assert data["description"] == raw  # the two characters `\n`, as written
    assert after.description == before.description  # Claude Code still turns them into breaks
    assert after.essentials() == before.essentials()


def test_tab_indented_tools_list_becomes_spaces() -> None:
    text = (
        "---\nname: rev\ndescription: Reviews\ntools:\n\t- Read\n\t- Grep\nmodel: haiku\n---\nB\n"
    )
    result, before, after = _fixed(text)
    assert before.parse is ParseMode.LENIENT and before.tools == ("Read", "Grep")
    assert after.essentials() == before.essentials()
    assert result.fixed.decode() == (
        "---\nname: rev\ndescription: Reviews\ntools:\n  - Read\n  - Grep\nmodel: haiku\n---\nB\n"
    )
    assert [c.code for c in result.changes] == ["tabs"]


def test_value_starting_with_an_indicator_keeps_claude_codes_reading() -> None:
    text = "---\nname: rev\ndescription: `grep` then *read* @team\ntools: [Read, Grep]\n---\nB\n"
    result, before, after = _fixed(text)
    assert before.description == "`grep` then *read* @team"
    assert after.essentials() == before.essentials()
    _only_lines_of(text, result.fixed.decode(), "description")


def test_a_field_yaml_reads_differently_from_claude_code_is_not_guessed_at() -> None:
    # the lenient pass quotes `model` too (it holds `#`): Claude Code reads "sonnet # best"
    text = "---\nname: rev\ndescription: Use when: x\nmodel: sonnet # best\n---\nB\n"
    assert read_claude_code(text).model == "sonnet # best"
    result = fix_text(text.encode())
    assert result.status is FixStatus.UNFIXABLE
    assert result.fixed == text.encode()
    assert result.why is not None and "'sonnet # best'" in result.why and "'sonnet'" in result.why


def test_name_pyyaml_would_read_as_true_is_quoted() -> None:
    text = "---\nname: yes\ndescription: Use when: x\n---\nB\n"
    result, before, after = _fixed(text)
    assert before.name == "yes" and after.name == "yes"
    assert load_frontmatter(result.fixed.decode())["name"] == "yes"
    assert 'name: "yes"\n' in result.fixed.decode()


# --------------------------------------------------------------------------- cut to one line


def test_user_assistant_lines_claude_code_made_fields_become_text_again() -> None:
    text = (
        "---\nname: helper\n"
        "description: Use this agent when: the user asks for help\n"
        'user: "help me"\n'
        'assistant: "I\'ll use the helper agent"\n'
        "Context: a follow-up # not a comment\n"
        "color: blue\n---\nBody\n"
    )
    result, before, after = _fixed(text)
    # Claude Code read the first line only, and three extra fields
    assert before.description == "Use this agent when: the user asks for help"
    assert {"user", "assistant", "Context"} <= set(before.frontmatter)
    whole = (
        "Use this agent when: the user asks for help\n"
        'user: "help me"\n'
        'assistant: "I\'ll use the helper agent"\n'
        "Context: a follow-up # not a comment"
    )
    assert after.description == whole
    assert list(after.frontmatter) == ["name", "description", "color"]
    assert load_frontmatter(result.fixed.decode())["description"] == whole
    assert "read only its first line" in result.changes[0].message
    assert "`user:`, `assistant:`, `Context:`" in result.changes[0].message
    _only_lines_of(text, result.fixed.decode(), "description")


def test_repeated_user_lines_the_strict_reader_rejects_become_text() -> None:
    # Valid YAML for PyYAML (the last `user` wins), a duplicate key for the strict reader;
    # Claude Code reads the first line as the description and `user`/`assistant` as fields.
    text = (
        "---\nname: helper\ndescription: Use this agent for support.\n"
        'user: "one"\nassistant: "ok"\nuser: "two"\nassistant: "ok"\ntools: Read\n---\nB\n'
    )
    assert "SA007" in {d.rule for d in parse_agent_text(text).diagnostics}
    _result, before, after = _fixed(text)
    assert before.description == "Use this agent for support."
    assert after.description == (
        'Use this agent for support.\nuser: "one"\nassistant: "ok"\nuser: "two"\nassistant: "ok"'
    )
    assert list(after.frontmatter) == ["name", "description", "tools"]
    assert not parse_agent_text(_result.fixed).diagnostics


# --------------------------------------------------------------------------- skipped


def test_column_0_example_blocks() -> None:
    text = (
        "---\nname: reviewer\n"
        "description: Use this agent after writing code. Examples:\n"
        "\n"
        "<example>\n"
        "Context: the user finished a feature\n"
        'user: "Please review PR #12"\n'
        'assistant: "I\'ll use the reviewer agent"\n'
        "<commentary>\n"
        "  Reviews catch bugs: always.\n"
        "</commentary>\n"
        "</example>\n"
        "\n"
        "model: sonnet\ntools: Read, Grep\n---\nYou review code.\n"
    )
    result, before, after = _fixed(text)
    assert not before.loaded and before.parse is ParseMode.FAILED
    assert after.loaded
    assert after.description == (
        "Use this agent after writing code. Examples:\n\n<example>\n"
        "Context: the user finished a feature\n"
        'user: "Please review PR #12"\n'
        'assistant: "I\'ll use the reviewer agent"\n'
        "<commentary>\n  Reviews catch bugs: always.\n</commentary>\n</example>"
    )
    assert after.model == "sonnet" and after.tools == ("Read", "Grep")
    assert after.body == "You review code."
    assert "skipped the file" in result.changes[0].message
    _only_lines_of(text, result.fixed.decode(), "description")


def test_indented_continuation_after_a_quoted_first_line() -> None:
    text = (
        "---\nname: rev\ndescription: Use when: the diff\n  touches more than\n"
        "    one module\ntools: Read\n---\nB\n"
    )
    _result, before, after = _fixed(text)
    assert not before.loaded  # the lenient pass quotes line 1; the indented lines then fail
    assert after.description == "Use when: the diff\ntouches more than\n  one module"
    assert after.tools == ("Read",)


def test_trailing_examples_colon() -> None:
    text = (
        "---\nname: rev\ndescription: Use this agent for reviews. Examples:\n"
        "  <example>user: review</example>\n---\nB\n"
    )
    _result, before, after = _fixed(text)
    assert not before.loaded
    assert after.description == (
        "Use this agent for reviews. Examples:\n<example>user: review</example>"
    )


def test_tab_indented_block_description() -> None:
    text = "---\nname: rev\ndescription: |\n\tReviews code.\n\tThen reports.\n---\nB\n"
    result, before, after = _fixed(text)
    assert not before.loaded  # the lenient pass quotes `|`, then the block lines fail
    assert after.description == "Reviews code.\nThen reports.\n"
    assert [c.code for c in result.changes] == ["tabs"]


def test_tab_indented_continuation_of_a_broken_description() -> None:
    text = "---\nname: rev\ndescription: Use when: x\n\tand more\n\t\tdeeper\n---\nB\n"
    _result, before, after = _fixed(text)
    assert not before.loaded
    assert after.description == "Use when: x\nand more\n  deeper"


def test_crlf_file_keeps_crlf() -> None:
    text = (
        "---\r\nname: rev\r\ndescription: Use when: x. Examples:\r\n<example>\r\n"
        'user: "go"\r\n</example>\r\ntools: Read\r\n---\r\nBody\r\n'
    )
    result, before, after = _fixed(text)
    assert not before.loaded  # the lenient pass never quotes a CRLF line
    fixed = result.fixed.decode()
    assert fixed.count("\n") == fixed.count("\r\n")
    assert after.description == 'Use when: x. Examples:\n<example>\nuser: "go"\n</example>'
    assert after.tools == ("Read",)
    assert fixed.endswith("tools: Read\r\n---\r\nBody\r\n")


def test_empty_first_line_with_column_0_text() -> None:
    text = "---\nname: rev\ndescription:\n<example>\nUse it\n</example>\n---\nB\n"
    _result, before, after = _fixed(text)
    assert not before.loaded
    assert after.description == "<example>\nUse it\n</example>"


def test_unknown_fields_are_kept_as_fields() -> None:
    text = "---\nname: rev\ndescription: Use when: x\n<example>\nversion: 2\n---\nB\n"
    result, _before, after = _fixed(text)
    assert after.description == "Use when: x\n<example>"
    assert after.frontmatter["version"] == 2
    assert load_frontmatter(result.fixed.decode())["version"] == 2


# --------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("text", "why"),
    [
        # a mangled `tools` line: absorbing it into the text would lift the tool limit
        ("---\nname: r\ndescription: Use when: x\n  tools: Read\n---\nB\n", "`tools` field"),
        ("---\nname: r\ndescription: Use when: x\n\ttools: Read\n---\nB\n", "`tools` field"),
        ("---\nname: r\ndescription: Use when: x\ntools Read, Grep\n---\nB\n", "without its `:`"),
        ("---\nname: r\ndescription: Use when: x\n<e>\ntools= Read\n---\nB\n", "without its `:`"),
        ("---\nname: r\ndescription: Use when: x\n<e>\n  model: opus\n---\nB\n", "`model` field"),
        # a real field twice
        ("---\nname: r\ndescription: Use when: x\nname: s\n---\nB\n", "defined twice"),
        # text before the first field
        ("---\n<example>\nname: r\ndescription: Use when: x\n---\nB\n", "before the first"),
        # a value that starts quoted and goes on: which text is meant?
        ('---\nname: r\ndescription: "Use" it\n<e>\n---\nB\n', "starts like a quoted"),
        # Claude Code reads a field that is not a line of its own (`123` is not a real key)
        ("---\nname: r\ndescription: Use when: x\n123: y\n---\nB\n", "not on lines of their own"),
    ],
)
def test_refusals_leave_the_file_untouched_and_say_why(text: str, why: str) -> None:
    result = fix_text(text.encode())
    assert result.status is FixStatus.UNFIXABLE
    assert result.fixed == text.encode()
    assert result.why is not None and why in result.why, result.notes
    assert result.to_dict()["notes"][-1] == f"cannot repair: {result.why}"


def test_a_dash_line_claude_code_ends_the_frontmatter_at_is_refused() -> None:
    # Claude Code ends the block at the first `---` anywhere, even mid-line
    text = "---\nname: r\ndescription: Use when: a --- b\ntools: Read\n---\nB\n"
    result = fix_text(text.encode())
    assert result.status is FixStatus.UNFIXABLE
    assert result.fixed == text.encode()
    assert result.why is not None and "ends the frontmatter on line 3" in result.why, result.notes


def test_an_indented_closing_line_moves_to_column_0_under_a_block() -> None:
    text = "---\nname: r\ndescription: Use when: a\n  ---\nBody\n"
    result, before, after = _fixed(text)
    assert result.fixed.decode() == "---\nname: r\ndescription: |-\n  Use when: a\n---\nBody\n"
    assert after.essentials() == before.essentials()


def test_parsers_that_disagree_on_a_value_are_not_guessed_at() -> None:
    # libyaml (Claude Code's reading, emulated) takes `>#` for an empty folded block,
    # PyYAML rejects it
    text = "---\nname: r\ndescription: >#\ntools: Read\n---\nB\n"
    result = fix_text(text.encode())
    assert result.status is FixStatus.UNFIXABLE
    assert result.why is not None and "disagree" in result.why, result.notes


def test_tabs_that_would_make_a_description_a_map_are_text() -> None:
    text = "---\nname: r\ndescription: Use it\n\tnote: this\ntools: Read\n---\nB\n"
    _result, before, after = _fixed(text)
    assert not before.loaded
    assert after.description == "Use it\nnote: this"
    assert after.tools == ("Read",)


def test_deeply_nested_broken_frontmatter_is_refused_without_crashing() -> None:
    text = "---\nname: r\ndescription: Use when: x\nhooks: " + "[" * 50_000 + "\n---\nB\n"
    result = fix_text(text.encode())
    assert result.status is FixStatus.UNFIXABLE
    assert result.fixed == text.encode()


# --------------------------------------------------------------------------- property

_FIELD_LINES = {
    "tools": "tools: Read, Grep",
    "model": "model: haiku",
    "color": "color: blue",
}
_TEXT_LINES = st.sampled_from(
    [
        "<example>",
        "</example>",
        'user: "do it: now"',
        'assistant: "ok"',
        "Context: a case",
        "Examples:",
        "  indented: text",
        "\tTabbed text",
        "plain sentence",
        "",
        "tools Read",  # a mangled field: must be refused, never absorbed
        "  tools: Bash",  # likewise
        "a\\nb",
    ]
)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    first=st.sampled_from(["Use when: x", "Use this agent. Examples:", "Plain", "@x", ""]),
    continuation=st.lists(_TEXT_LINES, max_size=6),
    after=st.lists(st.sampled_from(sorted(_FIELD_LINES)), unique=True, max_size=3),
    crlf=st.booleans(),
)
def test_any_broken_description_keeps_every_real_field_and_never_absorbs_one(
    first: str, continuation: list[str], after: list[str], crlf: bool
) -> None:
    lines = ["---", "name: rev", f"description: {first}".rstrip(), *continuation]
    lines += [_FIELD_LINES[k] for k in after] + ["---", "Body", ""]
    nl = "\r\n" if crlf else "\n"
    text = nl.join(lines)
    before = read_claude_code(text)
    result = fix_text(text.encode())
    if result.status is not FixStatus.FIXED:
        assert result.fixed == text.encode()
        return
    fixed = result.fixed.decode()
    view = read_claude_code(fixed)
    data = yaml.safe_load(frontmatter(fixed))
    # exactly the real fields, for Claude Code and for PyYAML
    assert list(view.frontmatter) == ["name", "description", *after]
    assert list(data) == list(view.frontmatter)
    for key in after:
        assert data[key] == yaml.safe_load(_FIELD_LINES[key])[key]
        assert view.frontmatter[key] == data[key]
    assert data["description"] == view.frontmatter["description"]
    # a mangled field line is never text of the description
    assert "tools Read" not in data["description"] and "tools: Bash" not in data["description"]
    if before.loaded and set(before.frontmatter) == set(view.frontmatter):
        assert view.essentials() == before.essentials()  # Claude Code read it whole: same reading
    assert fixed.endswith(nl.join(["---", "Body", ""]))
    if crlf:
        assert fixed.count("\n") == fixed.count("\r\n")
    assert fix_text(result.fixed).status is FixStatus.UNCHANGED


def test_the_claude_code_version_is_a_parameter() -> None:
    text = "---\nname: r\ndescription: Use when: x\n<example>\n---\nB\n"
    chosen = fix_text(text.encode(), claude_code=get_profile("2.1.330"))
    assert chosen.status is FixStatus.FIXED
    assert chosen.fixed == fix_text(text.encode()).fixed
