"""Compile checked rule expressions into Python, once.

The pipeline: parse (parse.py: Lark, then the frozen tree of tree.py) -> resolve names and
types (resolve.py: an unknown name or a value that cannot work is a load error) -> emit Python
`ast` (emit.py: knobs folded in as literals, rule functions inlined). The rules compiler
(rules/compile.py) builds its generated functions from those `ast` nodes; `to_python` gives one
expression's text, for tests and review. Rule text itself is never handed to eval or exec: only
code generated from the checked tree is.
"""

from __future__ import annotations

import ast

from .emit import LAZY_LOCAL, emit  # noqa: F401  (re-exported)
from .parser import ExprSource
from .resolve import check
from .scope import AGGREGATES, CompileError, Scope  # noqa: F401  (re-exported)


def to_python(text: str, scope: Scope, where: ExprSource | None = None, rule_id: str | None = None,
              fixed: dict | None = None, names=None) -> str:
    """Check one expression against `scope` and return equivalent Python expression text. With `fixed` (state name -> value), those state values are folded in as
    literals; `names` numbers inlined bodies' loop variables (one counter per generated module).

    Raises RulesError located in the YAML file (file:line:col, rule id, caret)."""
    return ast.unparse(emit(check(text, scope, where, rule_id), scope, fixed, names))
