"""Parse rule expressions with the Lark grammar in `rules/grammar/expr.lark`.

The grammar is read once and the LALR parser is built once per process. Lark's exceptions are
turned into `RulesError`s with the position inside the expression, so the caller can point at
the exact character in the YAML file.
"""

from __future__ import annotations

from functools import lru_cache

import lark

from ..errors import Location, RulesError
from ..limits import MAX_EXPRESSION_CHARS, MAX_EXPRESSION_DEPTH
from ..resources import rules_dir
from . import prebuilt


@lru_cache(maxsize=None)
def expression_parser() -> lark.Lark:
    """The LALR parser for the rule-expression language (built once; read from the tables
    shipped with the package when they were built from this grammar: expr/prebuilt.py)."""
    grammar = (rules_dir() / "grammar" / "expr.lark").read_text(encoding="utf-8")
    return prebuilt.load(grammar) or prebuilt.build(grammar)


class ExprSyntaxError(Exception):
    """A syntax error at (line, column) inside one expression text (both 1-based)."""

    def __init__(self, message: str, line: int, column: int, length: int = 1):
        super().__init__(message)
        self.message, self.line, self.column, self.length = message, line, column, length


# Trees by expression text: parsed in this process, or loaded from the on-disk cache.
TREES: dict = {}


def parse_expression(text: str) -> lark.Tree:
    """Parse one expression (once per text); raise ExprSyntaxError with the position of the problem."""
    tree = TREES.get(text)
    if tree is None:
        tree = TREES[text] = _parse(text)
    return tree


def _parse(text: str) -> lark.Tree:
    if len(text) > MAX_EXPRESSION_CHARS:
        raise ExprSyntaxError(f"the expression is {len(text)} characters long (at most {MAX_EXPRESSION_CHARS})", 1, 1)
    try:
        tree = expression_parser().parse(text)
    except RecursionError:
        raise ExprSyntaxError("the expression is nested too deeply", 1, 1) from None
    except lark.UnexpectedInput:
        pass
    else:
        _check_depth(tree)
        return tree
    try:
        return expression_parser().parse(text)
    except lark.UnexpectedToken as exc:
        token = exc.token
        if token.type == "$END":
            raise ExprSyntaxError("the expression ends too early", exc.line if exc.line > 0 else 1,
                                  max(1, len(text.splitlines()[-1]) + 1 if text.strip() else 1)) from None
        expected = ", ".join(sorted(exc.expected)[:6])
        raise ExprSyntaxError(f"unexpected {token.value!r} (expected one of: {expected})",
                              exc.line, exc.column, len(str(token.value))) from None
    except lark.UnexpectedCharacters as exc:
        raise ExprSyntaxError(f"unexpected character {text_at(text, exc.line, exc.column)!r}",
                              exc.line, exc.column) from None
    except lark.UnexpectedEOF:
        lines = text.splitlines() or [""]
        raise ExprSyntaxError("the expression ends too early", len(lines), len(lines[-1]) + 1) from None


def _check_depth(tree: lark.Tree) -> None:
    """ExprSyntaxError, at the first node too deep, if operators nest more than the policy allows
    (the compiler and the generated Python recurse once or more per level)."""
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_EXPRESSION_DEPTH:
            line, column = _where(node)
            raise ExprSyntaxError(f"the expression nests operators more than {MAX_EXPRESSION_DEPTH} deep", line, column)
        stack.extend((child, depth + 1) for child in node.children if isinstance(child, lark.Tree))


def _where(node: lark.Tree) -> tuple[int, int]:
    meta = getattr(node, "meta", None)
    if meta is not None and not getattr(meta, "empty", True):
        return meta.line, meta.column
    return 1, 1


def text_at(text: str, line: int, column: int) -> str:
    lines = text.splitlines() or [""]
    if 1 <= line <= len(lines) and 1 <= column <= len(lines[line - 1]):
        return lines[line - 1][column - 1]
    return ""


def locate_in_yaml(text: str, where: "ExprSource", line: int, column: int, length: int,
                   message: str, rule_id: str | None) -> RulesError:
    """Build the located error for a problem at (line, column) of an expression from YAML."""
    lines = text.splitlines() or [""]
    line = min(max(line, 1), len(lines))
    snippet = lines[line - 1]
    if where.block:
        file_line = where.line + line  # a block scalar starts on the line after its indicator
        file_col = where.column + column - 1
    else:
        file_line = where.line + line - 1
        file_col = (where.column + (1 if where.quoted else 0) + column - 1) if line == 1 else column
    return RulesError(message, Location(where.file, file_line, file_col), rule_id,
                      snippet=snippet, caret_col=max(column - 1, 0), caret_len=length)


class ExprSource:
    """Where an expression text sits in a YAML file (what the loader recorded)."""

    __slots__ = ("file", "line", "column", "quoted", "block")

    def __init__(self, file: str = "<string>", line: int = 1, column: int = 1, quoted: bool = False,
                 block: bool = False):
        self.file, self.line, self.column, self.quoted, self.block = file, line, column, quoted, block
