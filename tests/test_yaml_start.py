"""``subagents._yaml_start``: PyYAML gets a pattern that matches exactly what its own does."""

from __future__ import annotations

import re
import subprocess
import sys

from subagents import _yaml_start


def test_the_seeded_key_is_pyyamls_pattern() -> None:
    # PyYAML's own pattern, in a process that never imported subagents: if a PyYAML release
    # changes it, the seed no longer applies; update both constants then
    code = "import yaml.reader; print(ascii(yaml.reader.Reader.NON_PRINTABLE.pattern))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == ascii(_yaml_start.NON_PRINTABLE)


def test_the_equivalent_matches_the_same_code_points() -> None:
    original = re.compile(_yaml_start.NON_PRINTABLE)
    cheap = re.compile(_yaml_start.NON_PRINTABLE_EQUIVALENT)
    differ = [c for c in range(sys.maxunicode + 1)
              if (original.match(chr(c)) is None) != (cheap.match(chr(c)) is None)]
    assert differ == []


def test_a_fresh_process_gives_yaml_the_equivalent_and_yaml_reads_as_before() -> None:
    code = (
        "import subagents, yaml, yaml.reader\n"
        "from subagents import _yaml_start as s\n"
        "print(yaml.reader.Reader.NON_PRINTABLE.pattern == s.NON_PRINTABLE_EQUIVALENT)\n"
        "try:\n"
        "    yaml.safe_load('a: \"\\x07\"')\n"
        "except yaml.YAMLError as e:\n"
        "    print('refused', '#x0007' in str(e))\n"
        "print(yaml.safe_load('k: caf\\u00e9 \\U0001F600'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split("\n")
    assert out[0] == "True"
    assert out[1] == "refused True"
    assert out[2] == "{'k': 'café 😀'}"


def test_nothing_is_seeded_when_yaml_is_already_imported() -> None:
    code = (
        "import re, yaml\n"
        "import subagents._yaml_start as s\n"
        "re._cache.clear()\n"
        "s.seed()\n"
        "print((str, s.NON_PRINTABLE, 0) in re._cache)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "False"
