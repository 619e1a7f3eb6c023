"""The log reader never raises, and its fast schema check agrees with jsonschema 2020-12."""

import copy
import json
import random

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from baloot_spec.audit import audit_input
from baloot_spec.log.reader import parse_document, _schema, check_document
from baloot_spec.simulate import simulate_hands
from baloot_spec.rules import load_variant

RULES = load_variant()
# As a reader gets them: parsed from JSON (in memory, some strings are located YAML strings).
DOCUMENTS = [json.loads(json.dumps(d)) for d in simulate_hands(RULES, 6, seed=21)]
VALIDATOR = jsonschema.Draft202012Validator(_schema())
VALUES = st.one_of(st.none(), st.booleans(), st.integers(-5, 200), st.sampled_from(
    ["N", "X", "AS", "10S", "ZZ", "pass", "hokum", "play", "bid", "double", "NS", "", "baloot-log/1"]),
    st.lists(st.sampled_from(["AS", "KH", "sira", 3]), max_size=3), st.just({}))


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, prefix + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, prefix + (index,))


def _mutate(document, rng: random.Random, value):
    """Drop, duplicate, swap or alter one field or event of a copy of the document."""
    doc = copy.deepcopy(document)
    paths = [p for p in _paths(doc) if p]
    path = rng.choice(paths)
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    action = rng.choice(["drop", "alter", "duplicate", "swap", "type"])
    if action == "drop":
        del parent[key]
    elif action == "alter":
        parent[key] = value
    elif action == "duplicate" and isinstance(parent, list):
        parent.insert(key, copy.deepcopy(parent[key]))
    elif action == "swap" and isinstance(parent, list) and len(parent) > 1:
        other = rng.randrange(len(parent))
        parent[key], parent[other] = parent[other], parent[key]
    elif action == "type":
        parent[key] = str(parent[key]) if not isinstance(parent[key], str) else [parent[key]]
    return doc


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9), VALUES)
def test_mutated_logs_never_crash_the_reader_or_auditor(seed, value):
    rng = random.Random(seed)
    document = _mutate(rng.choice(DOCUMENTS), rng, value)
    fast_says_valid = check_document(document) == []
    assert fast_says_valid == VALIDATOR.is_valid(document)
    item = parse_document(json.dumps(document), "fuzz.json", None)
    report = audit_input(item)       # must not raise, whatever the mutation
    assert report.errors or report.hands >= 0
    for violation in report.violations:
        assert violation.path.startswith("$") and violation.rule


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 10**9), st.integers(1, 400))
def test_truncated_logs_are_located_errors(seed, cut):
    text = json.dumps(random.Random(seed).choice(DOCUMENTS))
    item = parse_document(text[: min(cut, len(text) - 1)], "cut.json", None)
    assert item.document is None and item.errors and item.errors[0]["message"].startswith("not valid JSON")
    assert "line" in item.errors[0] and "column" in item.errors[0]


def test_a_value_that_fits_no_form_is_located_at_its_deepest_error():
    # A deal is a deck or hands + public (oneOf): the error names the field that is wrong,
    # not the whole deal.
    document = copy.deepcopy(DOCUMENTS[0])
    document["hands"][0]["deal"]["cut"] = {"by": "E", "option": 5}
    errors = check_document(document)
    assert errors == [{"path": "$.hands[0].deal.cut.option", "message": "5 is not of type 'string'"}]


EVENTS = [
    {"type": "play", "seat": "N", "card": "AS"}, {"type": "play", "card": "AS"}, {"seat": "N"}, {},
    {"type": "play", "seat": 3, "card": "AS"}, {"type": "play", "seat": "N", "card": True},
    {"type": "double", "seat": "N", "call": "pass", "closed": "no"}, {"type": "double", "seat": "N", "closed": 0},
    {"type": "play", "seat": "N", "card": "AS", "declare": ["sira", 3]}, {"type": "play", "seat": "N", "declare": "sira"},
    {"type": "play", "seat": "N", "card": "AS", "declare": []}, {"type": "play", "seat": "N", "ekka": 1},
    {"type": "play", "seat": "N", "card": "AS", "note": 7},   # (other keys are allowed)
    ["play"], "play", None, 3,
]


