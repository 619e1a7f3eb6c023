"""Read YAML with libyaml's C parser, only where it and PyYAML's pure-Python one read alike.

PyYAML's Python reader, scanner and parser are most of reading the rules files (~0.09 s of a
load with no disk cache). libyaml gives the same events with the same marks (line and column
counted in characters) several times faster; the nodes are still composed, constructed and
resolved by PyYAML's Python classes. But the two parsers are not the same grammar at the edges
(tools/BENCHMARKS.md, steps 104 and 109): libyaml takes a tab as a blank, a '?' inside a flow
plain scalar, a comment right after a block scalar's indicators (`>#`), a tag followed by ','
in a flow collection, `%YAML 1.2`; some versions of it take `[ ? ] ]`; a BOM in mid-text moves
its marks. So this path is a fast path, never a judge:
- `readable(text)` sends to it only text made of the characters both read alike (no tab, no
  CR, NEL, LS, PS, BOM, nothing PyYAML's reader refuses) and with no directive line;
- while composing, anything outside the subset whose reading was compared raises `Unsure`:
  an alias, an anchor or a tag, nesting deeper than MAX_NESTING, a plain scalar holding '?'
  in a flow collection, a flow mapping that does not start at a '{' (a pair in a flow
  sequence), a block scalar whose indicators are not followed by a space or a line break;
- the caller (`yamlpos.load_yaml_text`) reads the text again with the Python parser on any
  exception from this path, `Unsure` or a libyaml error alike: every refusal, and its message
  and location, is the Python parser's.
`tests/test_yaml_c.py` compares the two paths on every rules file and on a seeded differential
fuzz of mutated ones.
"""

from __future__ import annotations

import re

from ..limits import MAX_NESTING

# What the Python path alone reads: tab, CR, NEL, LS, PS, BOM, and everything PyYAML's reader
# refuses (its Reader.NON_PRINTABLE: control characters, surrogates, U+FFFE, U+FFFF); and a
# directive (`%` at the start of a line: libyaml and PyYAML accept different `%YAML` versions).
# (the characters listed, not the ones allowed: a class of the allowed ranges takes ~10 ms to compile)
_PYTHON_ONLY = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]|^%",
                          re.MULTILINE)


# A block scalar's header as PyYAML reads it: its indicators, then a space, a line break or the end
# (libyaml also takes a '#' at once: `>#`).
_BLOCK_HEADER = re.compile(r"[|>][-+0-9]*(?:[ \n]|\Z)")


class Unsure(Exception):
    """The text uses something this path does not read: the Python parser decides."""


def available() -> bool:
    """Whether this PyYAML has libyaml (PyPI's wheels do; a build without it does not)."""
    import yaml
    return bool(getattr(yaml, "__with_libyaml__", False))


def readable(text: str) -> bool:
    """Whether `text` may go to the C parser (its characters and lines; the rest is checked
    while composing)."""
    return _PYTHON_ONLY.search(text) is None


_CLASS = []


def loader_class():
    """PyYAML's composer, safe constructor and resolver over libyaml's events, refusing (with
    `Unsure`) what the fast path does not read."""
    if _CLASS:
        return _CLASS[0]
    import yaml
    from yaml.composer import Composer
    from yaml.constructor import SafeConstructor
    from yaml.cyaml import CParser
    from yaml.resolver import Resolver

    scalar, collection = yaml.ScalarEvent, yaml.CollectionStartEvent

    class CLoader(Composer, CParser, SafeConstructor, Resolver):
        depth = 0
        flow = 0    # how many flow collections the node being composed is in

        def __init__(self, text: str):
            CParser.__init__(self, text)
            Composer.__init__(self)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)
            self.text = text

        def compose_node(self, parent, index):
            event = self.peek_event()
            if self.depth >= MAX_NESTING:
                raise Unsure("nested deep")
            if isinstance(event, scalar):
                if event.anchor is not None or event.tag is not None:
                    raise Unsure("an anchor or a tag")
                if self.flow and not event.style and "?" in event.value:   # (plain: style "" here, None in PyYAML)
                    raise Unsure("'?' in a flow plain scalar")
                if event.style in ("|", ">") and _BLOCK_HEADER.match(self.text, event.start_mark.index) is None:
                    raise Unsure("a block scalar's indicators not followed by a space or a line break")
                return Composer.compose_node(self, parent, index)
            if not isinstance(event, collection) or event.anchor is not None or event.tag is not None:
                raise Unsure("an alias, an anchor or a tag")
            flow = bool(event.flow_style)
            if flow and isinstance(event, yaml.MappingStartEvent) \
                    and self.text[event.start_mark.index:event.start_mark.index + 1] != "{":
                raise Unsure("a flow mapping without braces")
            self.depth += 1
            self.flow += flow
            try:
                return Composer.compose_node(self, parent, index)
            finally:
                self.depth -= 1
                self.flow -= flow

    _CLASS.append(CLoader)
    return CLoader
