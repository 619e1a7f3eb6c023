"""The ways a conformance case can end, shared by the runners and every report format.

pass, fail (expected vs actual differ) and error (the case could not be run: a refused setup
event, a crash, a protocol violation) are verdicts; skipped (the engine said it does not
implement what the case needs), unsupported (its hello did not claim the case's feature, knob
value, preset or command) and not_applicable (the run was restricted to another preset) are not.
"""

from __future__ import annotations

from .runner import ERROR, FAIL, PASS

SKIPPED, UNSUPPORTED, NOT_APPLICABLE = "skipped", "unsupported", "not_applicable"
STATUSES = (PASS, FAIL, ERROR, SKIPPED, UNSUPPORTED, NOT_APPLICABLE)
FAILING = (FAIL, ERROR)
LABELS = {PASS: "pass", FAIL: "fail", ERROR: "error", SKIPPED: "skipped", UNSUPPORTED: "unsupported",
          NOT_APPLICABLE: "n/a"}


def is_expected_failure(outcome) -> bool:
    return outcome.status in FAILING and "expected_failure" in outcome.details


def is_unexpected(outcome) -> bool:
    """A failing outcome that no expected-failures entry accounts for (it makes the run fail)."""
    return outcome.status in FAILING and "expected_failure" not in outcome.details
