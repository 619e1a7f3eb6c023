"""Errors that point at the place in a rules file, case or log where the problem is.

Every problem a user can cause (a typo in a rule, an unknown knob, a malformed case) becomes a
`LocatedError` with file, line, column, the rule id when there is one, and the offending line
with a caret under it. The CLI prints these and exits 2; nothing leaks a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Location:
    """Where a piece of rule text came from: file, 1-based line and column."""

    file: str = "<string>"
    line: int = 0
    column: int = 0

    def __str__(self) -> str:
        if self.line:
            return f"{self.file}:{self.line}:{self.column}"
        return self.file


class BalootError(Exception):
    """Base of every error this package raises on purpose."""


class LocatedError(BalootError):
    """A problem with a precise place: `file:line:col: [rule id] message`, then a caret line."""

    def __init__(self, message: str, location: Location | None = None, rule_id: str | None = None,
                 snippet: str | None = None, caret_col: int | None = None, caret_len: int = 1):
        self.message = message
        self.location = location or Location()
        self.rule_id = rule_id
        self.snippet = snippet
        self.caret_col = caret_col
        self.caret_len = max(1, caret_len)
        super().__init__(self.render())

    def render(self) -> str:
        head = f"{self.location}: "
        if self.rule_id:
            head += f"rule {self.rule_id}: "
        text = head + self.message
        if self.snippet is not None:
            text += "\n    " + self.snippet.rstrip("\n")
            if self.caret_col is not None:
                text += "\n    " + " " * self.caret_col + "^" * self.caret_len
        return text


class RulesError(LocatedError):
    """The rules (YAML, grammar, params, presets, overlays) cannot be loaded."""


class CaseError(LocatedError):
    """A conformance case or log is malformed (not a rule violation: unreadable input)."""


class IllegalAction(BalootError):
    """An event the rules refuse. `rule_id` names the first rule that excludes it."""

    def __init__(self, rule_id: str, message: str, source: str | None = None):
        self.rule_id = rule_id
        self.message = message
        self.source = source
        text = f"{rule_id}: {message}"
        if source:
            text += f" ({source})"
        super().__init__(text)


class RuleRuntimeError(BalootError):
    """A rule expression failed while running (a bug in the rules, not in the input)."""

    def __init__(self, rule_id: str, error: Exception):
        self.rule_id = rule_id
        super().__init__(f"rule {rule_id} failed while running: {type(error).__name__}: {error}")
