"""Every conformance case is its own test, named by its case id (like JSON-Schema-Test-Suite)."""

import pytest

from baloot_spec.conformance.corpus import load_corpus
from baloot_spec.conformance.runner import PASS, run_case

CASES = load_corpus()


def test_the_corpus_is_large_enough_per_area():
    areas = {}
    for case in CASES:
        areas[case.area] = areas.get(case.area, 0) + 1
    assert areas.get("play", 0) >= 80
    assert areas.get("bidding", 0) + areas.get("deal", 0) + areas.get("doubling", 0) >= 120
    assert areas.get("projects", 0) + areas.get("scoring", 0) + areas.get("match", 0) >= 150


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case(case):
    outcome = run_case(case)
    assert outcome.status == PASS, f"{case.path}: {outcome.message}"
