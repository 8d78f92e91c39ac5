"""Write :mod:`subagents._dataclass_code`: ``python -m subagents._dataclass_codegen``.

Design notes
------------
* The table holds what the standard ``dataclasses.dataclass`` compiles for the classes that
  ``subagents validate FILE`` builds through :mod:`subagents._dataclass`.  Which classes those
  are is found by running that command, not by a list kept by hand: a fresh interpreter runs
  ``subagents validate`` on a few agent files (a short one, a typical one, one with hooks and
  a broken one, so that the modules imported only while judging are counted too) with the
  table emptied and ``exec``'s texts recorded.
* Only texts that are one ``def`` statement are kept (what the standard decorator writes);
  :func:`subagents._dataclass._exec` relies on it.
* The table is written for the Python that runs this (its ``major.minor`` is recorded): the
  standard decorator's text may differ in another version, where the texts simply miss.
* A frozen class's ``__init__`` sets each field with ``object.__setattr__(self, 'name',
  value)`` (its ``__setattr__`` refuses).  For a class with slots, the table also holds a
  second version of that text (:func:`slot_init_text`) that calls each field's slot
  descriptor's ``__set__`` instead, which is what ``object.__setattr__`` ends up calling
  after looking the name up in the class: about half the cost of building the object (an
  agent's definition has thirty fields, and a cold ``validate`` builds a few per file).
  :mod:`subagents._dataclass` uses it only for a class with slots whose ``__init__`` does
  nothing but set fields, with the descriptors of that very class.
* ``tests/test_dataclass_code.py`` fails when the written table differs from a fresh one.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = ["AGENTS", "main", "recorded_texts", "slot_init_text", "table_source"]

TABLE = Path(__file__).with_name("_dataclass_code.py")

#: The files the recording run validates (file name -> text).
AGENTS: dict[str, str] = {
    "short.md": "---\nname: reader\ndescription: Reads files and answers questions about"
                " them.\ntools: Read, Grep, Glob\n---\nYou read files and answer briefly.\n",
    "typical.md": "---\nname: api-reviewer\ndescription: Reviews HTTP API changes. Use after"
                  " editing route handlers.\ntools: Read, Grep, Bash\nmodel: sonnet\n---\n"
                  "You review HTTP APIs.\n\n## Focus\n\n- Status codes and request validation."
                  "\n- Tokens never appear in logs.\n\nRun `git diff --stat` first. See"
                  " https://example.com/guide for the conventions.\n",
    "hooks.md": "---\nname: hooked\ndescription: Runs checks. Use after edits.\nhooks:\n"
                "  PostToolUse:\n    - matcher: Edit\n      hooks:\n        - type: command\n"
                "          command: make lint\nmcpServers:\n  docs:\n    command: docs-server\n"
                "---\nYou run the checks.\n",
    "broken.md": "---\nname: [broken\ndescription: x\n---\nbody\n",
}

# Run in a fresh interpreter: empty the table, record every text the decorator compiles, run
# the command, write the texts (in order) as JSON to the file named by the first argument.
_RECORD = """
import json, sys
import subagents._dataclass as dc
dc.CODE = {}
texts = []
_exec = dc._exec
def record(source, globals=None, locals=None, /):
    texts.append(source)
    _exec(source, globals, locals)
dc._exec = record
from subagents.cli.main import main
sys.stdout = open(__import__("os").devnull, "w")
try:
    main(["validate", *sys.argv[2:]])
except SystemExit:
    pass
with open(sys.argv[1], "w", encoding="utf-8") as out:
    json.dump(texts, out)
"""


def recorded_texts() -> list[tuple[str, str]]:
    """What the standard decorator compiles during ``subagents validate`` of :data:`AGENTS`,
    each text once, with the name its ``def`` defines, sorted (the table does not change
    when only the order of imports does)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        agents = root / ".claude" / "agents"
        agents.mkdir(parents=True)
        (root / ".git").mkdir()
        (root / "home").mkdir()
        for name, text in AGENTS.items():
            (agents / name).write_text(text, encoding="utf-8")
        out = root / "texts.json"
        env = {k: v for k, v in os.environ.items() if not k.startswith("SUBAGENTS_")}
        env.update(HOME=str(root / "home"), NO_COLOR="1")
        subprocess.run(
            [sys.executable, "-c", _RECORD, str(out), *(str(agents / n) for n in AGENTS)],
            cwd=root, env=env, check=True)
        texts: list[str] = json.loads(out.read_text(encoding="utf-8"))
    kept = []
    for text in sorted(set(texts)):
        body = ast.parse(text).body
        if len(body) == 1 and isinstance(body[0], ast.FunctionDef):
            kept.append((text, body[0].name))
    return kept


#: How the standard decorator's ``__init__`` of a frozen class sets a field (one body line).
_FROZEN_SET = "  __dataclass_builtins_object__.__setattr__(self,'"
#: The prefix of the name each field's setter has in :func:`slot_init_text`.
SETTER = "__dataclass_set_"


