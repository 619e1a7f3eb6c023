"""A played hand's score record and result (Hand's mixin), each made once.

A specialised score phase's facts_scored builds the hand's result itself, the engine's leading
entries (state.py RESULT_LEADING) then every fact and scoring step, as a plain dict
(rules/scored.py); the score record, the same entries without the leading ones, is made from
it only when it is read (a copy of the dict, two entries deleted: the same keys in the same
order, the same values). result() is then a copy with the next dealer set. Before, every hand
made the score record, then result() a second dict of 39 entries from it
(`{"thrown_in": ..., "next_dealer": ..., **score}`): the same entries inserted twice.
"""

from __future__ import annotations

from ..errors import BalootError, RuleRuntimeError
from ..expr.builtins import Rec
from .state import RESULT_LEADING

OVER = "over"
_LEADING = tuple(name for name, _value in RESULT_LEADING)


class Scores:
    """Hand's `score` and `result()`; the hand's slots `_score` (the record, once made) and
    `_shown` (the result facts_scored built, or None)."""

    __slots__ = ()

    @property
    def score(self):
        """Every fact and scoring step by name (a record), None before the score or if thrown in."""
        score = self._score
        if score is None and self._shown is not None:
            score = self._score = Rec(self._shown)
            for name in _LEADING:
                del score[name]
        return score

    @score.setter
    def score(self, value) -> None:
        self._score = value
        self._shown = None

    def score_entries(self):
        """What `score` holds, by name, without making the record: the result facts_scored built
        (a plain dict; its leading entries, thrown_in and next_dealer, come first), else the score
        record; None where `score` is None. For a reader of a few entries (log/lines.py): the
        record is a 37-entry copy of the result."""
        shown = self._shown
        return self._score if shown is None else shown

    def result(self) -> dict | None:
        """The hand result once over: thrown_in, next_dealer, and the scoring steps."""
        S = self.state
        if S.phase != OVER:
            return None
        try:   # (run_rule written out)
            next_dealer = self.rules.functions["next_dealer"](S)
        except BalootError:
            raise
        except Exception as exc:
            raise RuleRuntimeError("next dealer", exc) from exc
        shown = self._shown
        if shown is not None:   # (a copy of a plain dict: its table copied at once)
            out = shown.copy()
            out["next_dealer"] = next_dealer
            return out
        score = self._score
        if score is None:
            return {"thrown_in": True, "next_dealer": next_dealer}
        # (a display, not out.update(score): update() of a dict subclass first looks up its
        # `keys` through Rec's Python __getattribute__; 905 -> 648 ns)
        return {"thrown_in": False, "next_dealer": next_dealer, **score}
