"""A time budget on rule evaluation per hand, at (nearly) no cost on the hot path.

Rules that load fine can still be slow to run: seven aggregates nested over the hand make one
legal-set query take hours. Nothing is counted while the rules run; instead an interval timer
(SIGALRM, armed per hand: two system calls a hand) interrupts the evaluation when a hand has
taken more than MAX_SECONDS_PER_HAND, by raising BudgetExceeded where the rules are running.
The compiled rules turn any exception into a RuleRuntimeError naming the rule that was running,
so the report names it. The timer keeps firing every TICK seconds until the hand is abandoned,
so that a rule the engine re-runs to name it is interrupted again.

POSIX main thread only (signals); elsewhere (a harness thread, Windows) there is no budget.
"""

from __future__ import annotations

import signal
import threading

from .limits import MAX_SECONDS_PER_HAND

TICK = 0.1
_active: list = []          # the budget armed in this process (seconds), if any


class BudgetExceeded(Exception):
    """The rules ran longer than the budget on one hand (not a BalootError: the compiled rules
    wrap it in a RuleRuntimeError that names the rule that was running)."""


_previous: list = []        # the SIGALRM handler before ours (installed once: signal.signal costs 20 us)


def _on_alarm(signum, frame):
    if not _active:   # (not ours: a timer someone else set)
        handler = _previous[0] if _previous else None
        if callable(handler):
            handler(signum, frame)
        return
    raise BudgetExceeded(f"the rules took more than {_active[-1]:g} s on one hand (the budget per hand; "
                         "rules this slow nest too many aggregates)")


def _usable() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


class hand_budget:
    """`with hand_budget(seconds):` each `rearm()` inside gives the hand that starts `seconds`
    (default MAX_SECONDS_PER_HAND) before BudgetExceeded is raised in it; with `seconds` given,
    the block itself is armed at once (a caller that does not rearm per hand: the whole block's
    budget). Disarmed when the block ends. (A class, not a generator: this runs per document.)"""

    __slots__ = ("seconds", "armed")

    def __init__(self, seconds: float | None = None):
        self.seconds = seconds
        self.armed = False

    def __enter__(self):
        if _active or not _usable():
            return self
        if not _previous:
            _previous.append(signal.signal(signal.SIGALRM, _on_alarm))
        _active.append(MAX_SECONDS_PER_HAND if self.seconds is None else self.seconds)
        self.armed = True
        if self.seconds is not None:
            rearm()
        return self

    def __exit__(self, *exc_info):
        if self.armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            _active.pop()
            self.armed = False
        return False


class paused:
    """`with paused():` the hand's clock stops (compiling a specialised phase on first use is not
    running the rules; and an alarm raised inside CPython's compile() is a SystemError, not
    BudgetExceeded). The time the hand had left resumes after. Re-entrant; free when no budget
    is armed."""

    __slots__ = ("left",)

    def __enter__(self):
        self.left = None
        if _active and _usable():
            delay, _interval = signal.setitimer(signal.ITIMER_REAL, 0)
            self.left = delay if delay > 0 else None   # (0: not armed yet, or paused already)
        return self

    def __exit__(self, *exc_info):
        if self.left is not None and _active:
            signal.setitimer(signal.ITIMER_REAL, self.left, TICK)
        return False


def rearm() -> None:
    """A hand starts: its budget starts afresh (nothing when no budget is armed)."""
    if _active:
        signal.setitimer(signal.ITIMER_REAL, _active[-1], TICK)


def budgeted(items, seconds: float):
    """Yield from `items` (a generator that plays hands), each item within `seconds`; the
    caller closes it (then the timer is disarmed) and turns a BudgetExceeded raised outside
    the rules into an error of its own."""
    with hand_budget(seconds):
        for item in items:
            yield item
            rearm()
