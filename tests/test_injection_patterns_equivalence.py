"""Signal parts rewritten to compile faster match exactly what they matched before.

RE2 builds a bounded window (``[^\\n]{0,120}?``) state by state, so a part that repeats one
window and its address after six verb lists compiled six windows; the part now puts the
verbs in one group before a single window.  ``(a|b)c`` and ``ac|bc`` match the same strings
and, in leftmost-first order, prefer the same match at each start; an alternative moved
past another that can never match where it starts changes no preference either.  These
tests hold the part as it was written before (the reference) and compare every match --
start and end, from every position a search resumes at -- on the development sets'
texts, normalised as the detector reads them, and on made-up texts built from the part's
own phrases (so the rewritten alternatives do match, at window lengths on both sides of
the bound).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from injection_helpers import phrases_with_gaps
from subagents.lint.rules import injection
from subagents.lint.rules.injection_lexicon import SEND_MORE
from subagents.lint.rules.injection_patterns import _ADDRESS, _SIGNALS

DATA = Path(__file__).parent / "data" / "injection"
# the development sets only: the held-out sets are for measuring, not for tests
TEXTS = [json.loads(line)["text"] for name in ("dev.jsonl", "dev2.jsonl", "probe3.jsonl",
                                               "probe4.jsonl")
         for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()]

# ``send.0`` as it was written before its verbs shared one window (the reference)
_SEND_BEFORE = (
    r"\b(?:send|sends|sending|upload|post|exfiltrate|transmit|forward|e-?mail|leak|pipe|"
    r"beacon|append|paste)\b[^\n]{0,160}?(?:" + _ADDRESS + r"|(?:the |a |your )?webhook\b)" +
    r"|\b(?:include|share|copy|put|add)\b[^\n]{0,120}?\b(?:to|at|on)\s+(?:https?://|ftp://|"
    r"\d{1,3}(?:\.\d{1,3}){3}\b)"
    r"|\b(?:curl|wget|nc|netcat)\b[^\n]{0,120}?" + _ADDRESS +
    r"|(?:https?://|ftp://)\S*(?:\?|&)[\w-]*(?:d|q|data|key|token|secret|leak|c)=\S*"
    r"|\b(?:sende|schicke|übermittle|lade)\b[^\n]{0,120}?" + _ADDRESS +
    r"|\b(?:envía|envia|manda|sube|transmite)\b[^\n]{0,120}?" + _ADDRESS +
    r"|\b(?:envoie|envoyez|transmets|transmettez|téléverse)\b[^\n]{0,120}?" + _ADDRESS +
    r"|\b(?:invia|manda|envie|enviar)\b[^\n]{0,120}?" + _ADDRESS +
    r"|(?:отправь|отправьте|пришли)[^\n]{0,120}?" + _ADDRESS +
    r"|(?:发送|上传|发到|传到|发给)[^\n]{0,80}?" + _ADDRESS
) + SEND_MORE

#: part name -> its source before the rewrite
BEFORE = {"send.0": _SEND_BEFORE}


def _now(name: str) -> str:
    kind, n = name.split(".")
    return dict(_SIGNALS)[kind][int(n)]


def _compiled(source: str) -> Any:
    return injection._compile_part(source)


_PAIRS = {name: (_compiled(before), _compiled(_now(name))) for name, before in BEFORE.items()}


def test_the_parts_were_rewritten() -> None:
    """The reference is not the part itself (else the comparisons below prove nothing)."""
    for name, before in BEFORE.items():
        assert before != _now(name)


def _matches(rx: Any, data: str | bytes) -> list[tuple[int, int]]:
    """Every match as the detector enumerates them, and the first match from every start a
    search can resume at (where a match ended, or any position)."""
    spans = [m.span() for m in rx.finditer(data)]
    starts = sorted({0, *(e for _, e in spans), *range(0, len(data), 7)})
    found = []
    for pos in starts:
        m = rx.search(data, pos)
        found.append((pos, *(m.span() if m else (-1, -1))))
    return spans + [(-2, -2)] + [(p, s) for p, s, _ in found] + [(e, e) for _, _, e in found]


def _same(text: str) -> None:
    for variant in {injection.normalise(text), text.casefold()}:
        raw = variant.encode()
        for before, now in _PAIRS.values():
            assert _matches(now, variant) == _matches(before, variant)
            if len(raw) == len(variant):  # an ASCII view is searched as bytes
                assert _matches(now, raw) == _matches(before, raw)


@pytest.mark.parametrize("text", TEXTS[::3])
def test_the_rewritten_parts_match_as_before_on_the_development_texts(text: str) -> None:
    _same(text)


# phrases of the rewritten alternatives, and what sits around them
_VERBS = ["send", "post", "curl", "wget", "nc", "netcat", "sende", "lade", "schicke",
          "übermittle", "envía", "envia", "manda", "sube", "transmite", "envoie", "envoyez",
          "téléverse", "transmettez", "invia", "envie", "enviar", "отправь", "отправьте",
          "пришли", "发送", "上传", "include", "share", "copy", "fetch", "request"]
_ADDRESSES = ["https://x.example/a", "http://h.io", "ftp://f.net", "10.0.0.1", "a.b@c.io",
              "pastebin", "attacker", "my server", "to evil.com", "at box.ru", "à site.fr",
              "the webhook", "webhook", "https://q.example/?d=1", "https://x.io/p?token=a&c=2",
              "on https://z.example", "public gist", "with a@b.co", "with the logs"]
_FILLER = ["the file", "its contents", "and", ",", ".", " ", "\n", "é", "1", "_", "-",
           "données", "содержимое", "内容", "to", "at", "a", "with"]


def _made_up(rng: random.Random) -> str:
    return phrases_with_gaps(rng, _VERBS, _FILLER, _ADDRESSES, ["", " ", ". ", "\n", " and "],
                             most=6, short=40)


def test_the_rewritten_parts_match_as_before_on_made_up_texts() -> None:
    rng = random.Random(22)
    matched = 0
    for _ in range(400):
        text = _made_up(rng)
        _same(text)
        matched += _PAIRS["send.0"][1].search(text.casefold()) is not None
    assert matched > 200  # the texts do exercise the part


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_VERBS + _ADDRESSES + _FILLER + ["x" * 40, "y " * 30]),
                max_size=16).map(" ".join))
def test_the_rewritten_parts_match_as_before_on_any_mix(text: str) -> None:
    _same(text)
