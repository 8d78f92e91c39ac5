"""Generation parameters per model: output limit, thinking and effort, as Claude Code sets them.

Design decisions:

* **A table, not code.**  :data:`MODEL_GENERATION` maps model ids (exact, or a prefix ending in
  ``*``) to the parameters Claude Code 2.1.332 sent for them, measured against a fake Messages
  API (``claude --model ID -p ...``; every row below was seen on the wire):

  ====================================================  ========  ========  ======
  model                                                  max out   thinking  effort
  ====================================================  ========  ========  ======
  claude-opus-5-5, -sonnet-5-5, -haiku-5-5, -fable-5-2    128000   adaptive  medium
  claude-sonnet-5-0, claude-opus-4-6                       64000   adaptive  high
  claude-opus-4-7                                          64000   adaptive  xhigh
  claude-sonnet-4-6                                        32000   adaptive  high
  claude-opus-4-5                                          32000   budget    high
  claude-sonnet-4-5, -haiku-4-5, -sonnet-4-2025...         32000   budget    —
  claude-3-7-sonnet                                        32000   —         —
  claude-3-5-haiku                                          8192   —         —
  anything else (gpt-4o, a local model, claude-opus-5-1)   32000   adaptive  high
  ====================================================  ========  ========  ======

  ``budget`` is ``{"type": "enabled", "budget_tokens": max_tokens - 1}``; ``adaptive`` is
  ``{"type": "adaptive"}``.  A new model needs a row here (or ``max-tokens``/``effort`` in
  config), never a code change.
* **Overrides** (:func:`generation_for`): ``max_tokens`` and ``effort`` from the caller (the
  ``--max-tokens``/``--effort`` flags, ``CLAUDE_CODE_MAX_OUTPUT_TOKENS``,
  ``max-tokens``/``effort``/``thinking`` in config, a subagent's ``effort`` frontmatter; which
  applies to which run is the runner's business) win over the row; ``thinking=False`` turns
  thinking (and with it effort) off.  An effort value that is not one of :data:`EFFORTS` is
  ignored for the row's default (the linter reports such frontmatter).
* **The providers map it**: Anthropic sends ``thinking`` and ``output_config.effort``; the
  OpenAI adapter sends ``reasoning_effort`` where the server has it (see its module) and never
  a thinking block.  A server that refuses them is asked again without them by the runner, with
  a warning (:mod:`subagents.runtime.runner`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from subagents.definition import EFFORTS

__all__ = [
    "DEFAULT_GENERATION",
    "EFFORTS",
    "EFFORT_EXPLICIT",
    "MODEL_GENERATION",
    "Generation",
    "ThinkingMode",
    "generation_for",
    "model_display_name",
]

ThinkingMode = Literal["adaptive", "budget"]

#: ``ModelRequest.metadata`` key: true when the user chose the effort (flag, config, agent), so
#: a provider that sends it only where the server is known to have it sends it anyway.
EFFORT_EXPLICIT = "effort_explicit"



@dataclass(frozen=True, slots=True)
class Generation:
    """What one request asks of the model besides the conversation."""

    max_tokens: int
    thinking: ThinkingMode | None = None
    effort: str | None = None

    @property
    def thinking_budget(self) -> int | None:
        """Tokens of thinking for ``budget`` mode (one less than the output limit, as measured)."""
        return max(1024, self.max_tokens - 1) if self.thinking == "budget" else None


#: The row for a model id the table does not know (what Claude Code sends for one).
DEFAULT_GENERATION = Generation(32000, "adaptive", "high")

#: model id (or ``prefix*``) -> parameters.  Most specific entry wins (exact, then longest prefix).
MODEL_GENERATION: Mapping[str, Generation] = {
    "claude-opus-5-5*": Generation(128000, "adaptive", "medium"),
    "claude-sonnet-5-5*": Generation(128000, "adaptive", "medium"),
    "claude-haiku-5-5*": Generation(128000, "adaptive", "medium"),
    "claude-fable-5-2*": Generation(128000, "adaptive", "medium"),
    "claude-sonnet-5-0*": Generation(64000, "adaptive", "high"),
    "claude-opus-4-7*": Generation(64000, "adaptive", "xhigh"),
    "claude-opus-4-6*": Generation(64000, "adaptive", "high"),
    "claude-sonnet-4-6*": Generation(32000, "adaptive", "high"),
    "claude-opus-4-5*": Generation(32000, "budget", "high"),
    "claude-sonnet-4-5*": Generation(32000, "budget", None),
    "claude-haiku-4-5*": Generation(32000, "budget", None),
    "claude-sonnet-4-2*": Generation(32000, "budget", None),
    "claude-opus-4-2*": Generation(32000, "budget", None),
    "claude-3-7-sonnet*": Generation(32000, None, None),
    "claude-3-5-haiku*": Generation(8192, None, None),
    "claude-3-5-sonnet*": Generation(8192, None, None),
    "claude-3-haiku*": Generation(4096, None, None),
}


def _row(model: str, table: Mapping[str, Generation]) -> Generation:
    key = model.strip().lower()
    if key in table:
        return table[key]
    best: tuple[int, Generation] | None = None
    for pattern, row in table.items():
        longer = best is None or len(pattern) > best[0]
        if pattern.endswith("*") and key.startswith(pattern[:-1]) and longer:
            best = (len(pattern), row)
    return best[1] if best is not None else DEFAULT_GENERATION


def generation_for(
    model: str,
    *,
    max_tokens: int | None = None,
    effort: str | None = None,
    thinking: bool | None = None,
    table: Mapping[str, Generation] | None = None,
) -> Generation:
    """The parameters for ``model``, with the caller's overrides applied (see the module)."""
    row = _row(model, MODEL_GENERATION if table is None else table)
    limit = max_tokens if max_tokens is not None and max_tokens > 0 else row.max_tokens
    mode = row.thinking
    if thinking is False:
        return Generation(limit, None, None)
    if thinking is True and mode is None:
        mode = "adaptive"
    wanted = (effort or "").strip().lower()
    chosen = wanted if wanted in EFFORTS else row.effort
    if mode is None:
        chosen = None  # effort rides on thinking: a model without thinking gets neither
    return Generation(limit, mode, chosen)


def model_display_name(model: str) -> str:
    """``claude-opus-5-5`` -> ``Opus 5.5``; an id of another shape is its own name."""
    parts = model.strip().split("-")
    if len(parts) >= 4 and parts[0] == "claude" and parts[2].isdigit() and parts[3].isdigit():
        return f"{parts[1].capitalize()} {parts[2]}.{parts[3]}"
    if len(parts) >= 3 and parts[0] == "claude" and parts[2].isdigit():
        return f"{parts[1].capitalize()} {parts[2]}"
    return model
