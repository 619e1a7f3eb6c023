"""Explanation templates: rule text with `{expression}` holes, each hole compiled like any
expression of the rules (checked against the rule's scope, located at its own column)."""

from __future__ import annotations

import ast

from ..expr.emit import emit
from ..expr.parser import ExprSource
from ..expr.resolve import check
from ..expr.scope import Scope
from .module import ModuleBuilder
from .pyast import attr, call, const
from .source import source_of, text_of


def holes(text: str) -> list[tuple[int, int]]:
    """(start, end) of each `{...}` hole of a template: a `{`, then one or more characters none
    of which is a brace, then `}`; scanned left to right, holes never overlapping."""
    found, position = [], 0
    while True:
        start = text.find("{", position)
        if start < 0:
            return found
        end = start + 1
        while end < len(text) and text[end] not in "{}":
            end += 1
        if end < len(text) and text[end] == "}" and end > start + 1:
            found.append((start, end + 1))
            position = end + 1
        else:
            position = start + 1


def template(builder: ModuleBuilder, value, scope: Scope, rule_id: str, trees: list | None = None) -> str:
    """f(S, A) giving the explanation `value` (a template) for one position and action; each
    hole's checked tree is appended to `trees`, if given."""
    text, source = str(text_of(value)), source_of(value)
    parts: list = []
    position = 0
    for start, end in holes(text):
        if start > position:
            parts.append(const(text[position:start]))
        where = ExprSource(source.file, source.line, source.column + start, source.quoted, source.block)
        checked = check(text[start + 1:end - 1], scope, where, rule_id)
        if trees is not None:
            trees.append(checked)
        parts.append(call("b_text", emit(checked, scope)))
        position = end
    if position < len(text):
        parts.append(const(text[position:]))
    joined = call(attr(ast.Constant(""), "join"), ast.List(elts=parts, ctx=ast.Load())) if parts else ast.Constant("")
    return builder.add("S, A", joined)
