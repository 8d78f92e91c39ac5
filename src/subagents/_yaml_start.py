"""Make ``import yaml`` cheaper for a short command, without changing what PyYAML does.

Design notes
------------
* Importing PyYAML compiles one regular expression, ``yaml.reader.Reader.NON_PRINTABLE``: a
  negated class whose ranges reach U+10FFFF.  Python's ``re`` builds a bitmap for such ranges
  one code point at a time, about a third of what ``import yaml`` costs (53 M of 164 M
  instructions by callgrind) and a tenth of ``subagents validate one.md``.
* :func:`seed` puts into ``re``'s compile cache, under PyYAML's exact pattern text, the
  pattern of the complement class written with the few small ranges it consists of.  It
  matches exactly the same characters (``tests/test_yaml_start.py`` checks every code point)
  and compiles in a fraction of the time; PyYAML then gets it from the cache instead of
  compiling its own.  The only use PyYAML makes of the object is ``search``.
* It fails safe: when ``yaml`` is already imported, when ``re``'s cache is not the dict this
  expects (another Python), or when a later PyYAML changes its pattern (the key no longer
  matches), nothing changes and PyYAML compiles its own pattern as before.  A test says when
  PyYAML's pattern moved, so this is updated rather than silently lost.
"""

from __future__ import annotations

import re
import sys

__all__ = ["NON_PRINTABLE", "NON_PRINTABLE_EQUIVALENT", "seed"]

#: PyYAML's pattern, character for character (``yaml/reader.py``).
NON_PRINTABLE = "[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\U00010000-\U0010ffff]"
#: The characters it matches, as small ranges: C0 controls but tab and line ends, DEL to
#: U+0084, U+0086 to U+009F, the surrogates, U+FFFE and U+FFFF.
NON_PRINTABLE_EQUIVALENT = "[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x84\x86-\x9F\uD800-\uDFFF\uFFFE\uFFFF]"


def seed() -> None:
    """Cache the cheap equivalent under PyYAML's pattern, if ``yaml`` is not imported yet."""
    cache = getattr(re, "_cache", None)
    if "yaml" in sys.modules or not isinstance(cache, dict):
        return
    cache.setdefault((str, NON_PRINTABLE, 0), re.compile(NON_PRINTABLE_EQUIVALENT))
