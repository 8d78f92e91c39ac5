"""YAML 1.2 loading for the JavaScript harnesses, and the JavaScript view of what it loads.

Gemini CLI parses frontmatter with js-yaml 4 and Qwen Code with the ``yaml`` package, both YAML
1.2 (core schema).  PyYAML implements YAML 1.1, which reads some plain scalars differently:

* ``yes``/``no``/``on``/``off``/``y``/``n`` are booleans in 1.1 and strings in 1.2
  (``name: on`` is the string ``on`` for both harnesses);
* ``010`` is octal 8 in 1.1 and decimal 10 in 1.2 (1.2 spells octal ``0o10``);
* ``1_000`` and sexagesimal ``1:20`` are numbers in 1.1 and strings in 1.2;
* ``2024-01-01`` is a date for js-yaml 4 (its default schema has timestamps) but a string
  for Qwen's ``core`` schema; ``with_timestamps`` chooses.

:func:`load` therefore uses a SafeLoader whose implicit resolvers are the 1.2 core schema's, and
refuses duplicate keys as both JavaScript parsers do (js-yaml: ``duplicated mapping key``).
Every parse is guarded by :func:`subagents.formats.nesting.nesting_scan` first: a frontmatter
nested deeper than any agent file needs is refused before libyaml sees it.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from typing import Any

import yaml

from subagents.formats.nesting import MAX_DEPTH, nesting_scan

__all__ = ["TooDeep", "YamlError", "dump", "js_string", "js_type", "load"]


class YamlError(ValueError):
    """The text is not YAML; ``line`` is 1-based within the parsed text, when known."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


class TooDeep(YamlError):
    """Refused before parsing: nested deeper than :data:`MAX_DEPTH`."""


_BOOL = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_INT = re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")
_FLOAT = re.compile(
    r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
_TIMESTAMP = re.compile(
    r"^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}"
    r"|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}"
    r"(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$"
)


# libyaml's parser when it is built in (ten times faster); the resolvers stay in Python.
_BASE: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _make_loader(with_timestamps: bool) -> type[yaml.SafeLoader]:
    class Loader(_BASE):  # type: ignore[valid-type,misc]
        pass

    Loader.yaml_implicit_resolvers = {}
    Loader.add_implicit_resolver("tag:yaml.org,2002:bool", _BOOL, list("tTfF"))
    Loader.add_implicit_resolver("tag:yaml.org,2002:null", _NULL, ["~", "n", "N", ""])
    Loader.add_implicit_resolver("tag:yaml.org,2002:int", _INT, list("-+0123456789"))
    Loader.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT, list("-+0123456789."))
    Loader.add_implicit_resolver(
        "tag:yaml.org,2002:merge", re.compile(r"^(?:<<)$"), ["<"]
    )
    if with_timestamps:
        Loader.add_implicit_resolver(
            "tag:yaml.org,2002:timestamp", _TIMESTAMP, list("0123456789")
        )

    def construct_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
        value = str(loader.construct_scalar(node))
        if value.startswith("0o"):
            return int(value[2:], 8)
        if value.startswith("0x"):
            return int(value[2:], 16)
        return int(value, 10)

    def construct_mapping(
        loader: yaml.SafeLoader, node: yaml.MappingNode, deep: bool = False
    ) -> dict[Any, Any]:
        loader.flatten_mapping(node)
        seen: set[Any] = set()
        out: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            try:
                hash(key)
            except TypeError:
                key = js_string(key)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, "duplicated mapping key", key_node.start_mark
                )
            seen.add(key)
            out[key] = loader.construct_object(value_node, deep=deep)
        return out

    Loader.add_constructor("tag:yaml.org,2002:int", construct_int)
    Loader.add_constructor("tag:yaml.org,2002:map", construct_mapping)
    return Loader


_LOADERS = {True: _make_loader(True), False: _make_loader(False)}


#: How many values a document may expand to once aliases are followed (every reader that
#: walks the result walks the expansion: a 500-byte alias bomb is billions of values).
MAX_EXPANDED = 100_000


def expanded_size(node: yaml.Node) -> int:
    """How many nodes ``node`` stands for with every alias expanded, computed without
    expanding (each shared node counted once per use, its size remembered)."""
    sizes: dict[int, int] = {}
    stack: list[tuple[yaml.Node, bool]] = [(node, False)]
    while stack:
        n, done = stack.pop()
        if id(n) in sizes:
            continue
        kids: list[yaml.Node] = []
        if isinstance(n, yaml.SequenceNode):
            kids = list(n.value)
        elif isinstance(n, yaml.MappingNode):
            kids = [x for pair in n.value for x in pair]
        if done:
            sizes[id(n)] = min(1 + sum(sizes.get(id(k), 1) for k in kids), MAX_EXPANDED + 1)
            continue
        stack.append((n, True))
        stack.extend((k, False) for k in kids if id(k) not in sizes)
    return sizes[id(node)]


def load(text: str, *, with_timestamps: bool = True, limit: int = MAX_DEPTH) -> Any:
    """Parse ``text`` as YAML 1.2 (core schema); raise :class:`YamlError` when it is not YAML,
    :class:`TooDeep` when it nests too deep or expands to more than :data:`MAX_EXPANDED`
    values through aliases."""
    depth, line = nesting_scan(text, limit)
    if depth > limit:
        raise TooDeep(f"nested deeper than {limit} levels", line or None)
    try:
        if "*" in text:  # aliases: measure what they expand to before building anything
            node = yaml.compose(text, Loader=_LOADERS[with_timestamps])
            if node is not None and expanded_size(node) > MAX_EXPANDED:
                raise TooDeep(f"the aliases expand to more than {MAX_EXPANDED:,} values "
                              "(an alias bomb?)", None)
        return yaml.load(text, Loader=_LOADERS[with_timestamps])
    except TooDeep:
        raise
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line_no = mark.line + 1 if mark is not None else None
        what = exc.problem or exc.context or "invalid YAML"
        return _raise(what, line_no)
    except (yaml.YAMLError, RecursionError, ValueError, OverflowError) as exc:
        return _raise(str(exc) or type(exc).__name__, None)


def _raise(message: str, line: int | None) -> Any:
    where = f" ({line}:1)" if line else ""
    raise YamlError(f"{message}{where}", line)


def js_type(value: Any) -> str:
    """zod's name for the type of a parsed value (``Expected string, received <this>``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "number"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, (_dt.date, _dt.datetime)):
        return "date"
    return "object"


def js_string(value: Any) -> str:
    """``String(value)`` for a parsed scalar (JavaScript's spelling of numbers and nulls)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        if value == int(value) and abs(value) < 1e21:
            return str(int(value))
        return repr(value)
    if isinstance(value, list):
        return ",".join("" if v is None else js_string(v) for v in value)
    if isinstance(value, dict):
        return "[object Object]"
    if isinstance(value, _dt.datetime):
        return value.isoformat()
    return str(value)


class _Dumper(yaml.SafeDumper):
    pass


_PLAIN_NOT_STRING = (_BOOL, _NULL, _INT, _FLOAT, re.compile(r"^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}"))


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    # quote what YAML 1.2 would read as another type, and control characters
    breaks = any(c in value for c in "\n\r\t\x85\u2028\u2029")
    if breaks or any(p.match(value) for p in _PLAIN_NOT_STRING):
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style='"')
    return dumper.represent_str(value)


_Dumper.add_representer(str, _represent_str)


def dump(front: Any) -> str:
    """YAML that both YAML 1.1 and 1.2 readers read back as ``front`` (block style, in order)."""
    return yaml.dump(dict(front), Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                     default_flow_style=False, width=1 << 30)
