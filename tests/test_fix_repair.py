"""subagents.repair.fix: repairs keep text exactly, touch nothing else, and refuse what they cannot do."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from corpus_helpers import CORPUS, FURAI, VOLT, needs_corpus
from fix_helpers import (
    changed_regions,
    frontmatter,
    load_frontmatter,
    split_lines,
    yaml_breaks,
)
from hypothesis_helpers import examples
from subagents.claude_code import ParseMode, read_claude_code
from subagents.definition import Dialect
from subagents.harnesses.loader import parse_agent_text
from subagents.repair.fix import FixStatus, fix_file, fix_text, write_atomic

# --------------------------------------------------------------------------- the corpus


def _volt_broken() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(
        p
        for p in VOLT.rglob("*.md")
        if p.read_text("utf-8").startswith("---") and yaml_breaks(p.read_text("utf-8"))
    )


VOLT_BROKEN = _volt_broken()


@needs_corpus
def test_volt_has_exactly_eight_broken_frontmatters() -> None:
    assert len(VOLT_BROKEN) == 8


@needs_corpus
@pytest.mark.parametrize("path", VOLT_BROKEN, ids=lambda p: p.name)
def test_corpus_broken_description_is_repaired_exactly(path: Path) -> None:
    original = path.read_text("utf-8")
    lines = split_lines(original)
    desc_index = next(i for i, line in enumerate(lines) if line.startswith("description:"))
    # The intended text, computed independently of the reader: the rest of the line.
    intended = lines[desc_index][len("description:") :].strip()
    assert ": " in intended

    result = fix_text(original.encode(), path=str(path))
    assert result.status is FixStatus.FIXED, result.problems
    fixed = result.fixed.decode("utf-8")

    data = load_frontmatter(fixed)
    assert data["description"] == intended
    # every other field has the value it has when the broken line is taken out
    without = "".join(lines[:desc_index] + lines[desc_index + 1 :])
    others = load_frontmatter(without)
    assert {k: v for k, v in data.items() if k != "description"} == others
    assert list(data) == [
        *list(others)[: desc_index - 1],
        "description",
        *list(others)[desc_index - 1 :],
    ]

    # byte-for-byte outside the repaired line
    regions = changed_regions(original, fixed)
    assert len(regions) == 1
    tag, old, new = regions[0]
    assert tag == "replace"
    assert old == [lines[desc_index]]
    assert new[0] == "description: |-\n"

    # the real reader loads it cleanly now, and a second fix changes nothing
    reread = parse_agent_text(result.fixed, path="x.md")
    assert reread.ok and not reread.recovered
    assert reread.definition is not None and reread.definition.description == intended
    assert fix_text(result.fixed).status is FixStatus.UNCHANGED


@needs_corpus
def test_corpus_indented_file_with_leading_blank_line() -> None:
    path = FURAI / "files" / "agents" / "sqs-expert.md"
    original = path.read_bytes()
    before = parse_agent_text(original, path="sqs.md")
    assert any(d.rule == "SA018" for d in before.diagnostics)

    result = fix_text(original, path="sqs.md")
    assert result.status is FixStatus.FIXED
    fixed = result.fixed.decode()
    assert fixed.startswith("---\nname: sqs-expert\n")
    after = parse_agent_text(result.fixed, path="sqs.md")
    assert after.ok and not any(d.rule == "SA018" for d in after.diagnostics)
    assert before.definition is not None and after.definition is not None
    assert after.definition.name == before.definition.name
    assert after.definition.description == before.definition.description
    assert after.definition.model == before.definition.model
    # the whole file was indented by 4: every line is the original minus the indent
    old_lines = split_lines(original.decode())[1:]  # the leading blank line is gone
    new_lines = split_lines(fixed)
    assert len(old_lines) == len(new_lines)
    for old, new in zip(old_lines, new_lines, strict=True):
        assert old.removeprefix("    ") == new or (not old.strip() and not new.strip())
    codes = [c.code for c in result.changes]
    assert "indent" in codes and "leading-blank" in codes


@pytest.mark.slow
@needs_corpus
def test_corpus_claude_files_fix_is_idempotent_and_never_breaks_a_file() -> None:
    counts = dict.fromkeys(FixStatus, 0)
    for collection in (
        "VoltAgent__awesome-claude-code-subagents",
        "0xfurai__claude-code-subagents",
        "catlog22__Claude-Code-Workflow",
    ):
        for path in sorted((VOLT.parent / collection).rglob("*.md")):
            data = path.read_bytes()
            dialect = Dialect.CODEX_MD if "/.codex/" in str(path) else Dialect.CLAUDE
            before = parse_agent_text(data, dialect=dialect)
            result = fix_text(data, path=str(path), dialect=dialect)
            counts[result.status] += 1
            if result.status is FixStatus.FIXED:
                after = parse_agent_text(result.fixed, dialect=dialect)
                assert after.ok, (path, after.diagnostics)
                assert before.definition is not None and after.definition is not None
                assert after.definition.evolve(system_prompt="") == before.definition.evolve(
                    system_prompt="", path=None
                ).evolve(path=after.definition.path)
                assert fix_text(result.fixed, dialect=dialect).status is FixStatus.UNCHANGED
            elif result.status is FixStatus.UNFIXABLE:
                # only files that are not agents at all (READMEs without frontmatter)
                assert {p.rule for p in result.problems} <= {"SA003"}, (path, result.problems)
                assert result.fixed == data
            else:
                assert result.fixed == data
    # 8 broken descriptions + the indented sqs-expert file
    assert counts[FixStatus.FIXED] == 9


# --------------------------------------------------------------------------- hand-made cases

HAND_MADE = {
    "colon": (
        "---\nname: rev\ndescription: Use when: the user asks for a review\nmodel: sonnet\n---\nB\n",
        "Use when: the user asks for a review",
    ),
    "hash-and-quotes": (
        "---\nname: rev\ndescription: Triggers on: 'GDPR', \"CCPA\" # keep this, it's text\n---\nB\n",
        "Triggers on: 'GDPR', \"CCPA\" # keep this, it's text",
    ),
    "example-blocks": (
        "---\n"
        "name: reviewer\n"
        "description: Use this agent after writing code. Examples:\n"
        "  <example>\n"
        "  Context: the user finished a feature\n"
        '  user: "Please review PR #12"\n'
        '  assistant: "I\'ll use the reviewer agent: it checks style"\n'
        "    <commentary>nested lines keep their extra indent</commentary>\n"
        "  </example>\n"
        "tools: Read, Grep\n"
        "---\n"
        "You review code.\n",
        "Use this agent after writing code. Examples:\n"
        "<example>\n"
        "Context: the user finished a feature\n"
        'user: "Please review PR #12"\n'
        'assistant: "I\'ll use the reviewer agent: it checks style"\n'
        "  <commentary>nested lines keep their extra indent</commentary>\n"
        "</example>",
    ),
    "one-line-escaped-examples": (
        '---\nname: helper\ndescription: Use this agent when needed. <example>user: "do it"\\n'
        'assistant: "ok"</example>\ncolor: blue\n---\nB\n',
        'Use this agent when needed. <example>user: "do it"\\nassistant: "ok"</example>',
    ),
    "trailing-spaces": (
        "---\nname: rev\ndescription: Note: trailing spaces go   \n  and continue: here   \n---\nB\n",
        "Note: trailing spaces go\nand continue: here",
    ),
    "blank-line-inside": (
        "---\nname: rev\ndescription: First: para\n\n  second: para\nmodel: haiku\n---\nB\n",
        "First: para\n\nsecond: para",
    ),
}


@pytest.mark.parametrize("name", sorted(HAND_MADE))
@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
@pytest.mark.parametrize("bom", [False, True], ids=["nobom", "bom"])
def test_hand_made_broken_description(name: str, newline: str, bom: bool) -> None:
    text, intended = HAND_MADE[name]
    text = text.replace("\n", newline)
    data = (b"\xef\xbb\xbf" if bom else b"") + text.encode()
    assert yaml_breaks(text)
    result = fix_text(data, path=f"{name}.md")
    assert result.status is FixStatus.FIXED, (result.problems, result.notes)
    fixed = result.fixed.decode()
    assert not fixed.startswith("\ufeff")
    assert load_frontmatter(fixed)["description"] == intended
    # other fields unchanged
    before = parse_agent_text(data)
    after = parse_agent_text(result.fixed)
    assert after.ok and not after.recovered
    assert before.document is not None and after.document is not None
    for key, f in before.document.fields.items():
        if key != "description":
            assert after.document.fields[key].node.to_python() == f.node.to_python()
    assert before.document.body == after.document.body
    # line endings kept: no bare LF in a CRLF file
    if newline == "\r\n":
        assert fixed.count("\n") == fixed.count("\r\n")
    # nothing outside the description changed (besides the BOM)
    for _tag, old, new in changed_regions(text, fixed.lstrip("\ufeff")):
        assert old[0].startswith("description:") and new[0].startswith("description:")
    codes = [c.code for c in result.changes]
    assert codes.count("SA010") == 1
    assert ("bom" in codes) == bom


def test_falls_back_to_a_quoted_string_when_a_block_cannot_hold_the_text() -> None:
    # A control character cannot appear in a block scalar; the quoted form escapes it.
    text = "---\nname: rev\ndescription: Use when: \x07bell\n---\nB\n"
    result = fix_text(text.encode())
    if result.status is FixStatus.FIXED:
        fixed = result.fixed.decode()
        assert 'description: "' in fixed
        assert load_frontmatter(fixed)["description"] == "Use when: \x07bell"
    else:  # the reader refuses the control character before recovery: left untouched
        assert result.fixed == text.encode()


def test_other_broken_field_is_repaired_too() -> None:
    text = (
        "---\nname: rev\ndescription: Reviews code\ninitialPrompt: Start with: git diff\n---\nB\n"
    )
    result = fix_text(text.encode())
    assert result.status is FixStatus.FIXED
    assert load_frontmatter(result.fixed.decode())["initialPrompt"] == "Start with: git diff"


# --------------------------------------------------------------------------- normalisations


def test_valid_file_is_unchanged_byte_for_byte() -> None:
    text = (
        "---\r\nname: rev\r\ndescription: Reviews code\r\ntools:\r\n  - Read\r\n  - Grep\r\n"
        "hooks:\r\n  Stop:\r\n    - hooks:\r\n        - type: command\r\n"
        "          command: echo done   \r\n---\r\nBody   \r\n\r\n"
    )
    result = fix_text(text.encode())
    assert result.status is FixStatus.UNCHANGED
    assert result.fixed == text.encode()
    assert result.diff() == ""


def test_trailing_whitespace_after_delimiters_is_removed() -> None:
    text = "---  \nname: rev\ndescription: Reviews code\n--- \t\nBody ---  \n"
    result = fix_text(text.encode())
    assert result.status is FixStatus.FIXED
    assert result.fixed.decode() == "---\nname: rev\ndescription: Reviews code\n---\nBody ---  \n"
    assert [c.code for c in result.changes] == ["delimiter", "delimiter"]


def test_bom_only() -> None:
    text = "\ufeff---\r\nname: rev\r\ndescription: Reviews code\r\n---\r\nBody\r\n"
    result = fix_text(text.encode())
    assert result.status is FixStatus.FIXED
    assert result.fixed == text[1:].encode()


def test_tools_style_list_to_comma_and_back() -> None:
    text = (
        "---\nname: rev\ndescription: Reviews code\ntools:\n  - Read\n  - Agent(a, b)\n"
        "  - mcp__github__*\nmodel: sonnet\n---\nBody\n"
    )
    assert fix_text(text.encode()).status is FixStatus.UNCHANGED  # both styles are valid
    comma = fix_text(text.encode(), tools_style="comma")
    assert comma.status is FixStatus.FIXED
    assert "tools: Read, Agent(a, b), mcp__github__*\nmodel: sonnet\n" in comma.fixed.decode()
    back = fix_text(comma.fixed, tools_style="list")
    assert back.status is FixStatus.FIXED
    assert back.fixed == text.encode()
    before = parse_agent_text(text.encode()).definition
    after = parse_agent_text(comma.fixed).definition
    assert before is not None and after is not None and before.tools == after.tools


def test_tools_with_a_comment_keep_their_style() -> None:
    text = "---\nname: rev\ndescription: Reviews code\ntools: Read, Grep # read-only\n---\nB\n"
    result = fix_text(text.encode(), tools_style="list")
    assert result.status is FixStatus.UNCHANGED
    assert any("comment" in n for n in result.notes)


def test_stop_hook_is_left_as_is() -> None:
    text = (
        "---\nname: rev\ndescription: Use when: x\nhooks:\n  Stop:\n    - hooks:\n"
        "        - type: command\n          command: ./after.sh\n---\nB\n"
    )
    result = fix_text(text.encode())
    assert result.status is FixStatus.FIXED
    assert load_frontmatter(result.fixed.decode())["hooks"] == {
        "Stop": [{"hooks": [{"type": "command", "command": "./after.sh"}]}]
    }


# --------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("---\nname: rev\ndescription: Use when: x\n\tmodel: haiku\n---\nB\n", "SA013"),
        ("---\nname: rev\nname: other\ndescription: Use x\n---\nB\n", "SA007"),
        ("---\nname: rev\ndescription: Use when: x\n", "SA004"),
        ("just a note, no frontmatter\n", "SA003"),
        ("---\nname: &a rev\ndescription: *a\n---\nB\n", "SA008"),
        # a value that starts like a quoted string and goes on at column 0: which text is
        # meant is a guess (Claude Code skips the file), so a person decides
        ("---\nname: rev\ndescription: 'quoted'\n<example>x</example>\n---\nB\n", "SA005"),
    ],
)
def test_unrepairable_files_are_left_untouched(text: str, code: str) -> None:
    data = ("\ufeff" + text).encode()  # even the BOM stays: the file is not touched at all
    result = fix_text(data)
    assert result.status is FixStatus.UNFIXABLE
    assert result.fixed == data
    assert code in {p.rule for p in result.problems}


@pytest.mark.parametrize(
    ("value", "read"),
    [
        ("[unclosed", "[unclosed"),
        ("'quoted' then: more", "'quoted' then: more"),
        ("| not a block: really", "| not a block: really"),
        ("@mention me", "@mention me"),
    ],
)
def test_values_claude_code_reads_with_its_lenient_pass_keep_its_reading(
    value: str, read: str
) -> None:
    text = f"---\nname: rev\ndescription: {value}\n---\nB\n"
    assert yaml_breaks(text)
    before = read_claude_code(text)
    assert before.loaded and before.description == read
    result = fix_text(text.encode())
    assert result.status is FixStatus.FIXED, result.notes
    assert load_frontmatter(result.fixed.decode())["description"] == read
    after = read_claude_code(result.fixed)
    assert after.parse is ParseMode.YAML and after.description == read


def test_latin1_is_left_untouched() -> None:
    data = "---\nname: caf\xe9\ndescription: Use when: x\n---\nB\n".encode("latin-1")
    result = fix_text(data)
    assert result.status is FixStatus.UNFIXABLE
    assert [p.rule for p in result.problems] == ["SA001"]
    assert result.fixed == data


def test_json_is_skipped() -> None:
    result = fix_text(b'{"a": {}}', dialect=Dialect.JSON)
    assert result.status is FixStatus.SKIPPED


# --------------------------------------------------------------------------- property


_ALPHABET = st.sampled_from(
    [*list("abc XYZ:#'\"-<>/|>{}[],&*!%@`\\"), ": ", "<example>", "</example>", "user: ", "é"]
)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_ALPHABET, min_size=1, max_size=30).map("".join))
def test_any_single_line_description_is_fixed_exactly_or_left_alone(value: str) -> None:
    text = f"---\nname: rev\ndescription: {value}\ntools: Read\n---\nBody\n"
    result = fix_text(text.encode())
    before = read_claude_code(text)
    if result.status is FixStatus.FIXED:
        data = yaml.safe_load(frontmatter(result.fixed.decode()))
        if before.loaded:  # Claude Code read it (quoted by its lenient pass): same reading
            assert data["description"] == before.frontmatter["description"]
            assert read_claude_code(result.fixed).essentials() == before.essentials()
        else:  # it skipped the file: the text as written
            assert data["description"] == value.strip()
        assert data["tools"] == "Read" and data["name"] == "rev"
        assert result.fixed.decode().endswith("tools: Read\n---\nBody\n")
        assert fix_text(result.fixed).status is FixStatus.UNCHANGED
    else:
        assert result.fixed == text.encode()
        if result.status is FixStatus.UNCHANGED:  # the reader saw no YAML syntax problem
            reread = parse_agent_text(text)
            assert not reread.recovered
            assert not {d.rule for d in reread.diagnostics} & {"SA005", "SA010"}


# --------------------------------------------------------------------------- files


def test_fix_file_writes_atomically_and_keeps_the_mode(tmp_path: Path) -> None:
    path = tmp_path / "rev.md"
    path.write_bytes(b"---\nname: rev\ndescription: Use when: x\n---\nB\n")
    path.chmod(0o640)
    inode_before = path.stat().st_ino
    result = fix_file(path)
    assert result.status is FixStatus.FIXED
    assert path.read_bytes() == result.fixed
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert path.stat().st_ino != inode_before  # replaced by rename, not rewritten in place
    assert sorted(os.listdir(tmp_path)) == ["rev.md"]  # no temp file left behind


def test_fix_file_without_write_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "rev.md"
    data = b"---\nname: rev\ndescription: Use when: x\n---\nB\n"
    path.write_bytes(data)
    result = fix_file(path, write=False)
    assert result.status is FixStatus.FIXED and result.changed
    assert path.read_bytes() == data
    assert result.diff().startswith(f"--- a/{str(path).lstrip('/')}\n")


def test_symlinks_are_not_written_through(tmp_path: Path) -> None:
    target = tmp_path / "real.md"
    target.write_bytes(b"---\nname: rev\ndescription: Use when: x\n---\nB\n")
    link = tmp_path / "link.md"
    link.symlink_to(target)
    result = fix_file(link)
    assert result.status is FixStatus.SKIPPED
    assert target.read_bytes().startswith(b"---\nname: rev\ndescription: Use when")


def test_write_atomic_leaves_no_temp_file_on_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from subagents.errors import SubagentError

    target = tmp_path / "a.md"
    target.write_bytes(b"x")

    def refuse(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(SubagentError, match="No space left"):
        write_atomic(target, b"y")
    assert os.listdir(tmp_path) == ["a.md"]
    assert target.read_bytes() == b"x"


def test_a_value_error_elsewhere_does_not_block_the_repair() -> None:
    text = "---\nname: rev\ndescription: Use when: x\nmaxTurns: ten\n---\nB\n"
    result = fix_text(text.encode())
    assert result.status is FixStatus.FIXED
    assert load_frontmatter(result.fixed.decode()) == {
        "name": "rev",
        "description": "Use when: x",
        "maxTurns": "ten",
    }
    # the wrong type is still there for `validate` to report
    assert {d.rule for d in parse_agent_text(result.fixed).diagnostics} == {"SA108"}


def test_disallowed_tools_follow_the_tools_style_too() -> None:
    text = "---\nname: rev\ndescription: Reviews code\ndisallowedTools: Write, Edit\n---\nB\n"
    result = fix_text(text.encode(), tools_style="list")
    assert result.status is FixStatus.FIXED
    assert "disallowedTools:\n  - Write\n  - Edit\n---\n" in result.fixed.decode()


def test_a_comment_after_a_value_claude_code_reads_stays_a_comment() -> None:
    text = "---\nname: rev\ndescription: Use when: x\n# is this text or a comment?\ntools: Read\n---\nB\n"
    before = read_claude_code(text)
    assert before.loaded and before.description == "Use when: x"
    result = fix_text(text.encode())
    assert result.status is FixStatus.FIXED
    assert result.fixed.decode() == (
        "---\nname: rev\ndescription: |-\n  Use when: x\n# is this text or a comment?\n"
        "tools: Read\n---\nB\n"
    )
    assert read_claude_code(result.fixed).essentials() == before.essentials()


def test_a_comment_line_inside_a_broken_value_is_not_guessed_at() -> None:
    # Claude Code skips this file (the column-0 <example> line): is the `#` line text or not?
    text = (
        "---\nname: rev\ndescription: Use when: x\n<example>\n# text or comment?\n"
        "</example>\ntools: Read\n---\nB\n"
    )
    assert not read_claude_code(text).loaded
    result = fix_text(text.encode())
    assert result.status is FixStatus.UNFIXABLE
    assert result.fixed == text.encode()
    assert result.why is not None and "text or a comment" in result.why, result.notes


_LINE_TEXT = st.lists(
    st.sampled_from([*list("ab XY:'\"-<>/|{}[],&*!%@`\\"), ": ", "<example>", "user: ", "é"]),
    min_size=0,
    max_size=12,
).map("".join)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    first=_LINE_TEXT,
    rest=st.lists(st.tuples(st.integers(0, 4), _LINE_TEXT), min_size=1, max_size=5),
)
# An indented `---` ends Claude Code's block early: `model:` is then body text to it, and the
# repair keeps that reading rather than inventing a model Claude Code never saw.
@example(first="", rest=[(0, "---")])
def test_any_multi_line_broken_value_reads_back_as_the_recovered_text(
    first: str, rest: list[tuple[int, str]]
) -> None:
    continuation = "".join(f"  {' ' * extra}{line}\n" for extra, line in rest)
    text = f"---\nname: rev\ndescription: Use when: {first}\n{continuation}model: haiku\n---\nB\n"
    cc_before = read_claude_code(text)
    result = fix_text(text.encode())
    if result.status is FixStatus.FIXED:
        if cc_before.loaded:  # Claude Code read it whole: the repair keeps its reading
            intended = cc_before.frontmatter["description"]
            assert read_claude_code(result.fixed).essentials() == cc_before.essentials()
        else:  # it skipped the file: the whole text as written, common indent removed
            lines = [f"{' ' * extra}{line}".rstrip() for extra, line in rest]
            while lines and not lines[-1]:
                lines.pop()
            cut = min((len(x) - len(x.lstrip()) for x in lines if x), default=0)
            intended = "\n".join([f"Use when: {first}".strip(), *(x[cut:] for x in lines)])
        data = yaml.safe_load(frontmatter(result.fixed.decode()))
        assert data["description"] == intended
        expected_model = cc_before.frontmatter.get("model") if cc_before.loaded else "haiku"
        assert data.get("model") == expected_model and data["name"] == "rev"
        assert fix_text(result.fixed).status is FixStatus.UNCHANGED
    else:
        assert result.fixed == text.encode()