@pytest.mark.parametrize("event", EVENTS, ids=range(len(EVENTS)))
def test_the_plain_event_check_agrees_with_jsonschema(event):
    # Events are checked by a loop of our own (reader._flat_records), not by fastjsonschema.
    document = copy.deepcopy(DOCUMENTS[0])
    document["hands"][0]["events"].insert(3, event)
    assert (check_document(document) == []) == VALIDATOR.is_valid(document)


def test_only_arrays_of_flat_records_leave_the_fast_validator():
    from baloot_spec.log.reader import _flat_check, _flat_records
    assert [path for path, _ in _flat_records()[1]] == [("hands", "*", "events")]
    record = {"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}}
    assert _flat_check(record)({"a": "x", "b": 1}) and not _flat_check(record)({"b": 1})
    for stricter in ({**record, "additionalProperties": False}, {**record, "properties": {"a": {"enum": ["x"]}}},
                     {**record, "properties": {"a": {"type": "number"}}}, {**record, "minProperties": 1},
                     {**record, "properties": {"a": {"type": "array", "items": {"type": "string"}, "maxItems": 2}}}):
        assert _flat_check(stricter) is None, stricter


DEALS = [
    {"deck": ["AS"]}, {"hands": {"N": ["AS"]}, "public": "KH"}, {"deck": ["AS"], "hands": {}, "public": "KH"},
    {"deck": ["AS"], "public": "KH"}, {"hands": {"N": ["AS"]}}, {}, {"public": "KH"}, [], "deck", None, 3,
    {"hands": {"N": ["AS"]}, "public": "KH", "exposed": "QD"}, {"deck": ["AS"], "cut": {"by": "E", "option": "go"}},
]


@pytest.mark.parametrize("deal", DEALS, ids=range(len(DEALS)))
@pytest.mark.parametrize("trump", ["S", "X", None, 3, ["S"]])
def test_the_fast_check_agrees_on_both_deal_forms_and_every_trump(deal, trump):
    # The fast validator's schema replaces oneOf (deal) and anyOf (trump) by forms that fail no
    # branch on a valid document; it must accept exactly what jsonschema accepts.
    document = copy.deepcopy(DOCUMENTS[0])
    document["hands"][0]["deal"] = deal
    document["hands"][0].setdefault("claimed", {})["trump"] = trump
    assert (check_document(document) == []) == VALIDATOR.is_valid(document)


@pytest.mark.parametrize("damaged", [(b"\xe3 not marshalled code", "validate"), ("def broken(:", "x"), None, 7])
def test_a_damaged_cached_validator_is_made_again(monkeypatch, damaged):
    # The generated validator's code is kept in the rules cache; a broken entry is a miss.
    from baloot_spec.log import reader
    from baloot_spec.rules import cache
    real_load = cache.load
    monkeypatch.setattr(cache, "load", lambda kind, key: damaged if kind == "log-validator" else real_load(kind, key))
    reader._fast_validator.cache_clear()
    try:
        assert check_document(DOCUMENTS[0]) == []
        broken = copy.deepcopy(DOCUMENTS[0])
        broken["hands"][0]["dealer"] = "X"
        assert check_document(broken) and not VALIDATOR.is_valid(broken)
    finally:
        reader._fast_validator.cache_clear()


def test_preparing_the_checks_and_reading_valid_logs_does_not_import_jsonschema(tmp_path):
    # jsonschema only writes the messages of an invalid document; importing it costs a worker
    # pool 40 ms of serial start-up (the parent prepares the checks before it forks).
    import subprocess
    import sys
    log = tmp_path / "valid.jsonl"
    log.write_text("".join(json.dumps(d) + "\n" for d in DOCUMENTS[:2]), encoding="utf-8")
    script = ("import sys\nfrom baloot_spec.log.reader import prepare_checks, read_raw, parse_document\n"
              "prepare_checks()\n"
              "items = [parse_document(text, name, line) for name, line, text, _ in read_raw([sys.argv[1]])]\n"
              "assert items and all(i.document is not None for i in items), items\n"
              "print('jsonschema' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", script, str(log)], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
