"""Read YAML safely and keep where every value came from.

PyYAML's SafeLoader composes the node graph (no tags, no objects: a hostile file can only fail
to load); we build plain dicts, lists and scalars from it, but strings remember their file,
line, column and quoting, and mappings and lists remember their own position and their keys'.
Duplicate keys, which PyYAML silently accepts, are an error here. Where PyYAML has libyaml, its
C parser gives the events for text both parsers read alike (rules/yamlc.py); anything else, and
every refusal, goes through the pure-Python parser, whose values, positions and errors these are.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import Location, RulesError
from ..limits import MAX_INT_DIGITS, MAX_NESTING, MAX_RULES_FILE_BYTES


class LocStr(str):
    """A string from a YAML file that knows where it was written."""

    file: str = "<string>"
    line: int = 1
    column: int = 1
    quoted: bool = False
    block: bool = False

    def location(self) -> Location:
        return Location(self.file, self.line, self.column)


class LocDict(dict):
    """A mapping from a YAML file; `.location()` and `.key_location(key)` say where."""

    file = "<string>"
    line = 1
    column = 1

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.key_lines: dict = {}

    def location(self) -> Location:
        return Location(self.file, self.line, self.column)

    def key_location(self, key) -> Location:
        line, col = self.key_lines.get(key, (self.line, self.column))
        return Location(self.file, line, col)


class LocList(list):
    """A sequence from a YAML file that knows where it was written."""

    file = "<string>"
    line = 1
    column = 1

    def location(self) -> Location:
        return Location(self.file, self.line, self.column)


_STR, _INT = "tag:yaml.org,2002:str", "tag:yaml.org,2002:int"


def _build(node, loader, file: str):
    # (a node's kind by its class's `id`, scalars first: most nodes are; PyYAML is imported
    # only when YAML is read: a process whose rules come from the disk cache never reads any)
    mark = node.start_mark
    kind = node.id
    if kind == "scalar":
        if node.tag == _STR:
            value = node.value   # (what SafeConstructor makes of it: construct_yaml_str, no copy)
        else:
            if node.tag == _INT and len(node.value.lstrip("+-").replace("_", "")) > MAX_INT_DIGITS:
                raise RulesError(f"an integer of more than {MAX_INT_DIGITS} digits",
                                 Location(file, mark.line + 1, mark.column + 1))
            value = loader.construct_object(node, deep=True)
        if isinstance(value, str):
            text = LocStr(value)
            text.file, text.line, text.column = file, mark.line + 1, mark.column + 1
            text.quoted = node.style in ("'", '"')
            text.block = node.style in ("|", ">")
            return text
        return value
    if kind == "mapping":
        out = LocDict()
        out.file, out.line, out.column = file, mark.line + 1, mark.column + 1
        loader.flatten_mapping(node)
        for key_node, value_node in node.value:
            key = _build(key_node, loader, file)
            if isinstance(key, (dict, list)):
                raise RulesError("a mapping key must be a plain value",
                                 Location(file, key_node.start_mark.line + 1, key_node.start_mark.column + 1))
            if key in out:
                first_line = out.key_lines[key][0]
                raise RulesError(f"duplicate key {key!r} (first at line {first_line})",
                                 Location(file, key_node.start_mark.line + 1, key_node.start_mark.column + 1))
            out.key_lines[key] = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
            out[str(key) if isinstance(key, LocStr) else key] = _build(value_node, loader, file)
        return out
    out = LocList(_build(item, loader, file) for item in node.value)
    out.file, out.line, out.column = file, mark.line + 1, mark.column + 1
    return out


def _loader_class():
    """PyYAML's SafeLoader, composing no alias (`*name`: a self-reference, or a "billion
    laughs" expansion, from a few hundred bytes) and no node nested deeper than MAX_NESTING
    (PyYAML composes recursively: deeper would be a RecursionError)."""
    import yaml

    class Loader(yaml.SafeLoader):
        depth = 0

        def compose_node(self, parent, index):
            event = self.peek_event()
            if isinstance(event, yaml.AliasEvent):
                raise yaml.composer.ComposerError(None, None, f"aliases (*{event.anchor}) are not allowed "
                                                  "(write the value out)", event.start_mark)
            if self.depth >= MAX_NESTING:
                raise yaml.composer.ComposerError(None, None, f"nested more than {MAX_NESTING} levels deep",
                                                  event.start_mark)
            self.depth += 1
            try:
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

        def forward(self, length=1):
            """PyYAML's Reader.forward, which looks at each character it passes for a line
            break or a BOM, one by one: a run with neither moves the column by its length at
            once (~5 % of reading the rules files); anything else goes the old way."""
            if self.pointer + length + 1 >= len(self.buffer):
                self.update(length + 1)
            end = self.pointer + length
            if _BREAK_OR_BOM.search(self.buffer, self.pointer, end) is None:
                self.pointer = end
                self.index += length
                self.column += length
            else:
                super().forward(length)
    return Loader


_BREAK_OR_BOM = re.compile("[\n\r\x85\u2028\u2029\ufeff]")   # (what Reader.forward counts apart)


_LOADER = []
USE_LIBYAML = True   # (libyaml's parser first where PyYAML has it, as a fast path: rules/yamlc.py)


def load_yaml_text(text: str, file: str = "<string>"):
    """Parse YAML text into LocDict/LocList/LocStr values; errors are RulesError with a location."""
    import yaml

    from . import yamlc   # (here: a process whose rules come from the disk cache reads no YAML)
    if USE_LIBYAML and yamlc.available() and yamlc.readable(text):
        loader = None
        try:   # (any refusal, or anything the C path is not sure to read alike: the Python path decides)
            loader = yamlc.loader_class()(text)
            node = loader.get_single_node()
            return None if node is None else _build(node, loader, file)
        except Exception:
            pass
        finally:
            if loader is not None:
                loader.dispose()
    if not _LOADER:
        _LOADER.append(_loader_class())
    lines = None
    loader = None
    try:
        loader = _LOADER[0](text)   # (the reader refuses NUL and other control characters here)
        node = loader.get_single_node()
        if node is None:
            return None
        return _build(node, loader, file)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        location = Location(file, mark.line + 1, mark.column + 1) if mark else Location(file)
        lines = text.splitlines()
        snippet = lines[mark.line] if mark and mark.line < len(lines) else None
        raise RulesError(f"not valid YAML: {exc.problem or exc.context}", location, snippet=_printable(snippet),
                         caret_col=mark.column if mark else None) from None
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        column = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
        raise RulesError(f"not valid YAML: the control character {exc.character!r} is not allowed",
                         Location(file, line, column)) from None
    except yaml.YAMLError as exc:
        raise RulesError(f"not valid YAML: {exc}", Location(file)) from None
    except (RecursionError, ValueError, OverflowError) as exc:   # (a backstop: the checks above come first)
        raise RulesError(f"not valid YAML: {type(exc).__name__}: {str(exc)[:200]}", Location(file)) from None
    finally:
        if loader is not None:
            loader.dispose()


def _printable(line: str | None) -> str | None:
    """A line shown under an error, with control characters made visible."""
    if line is None:
        return None
    return "".join(c if c.isprintable() or c == "\t" else repr(c)[1:-1] for c in line[:300])


def read_text_file(path: Path, display: str | None = None) -> str:
    """One rules file's text; a RulesError located at the file when it cannot be read."""
    name = display or str(path)
    try:
        with open(path, "rb") as stream:   # (a FIFO or /dev/null is read like a file)
            data = stream.read(MAX_RULES_FILE_BYTES + 1)
        if len(data) > MAX_RULES_FILE_BYTES:
            raise RulesError(f"larger than the limit of {MAX_RULES_FILE_BYTES} bytes", Location(name))
        return data.decode("utf-8")
    except OSError as exc:
        raise RulesError(f"cannot read: {exc.strerror or exc}", Location(name)) from None
    except UnicodeDecodeError as exc:
        raise RulesError(f"not UTF-8 text: {exc.reason}", Location(name)) from None


def load_yaml_file(path: Path, display: str | None = None):
    """Read and parse one YAML file (display: the name used in error messages)."""
    return load_yaml_text(read_text_file(path, display), display or str(path))
