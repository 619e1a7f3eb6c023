"""Expected failures: a JSON file {"case-id": "reason"} of known departures an engine lives with.

A listed case that fails or errors does not fail the run. The list cannot go stale: a listed
case that now passes is turned into an error ("remove the entry"), and an entry that names no
case of the corpus is reported as a problem of the run.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import CaseError, Location
from .corpus import read_json
from .runner import ERROR, PASS
from .status import FAILING


def load_expected_failures(path: str) -> dict[str, str]:
    """Read the file; CaseError (located) when it is unreadable or not {"id": "reason", ...}."""
    data = read_json(Path(path), path)
    if not isinstance(data, dict):
        raise CaseError('an expected-failures file is a JSON object {"case-id": "reason", ...}', Location(path))
    for case_id, reason in data.items():
        if not isinstance(reason, str) or not reason.strip():
            raise CaseError(f"$.{case_id}: the reason must be a non-empty string, not {reason!r}", Location(path), case_id)
    return dict(data)


def apply_expected_failures(outcomes: list, expected: dict[str, str], corpus_ids, file: str = "") -> list[dict]:
    """Mark the outcomes the list accounts for; return the stale entries (each a dict)."""
    stale = []
    known = set(corpus_ids)
    for case_id, reason in expected.items():
        if case_id not in known:
            stale.append({"id": case_id, "reason": reason, "problem": "names no case of the corpus"})
    for outcome in outcomes:
        reason = expected.get(outcome.case.id)
        if reason is None:
            continue
        if outcome.status in FAILING:
            outcome.details["expected_failure"] = reason
        elif outcome.status == PASS:
            where = f" in {file}" if file else ""
            outcome.status = ERROR
            outcome.message = (f"listed{where} as an expected failure ({reason}) but it passes: "
                               f"remove the entry")
            outcome.details["unexpected_pass"] = reason
    return stale
