"""An expression as the rules files give it: its text, and where it sits in its YAML file.

Shared by the compiler (rules/compile.py) and the knob constraints (rules/constraints.py), so
that neither reaches into the other."""

from __future__ import annotations

from ..expr.parser import ExprSource


def text_of(value) -> str:
    """The expression text of a YAML value (a YAML true/false/null is the language's literal)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    return str(value)


def source_of(value) -> ExprSource:
    """Where a YAML value sits (file, line, column, quoting), for located errors; unknown: <string>."""
    if hasattr(value, "line"):
        return ExprSource(value.file, value.line, value.column, value.quoted, value.block)
    return ExprSource()
