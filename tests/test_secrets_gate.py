"""The secrets scan's gate (``security._Gate``) never changes what ``find_secrets`` finds.

The gate answers "does this text hold anything the scan looks for?" in one pass; a text it
turns away must be one the full scan finds nothing in.  Compared here, text by text, with the
gate forced on and forced off: on generated texts built around every literal and pattern the
scan starts from, on real agent files, and on texts with surrogates and other code points.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subagents.lint.rules import security
from subagents.lint.rules.security import find_secrets


@contextmanager
def _gate(on: bool) -> Iterator[None]:
    saved = (security._Gate.read, security._Gate.match, security._Gate.failed)
    try:
        if on:
            security._Gate.read, security._Gate.match, security._Gate.failed = 0, None, False
            security._Gate.read = security._GATE_AFTER  # build it at the next text
        else:
            security._Gate.match, security._Gate.failed = None, True
        yield
        if on:
            assert security._Gate.match is not None, "the gate did not build"
    finally:
        security._Gate.read, security._Gate.match, security._Gate.failed = saved


def _both(text: str) -> tuple[list[tuple[int, str, str]], list[tuple[int, str, str]]]:
    with _gate(False):
        plain = list(find_secrets(text))
    with _gate(True):
        gated = list(find_secrets(text))
    return plain, gated


def _r(n: int, seed: int) -> str:
    rnd = random.Random(seed)
    return "".join(rnd.choice("abcdefghijkLMNOPQRSTUVWXYZ0123456789") for _ in range(n))


_SAMPLES = [
    "ghp_" + _r(36, 1), "gho_" + _r(40, 2), "github_pat_" + _r(60, 3), "AKIA" + _r(16, 4).upper(),
    "ASIA" + _r(16, 5).upper(), "sk-ant-" + _r(40, 6), "sk-proj-" + _r(48, 7), "xoxb-" + _r(30, 8),
    "https://hooks.slack.com/services/T" + _r(8, 9).upper() + "/B" + _r(8, 10).upper() + "/"
    + _r(24, 11),
    "aws_secret_access_key = " + _r(40, 12), "AWS_SECRET_ACCESS_KEY: '" + _r(40, 13) + "'",
    # the narrowest of each: an OpenAI key of 32 characters, and U+017F (a long s, which
    # Python's case-insensitive match takes for `s`) in both places of `aws_secret`
    "sk-" + _r(32, 22), "AW\u017f_\u017fECRET_KEY=" + _r(40, 23),
    "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(_r(64, 14 + i) for i in range(6))
    + "\n-----END RSA PRIVATE KEY-----",
]


@pytest.mark.parametrize("sample", _SAMPLES)
def test_each_kind_is_found_with_the_gate(sample: str) -> None:
    text = f"Use this:\n{sample}\nthen stop.\n"
    plain, gated = _both(text)
    assert plain, "the sample should be a finding of the plain scan"
    assert gated == plain


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_SAMPLES), st.sampled_from(
    ["gh", "ghp_", "sk-", "xox", "ecret", "ECRET", "SeCrEt", "AKIA", "PRIVATE KEY", "\ud800",
     "é", "\U0001F600", "\x00", "\n", " ", "key: ", "task-", "sk-" + "a" * 31, "aws_",
     "AWS", "\u017f", "secret", "ecret", "_key=", "\u212a"]), st.text(max_size=40)),
    max_size=12))
def test_generated_texts_agree(parts: list[str]) -> None:
    plain, gated = _both("".join(parts))
    assert gated == plain


def test_real_agent_files_agree(corpus: Path) -> None:
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(corpus.rglob("*.md"))]
    assert len(texts) > 300
    for text in texts:
        plain, gated = _both(text)
        assert gated == plain


def test_the_gate_turns_away_a_text_without_any_literal() -> None:
    with _gate(True):
        assert not security._Gate.may_hold("a plain prompt about reviewing code")
        assert security._Gate.may_hold("export TOKEN=sk-" + _r(40, 20))


def test_a_gate_that_cannot_build_scans_every_text(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real_import = builtins.__import__

    def no_re2(name: str, *a: object, **k: object) -> object:
        if name in ("re2", "hyperscan"):
            raise ImportError(name)
        return real_import(name, *a, **k)  # type: ignore[arg-type]

    saved = (security._Gate.read, security._Gate.match, security._Gate.failed)
    try:
        security._Gate.read, security._Gate.match, security._Gate.failed = (
            security._GATE_AFTER, None, False)
        monkeypatch.setattr(builtins, "__import__", no_re2)
        sample = "token ghp_" + _r(36, 21)
        assert list(find_secrets(sample))
        assert security._Gate.failed and security._Gate.match is None
        assert security._Gate.may_hold("nothing here")  # fails closed: scanned in full
    finally:
        security._Gate.read, security._Gate.match, security._Gate.failed = saved


def _texts_for_both_gates() -> Iterator[str]:
    rnd = random.Random(5)
    pieces = ["gh", "ghp_", "ghs_", "gh_", "github_pat_", "AKIA", "ASIA", "AKI", "sk-", "s k-",
              "xox", "ecret", "ECRET", "eCret", "PRIVATE KEY", "PRIVATE  KEY",
              "https://hooks.slack.com/", "https://hooks.slack.co", "\ud800", "é", "\x00",
              "\U0001F600", "\n", " ", "a", "Z", "_", "-", "subagents:", "subagents",
              "Subagents:", ":", "task-", "sk-" + "a" * 31, "aws_", "aWs", "AW\u017f",
              "\u017fecret", "SECRET", "b" * 10]
    for _ in range(3000):
        yield "".join(rnd.choice(pieces) for _ in range(rnd.randrange(0, 12)))
    yield from _SAMPLES


def test_a_narrowed_literal_needs_its_condition() -> None:
    """``task-`` and ``secret`` alone no longer make the scan look for keys; with a key's
    shape after them they do."""
    with _gate(True):
        assert not security._Gate.may_hold("a task-based agent that keeps secrets")
        assert not security._Gate.may_hold("sk-" + "a" * 31)
        assert security._Gate.held("x sk-" + "a" * 32) == {"sk-"}
        assert security._Gate.held("AWS_SECRET") == {"ECRET"}
        assert security._Gate.held("aw\u017f_\u017fecret") == {"ecret"}


def test_the_aws_condition_takes_every_code_point_python_folds_to_its_letters() -> None:
    """The AWS condition spells ``aws_?secret`` letter by letter, with every code point that
    Python's case-insensitive ``re`` matches for each letter (checked over all of Unicode)."""
    import re
    import sys

    condition = security._NARROWED[1][1]
    assert security._NARROWED[2][1] == condition
    kind = next(k for k in security._KINDS if k.anchors)
    assert kind.pattern.pattern.startswith("(?i)aws_?secret")
    for letter in "awsecrt":
        folds = re.compile("(?i)" + letter)
        found = {chr(c) for c in range(sys.maxunicode + 1) if folds.fullmatch(chr(c))}
        spelled = {letter, letter.upper()} | ({"\u017f"} if letter == "s" else set())
        assert found == spelled, letter
    assert "\\xc5\\xbf" in condition and "\u017f".encode() == b"\xc5\xbf"


