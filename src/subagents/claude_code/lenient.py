"""Claude Code's lenient second YAML pass: the text it parses when Bun's parser throws.

It quotes each ``key: value`` line at column 0 whose key is letters, ``_`` and ``-`` only and
whose value holds one of ``{}[]*&#!|>%@``, a backtick or ``": "`` (unless already quoted or a
flow list), and turns leading tabs into two spaces each (:mod:`subagents.claude_code.reader`
describes the whole reading).  Imported only when a first parse fails: most files never need
it.
"""

from __future__ import annotations

from subagents._lazy_re import lazy_compile
from subagents.claude_code import bun_yaml
from subagents.claude_code.reader import JS_SPACE

__all__ = ["lenient_rewrite"]

# JavaScript's `.` stops at \r, \u2028 and \u2029 as well as \n, and `$` (no m flag) is the
# end of the line string: a CRLF line therefore never matches and is never quoted.
_QUOTABLE_LINE = lazy_compile(
    f"([a-zA-Z_-]+):[{JS_SPACE}]+([^{JS_SPACE}][^\n\r\u2028\u2029]*)\\Z"
)
_NEEDS_QUOTES = lazy_compile(r"[{}\[\]*&#!|>%@`]|: ")
_LEADING_TABS = lazy_compile(r"(?m)^\t+")


def lenient_rewrite(text: str) -> tuple[str, tuple[str, ...]]:
    """The text of Claude Code's second YAML pass, and the keys whose values it quoted."""
    out: list[str] = []
    quoted: list[str] = []
    for line in text.split("\n"):
        m = _QUOTABLE_LINE.match(line)
        if m:
            key, value = m.group(1), m.group(2)
            if (value.startswith('"') and value.endswith('"')) or (
                value.startswith("'") and value.endswith("'")
            ):
                out.append(line)
                continue
            if value.startswith("[") and value.endswith("]"):
                try:
                    if isinstance(bun_yaml.parse(value), list):
                        out.append(line)
                        continue
                except bun_yaml.BunYamlError:
                    pass
            if _NEEDS_QUOTES.search(value):
                escaped = value.replace("\\", "\\\\").replace('"', '\\"')
                out.append(f'{key}: "{escaped}"')
                quoted.append(key)
                continue
        out.append(line)
    rewritten = "\n".join(out)
    rewritten = _LEADING_TABS.sub(lambda t: "  " * len(t.group(0)), rewritten)
    return rewritten, tuple(quoted)
