"""Compile checked rule expressions into Python source text, once.

The pipeline: parse (parse.py: Lark, then the frozen tree of tree.py) -> resolve names and
types (resolve.py: an unknown name or a value that cannot work is a load error) -> emit Python
`ast` (emit.py: knobs folded in as literals, rule functions inlined) -> `ast.unparse`. Rule
text itself is never handed to eval or exec: only code generated from the checked tree is.
"""

from __future__ import annotations

import ast
import re

from .emit import LAZY_LOCAL, emit
from .parser import ExprSource
from .resolve import check
from .scope import AGGREGATES, CompileError, Scope  # noqa: F401  (re-exported)

# Every generated function that uses a derived value's lazy local (emit.py LAZY_LOCAL) starts
# with `<prefix><name> = ...` (lazy_locals_prelude).
_LAZY_NAME = re.compile(r"\b_h_([A-Za-z_0-9]+)\b")


def lazy_locals_prelude(body: str) -> list[str]:
    """The statements that a generated function whose body is `body` must start with."""
    return [f"{LAZY_LOCAL}{name} = ..." for name in sorted(set(_LAZY_NAME.findall(body)))]


# What reads as one operand wherever it is written into other text without parentheses.
_ATOMIC = (ast.Name, ast.Constant, ast.Attribute, ast.Subscript, ast.Call, ast.List, ast.ListComp, ast.Dict)


def python_text(node: ast.expr) -> str:
    """The text of an emitted expression, parenthesised unless atomic: the rules compiler still
    writes it into larger text (`if {when} and not {test}:`), as the text compiler's output was."""
    text = ast.unparse(node)
    return text if isinstance(node, _ATOMIC) else f"({text})"


def to_python(text: str, scope: Scope, where: ExprSource | None = None, rule_id: str | None = None,
              fixed: dict | None = None, names=None) -> str:
    """Check one expression against `scope` and return equivalent Python expression text.
    With `fixed` (state name -> value), those state values are folded in as literals; `names`
    numbers inlined bodies' loop variables (one counter per generated module).

    Raises RulesError located in the YAML file (file:line:col, rule id, caret)."""
    return python_text(emit(check(text, scope, where, rule_id), scope, fixed, names))