#: A class with at least this many fields gets the ``__init__`` of :func:`slot_init_text` that
#: can set them through the class's unfrozen twin.  (Measured: from four fields on, an object
#: built so costs less, but each object built before the twin exists pays for the test and
#: the count, and the longer code is loaded by every process: with seven fields, ``validate``
#: of one file got slower by 0.1 M instructions; with nine, not at all.)
OPEN_INIT_FIELDS = 9
#: The free variables of that ``__init__``: the class once its unfrozen twin is made (None
#: until then), the twin, how many objects are still built through the setters before the
#: twin is made (a one-item list), and what makes it.
SHUT = "__dataclass_shut"
OPEN = "__dataclass_open"
LEFT = "__dataclass_left"
WAKE = "__dataclass_wake"


def slot_init_text(text: str) -> str | None:
    """``text`` (the standard decorator's ``__create_fn__`` of a frozen class's ``__init__``)
    with every field set through its slot descriptor's ``__set__``, each setter an extra
    argument of ``__create_fn__`` (so a free variable of ``__init__``, given by
    :mod:`subagents._dataclass`); None when the ``__init__`` does anything but set fields.

    With :data:`OPEN_INIT_FIELDS` fields or more, once the class's unfrozen twin is made
    (``SHUT`` is then the class), an object of exactly the class (not of a subclass) is made
    an object of the twin (``OPEN``: a subclass with no slots of its own whose
    ``__setattr__`` is ``object``'s) while its fields are set by plain attribute stores: each
    a store into the slot, where a setter is a call.  Until then each object built through
    the setters counts down ``LEFT``; at zero, ``WAKE`` makes the twin (a class costs about
    what building fifty objects of thirty fields through their setters costs, and most
    classes are built a few times a process)."""
    lines = text.split("\n")
    if len(lines) < 4 or not lines[0].startswith("def __create_fn__(") \
            or not lines[0].endswith("):") or not lines[1].startswith(" def __init__(") \
            or lines[-1] != " return __init__":
        return None
    body: list[str] = []
    stores: list[str] = []
    setters: list[str] = []
    for line in lines[2:-1]:
        if not line.startswith(_FROZEN_SET):
            return None
        name, sep, rest = line[len(_FROZEN_SET):].partition("',")
        if not sep or not name.isidentifier() or not rest.endswith(")"):
            return None
        setters.append(SETTER + name)
        body.append(f"  {SETTER}{name}(self,{rest}")
        stores.append(f"    self.{name}={rest[:-1]}")
    if len(body) < OPEN_INIT_FIELDS:
        head = lines[0][:-2] + ", " + ", ".join(setters) + "):"
        return "\n".join([head, lines[1], *body, lines[-1]])
    head = lines[0][:-2] + ", " + ", ".join([*setters, SHUT, OPEN, LEFT, WAKE]) + "):"
    # (the finally: an object whose building fails is not left open)
    opened = [f"  if self.__class__ is {SHUT}:",
              f"   __dataclass_builtins_object__.__setattr__(self,'__class__',{OPEN})",
              "   try:", *stores, "   finally:", f"    self.__class__={SHUT}", "   return"]
    countdown = [f"  {LEFT}[0]-=1", f"  if not {LEFT}[0]:", f"   {WAKE}()"]
    return "\n".join([head, lines[1], *opened, *body, *countdown, lines[-1]])


def table_source(texts: list[tuple[str, str]]) -> str:
    """The text of the generated module for ``texts``."""
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    head = f'''"""Generated by ``python -m subagents._dataclass_codegen``: do not edit.

The functions the standard ``dataclasses.dataclass`` compiles for the classes that ``subagents
validate FILE`` builds (Python {version}), each already compiled, under its exact source text:
:mod:`subagents._dataclass` takes them from here instead of compiling the text again; a text
that is not here is compiled as usual.  ``SLOT_INIT``: for a frozen class's ``__init__`` text,
the same function setting each field through its slot descriptor (used for classes with slots).
tests/test_dataclass_code.py checks it is current.
"""
# ruff: noqa
# (each ``def`` is the standard decorator's text, character for character: its layout and
# names are not this project's style)

from types import CodeType

PYTHON = ({sys.version_info.major}, {sys.version_info.minor})
CODE: dict[str, CodeType] = {{}}
SLOT_INIT: dict[str, CodeType] = {{}}
'''
    parts = [head]
    for text, name in texts:
        parts.append(f"\n{text}\nCODE[{text!r}] = {name}.__code__\n")
        slotted = slot_init_text(text) if name == "__create_fn__" else None
        if slotted is not None and " def __init__(" in text:
            parts.append(f"\n{slotted}\nSLOT_INIT[{text!r}] = {name}.__code__\n")
    return "".join(parts)


def main(argv: list[str] | None = None) -> None:
    import argparse

    from subagents.fs import atomic_write

    parser = argparse.ArgumentParser(
        prog="python -m subagents._dataclass_codegen",
        description="Rewrite subagents/_dataclass_code.py, the compiled dataclass functions of "
                    "`subagents validate FILE`, for the Python that runs this.")
    parser.parse_args(argv)
    if not TABLE.exists():  # the recording run imports it: start from an empty one
        atomic_write(TABLE, table_source([]))
    texts = recorded_texts()
    atomic_write(TABLE, table_source(texts))
    print(f"wrote {TABLE} ({len(texts)} functions)")


if __name__ == "__main__":
    main()
