"""Fuzzing in CI (issue 29, Build 5): hypothesis drives tools/fuzz.py's generators through every
reader, a bounded number of inputs each (about 30 s in all): each input must end as a located
error or a verdict, in bounded time, with no process left behind and no input file changed.
`python tools/fuzz.py --minutes N` runs the same targets for as long as asked."""

import os
import random
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import fuzz  # noqa: E402

from baloot_spec.conformance.protocol import ProtocolError, decode  # noqa: E402
from baloot_spec.errors import RulesError  # noqa: E402
from baloot_spec.limits import InputLimitError, loads  # noqa: E402
from baloot_spec.rules.yamlpos import load_yaml_text  # noqa: E402

SEEDS = st.integers(min_value=0, max_value=2 ** 62)


def _settings(examples: int):
    return settings(max_examples=examples, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))


def _check(target: str, seed: int, tmp_path_factory) -> None:
    work = tmp_path_factory.mktemp(target)
    outcome, finding, seconds = fuzz.run_one(target, random.Random(seed), work)
    assert finding is None, f"{target} seed {seed}: {finding}"


@pytest.mark.parametrize("target, examples", [
    ("logs", 120), ("overlays", 6), ("rules", 4), ("cases", 60), ("expected", 100), ("replies", 200),
])
def test_fuzz_reader(target, examples, tmp_path_factory):
    @_settings(examples)
    @given(SEEDS)
    def run(seed):
        _check(target, seed, tmp_path_factory)
    run()


@pytest.mark.parametrize("kind", ["not-reading", "child-then-exit", "child-holding-pipes", "flood-no-newline",
                                  "huge-int", "deep", "dup-keys", "garbage"])
def test_fuzz_misbehaving_engine(kind, tmp_path_factory, monkeypatch):
    """Each misbehaviour once, at the engine's first request (the long run also lets the engine
    answer a few requests correctly first)."""
    monkeypatch.setattr(fuzz.random.Random, "choice", lambda self, seq: kind if kind in seq else seq[0])
    _check("engines", 1, tmp_path_factory)


@_settings(100)
@given(st.text(max_size=300))
def test_raw_text_through_the_yaml_loader(text):
    try:
        load_yaml_text(text, "fuzz.yaml")
    except RulesError as exc:
        assert exc.location.file == "fuzz.yaml" and exc.message


@_settings(100)
@given(st.binary(max_size=300))
def test_raw_bytes_as_an_engine_reply(line):
    try:
        assert isinstance(decode(line), dict)
    except ProtocolError:
        pass


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
                    max_leaves=30)


@_settings(100)
@given(JSON, st.integers(min_value=0, max_value=2))
def test_strict_json_accepts_what_it_should_and_locates_the_rest(value, mutation):
    import json
    text = json.dumps(value)
    if mutation == 1:
        text = text[: len(text) // 2]       # truncated: valid or not, never a traceback
    elif mutation == 2:
        text = "[" * 60 + text + "]" * 60   # deeper than the policy allows
    try:
        parsed = loads(text)
    except InputLimitError as exc:
        assert exc.message
        assert mutation != 0 or "digits" in exc.message
        assert mutation != 2 or "nested" in exc.message
        return
    assert mutation != 2
    if mutation == 0:
        assert parsed == value
