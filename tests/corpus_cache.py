"""The corpus, loaded once per test session: loading validates every case file (over a second),
and the protocol, harness, JUnit and example-engine tests all need it."""

from functools import lru_cache

from baloot_spec.conformance.corpus import load_corpus


@lru_cache(maxsize=1)
def corpus() -> tuple:
    return tuple(load_corpus())