def test_the_hyperscan_and_re2_gates_name_the_same_patterns() -> None:
    """Each text's set of patterns, from either engine, over the same bytes."""
    hs_gate, re2_gate = security._hyperscan_gate(), security._re2_gate()
    if hs_gate is None or re2_gate is None:
        pytest.skip("needs both the hyperscan and the re2 wheels")
    seen = set()
    for text in _texts_for_both_gates():
        data = text.encode("utf-8", "surrogatepass")
        named = sorted(hs_gate(data))
        assert named == sorted(re2_gate(data)), text
        seen.update(named)
    assert seen == set(range(len(security._GATE_PATTERNS)))  # every pattern was met


def test_a_failing_hyperscan_scan_names_every_pattern() -> None:
    gate = security._hyperscan_gate()
    if gate is None:
        pytest.skip("needs the hyperscan wheel")
    assert gate(b"nothing here") == []
    assert sorted(gate("nothing here")) == list(range(len(security._GATE_PATTERNS)))  # type: ignore[arg-type]


_BYTE_PIECES = [s.encode("utf-8", "surrogatepass") for s in _SAMPLES] + [
    b"gh", b"ghp_", b"sk-", b"s\rk-", b"s\r\nk-", b"xox", b"ecret", b"ECR\rET", b"AKIA",
    b"PRIVATE KEY", b"PRIVATE\r\nKEY", b"subagents:", b"subagents\r:", b"\xef\xbb\xbf",
    b"\r", b"\r\n", b"\n", b"\xc3\xa9", b"\xf0\x9f\x98\x80", b" ", b"key: ", b"a"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_BYTE_PIECES), st.binary(max_size=30)),
                max_size=12))
def test_the_gate_reads_the_file_bytes_as_it_reads_the_text(parts: list[bytes]) -> None:
    """The gate given a file's bytes (BOM, CRLF and lone CR as written) names what it names
    in the text the reader decoded from them, so the scan finds the same secrets."""
    from subagents.formats.frontmatter import decode_parts

    data = b"".join(parts)
    text = decode_parts(data)[0]
    if text is None:  # not UTF-8, or binary: the reader keeps no text and no bytes for it
        return
    with _gate(True):
        from_text = security._Gate.held(text)
        from_bytes = security._Gate.held(text, data)
        assert from_bytes == from_text
        assert list(find_secrets(text, data)) == list(find_secrets(text))
