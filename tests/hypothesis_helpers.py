"""Hypothesis profiles: ``full`` for the whole suite, ``fast`` for the quick loop.

``full`` runs each property test with the examples it asks for (``examples(300)`` is 300).
Neither profile has a deadline: how long an example takes is never a test's verdict.
``fast`` caps every property test at :data:`FAST_EXAMPLES`: still a real search, found bugs
still shrink, only fewer tries.  The profile is chosen once, in conftest.py's
``pytest_configure``, before any test module is imported (``examples()`` is read when a
module's decorators run):

1. ``--hypothesis-profile=fast|full`` (hypothesis' own option), else
2. ``SUBAGENTS_HYPOTHESIS_PROFILE=fast|full``, else
3. ``fast`` when the run leaves the slow tests out (``-m "not slow"``), ``full`` otherwise.
"""

from __future__ import annotations

import os
import re

import pytest
from hypothesis import settings

FAST_EXAMPLES = 20
PROFILES = ("full", "fast")

# No deadline in either: a per-example time limit is a timing assertion, and on a loaded
# machine it failed tests whose code was right (the first example of a test that builds
# classes took 1.2 s against the default 200 ms).  Slowness is measured by bench/, not here.
settings.register_profile("full", deadline=None)  # otherwise hypothesis' own defaults
settings.register_profile("fast", max_examples=FAST_EXAMPLES, deadline=None)

_chosen = {"fast": False}  # set once per process by choose_profile()


def choose_profile(config: pytest.Config) -> str:
    """Load the profile this run asked for (see the module notes) and return its name."""
    explicit = config.getoption("hypothesis_profile", None)
    if explicit:  # hypothesis has loaded it already
        _chosen["fast"] = explicit == "fast"
        return str(explicit)
    name = os.environ.get("SUBAGENTS_HYPOTHESIS_PROFILE") or (
        "fast" if re.search(r"\bnot\s+slow\b", config.getoption("markexpr") or "") else "full"
    )
    if name not in PROFILES:
        raise pytest.UsageError(
            f"SUBAGENTS_HYPOTHESIS_PROFILE={name!r}: use one of {', '.join(PROFILES)}"
        )
    settings.load_profile(name)
    _chosen["fast"] = name == "fast"
    return name


def examples(n: int) -> int:
    """``n`` examples in the full run, at most :data:`FAST_EXAMPLES` in the fast loop."""
    return min(n, FAST_EXAMPLES) if _chosen["fast"] else n
