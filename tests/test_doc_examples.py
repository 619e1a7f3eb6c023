"""Every JSON example in the conformance documents is checked (issue 25): extracted from the
Markdown, validated against its schema, and audited or run where it is a log, a score or a list
of expected failures.

Examples are found generically (every ```json / ```jsonl block of the files below, whoever wrote
it), so new sections are covered as they are added. A block may hold one value, a member
fragment (`"setup": {...}`) or several values (protocol exchanges: a request, then its response).
A block that is not JSON at all must say it is a sketch with an ellipsis (`...`)."""

import json
import re
from pathlib import Path

import jsonschema
import pytest

from baloot_spec.cli import main
from baloot_spec.conformance.protocol import problem
from baloot_spec.engine.hand import score_facts
from baloot_spec.expr.builtins import Rec
from baloot_spec.rules import load_variant
from baloot_spec.text import plain

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "conformance" / name for name in ("LOGS.md", "README.md", "PROTOCOL.md", "ENGINES.md")]
SCHEMAS = ROOT / "conformance" / "schema"
FENCE = re.compile(r"^```(json|jsonl)[ \t]*\n(.*?)^```", re.S | re.M)


def _blocks():
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            yield pytest.param(path.name, line, match.group(2), id=f"{path.name}:{line}")


def _values(block: str):
    """The JSON values of a block, in order (None if it is not JSON): one value, several, or a
    member fragment `"key": value, ...` read as an object."""
    for text in (block, "{" + block.strip().rstrip(",") + "}"):
        decoder, values, at = json.JSONDecoder(), [], 0
        try:
            while True:
                while at < len(text) and text[at].isspace():
                    at += 1
                if at == len(text):
                    return values
                value, at = decoder.raw_decode(text, at)
                values.append(value)
        except json.JSONDecodeError:
            continue
    return None


def _schema(name):
    return json.loads((SCHEMAS / name).read_text(encoding="utf-8"))


def _errors(schema, value):
    return [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(value)]


def _case_setup_errors(setup):
    """A case setup is valid when some case kind's setup schema accepts it (or, for the kinds
    the schema leaves open, when it is an object)."""
    schema = _schema("case.schema.json")
    kinds = []
    for branch in schema["$defs"]["case"]["allOf"]:
        sub = branch.get("then", {}).get("properties", {}).get("setup")
        if sub is not None:
            kinds.append({"$defs": schema["$defs"], **sub})
    results = [_errors(kind, setup) for kind in kinds]
    return [] if any(not r for r in results) else min(results, key=len)


def _log_of_deal(deal):
    return {"format": "baloot-log/1", "variant": {"preset": "default"}, "match": {"first_dealer": "N"},
            "hands": [{"dealer": "N", "deal": deal, "events": []}]}


def _audit(tmp_path, document):
    path = tmp_path / "example.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return main(["audit", "--json", str(path)])


def _check(value, previous, tmp_path, capsys, where):
    """Check one value; return what it was recognised as."""
    if isinstance(value, dict) and value.get("format") == "baloot-log/1":
        assert _errors(_schema("log.schema.json"), value) == [], where
        code = _audit(tmp_path, value)
        report = json.loads(capsys.readouterr().out)
        assert code == 0, (where, [v["message"] for d in report["documents"] for v in d["violations"]])
        return "log"
    if isinstance(value, dict) and "cmd" in value and "seq" in value:
        assert problem(f"{value['cmd']}.request", value) is None, (where, problem(f"{value['cmd']}.request", value))
        return "request"
    if isinstance(value, dict) and "seq" in value and isinstance(previous, dict) and "cmd" in previous:
        assert value["seq"] == previous["seq"], where
        assert problem(f"{previous['cmd']}.response", value) is None, (where, problem(f"{previous['cmd']}.response", value))
        if previous["cmd"] == "score" and "score" in value:   # run it: the engine's score of these facts
            variant = previous.get("variant") or {"preset": "default"}
            rules = load_variant(variant.get("preset", "default"), variant.get("set") or {}, variant.get("overlays") or [])
            facts = {k: Rec(v) if isinstance(v, dict) else v for k, v in previous["facts"].items()}
            computed = plain(score_facts(rules, facts))
            assert {k: computed[k] for k in value["score"]} == value["score"], where
        return "response"
    if isinstance(value, dict) and "cases" in value and "description" in value:
        assert _errors(_schema("case.schema.json"), value) == [], where
        return "case file"
    if isinstance(value, dict) and set(value) == {"setup"}:
        assert _case_setup_errors(value["setup"]) == [], where
        return "case setup"
    if isinstance(value, dict) and "contract" in value and "phase" in value:   # a position (PROTOCOL.md, Setup forms)
        from baloot_spec.conformance.protocol import _registry
        schema = _schema("position.schema.json")
        check = jsonschema.Draft202012Validator({"$ref": schema["$id"] + "#/$defs/position"}, registry=_registry())
        assert [e.message for e in check.iter_errors(value)] == [], where
        return "position"
    if isinstance(value, dict) and "hands" in value and "public" in value:
        assert _errors(_schema("log.schema.json"), _log_of_deal(value)) == [], where
        return "deal"
    if isinstance(value, dict) and value and all(re.fullmatch(r"[a-z]+(\.[a-z0-9-]+)+", k) for k in value) \
            and all(isinstance(v, str) and v.strip() for v in value.values()):
        from corpus_cache import corpus
        known = {case.id for case in corpus()}
        assert set(value) <= known, (where, sorted(set(value) - known))   # an expected-failures file
        return "expected failures"
    if isinstance(value, dict) and value.get("format") == "baloot-expected-failures/2":
        from baloot_spec.conformance.expectations import load_expected_failures
        path = tmp_path / "expected.json"
        path.write_text(json.dumps(value), encoding="utf-8")
        assert load_expected_failures(str(path)), where   # read by the real reader: a malformed one raises
        return "expected failures"
    raise AssertionError(f"{where}: an example of a kind this test does not know: {json.dumps(value)[:120]}")


@pytest.mark.parametrize("doc, line, block", list(_blocks()))
def test_every_json_example_is_valid_and_runs(doc, line, block, tmp_path, capsys):
    where = f"conformance/{doc}:{line}"
    values = _values(block)
    if values is None:
        assert "..." in block, f"{where}: not JSON, and not marked as a sketch with '...'"
        pytest.skip(f"{where}: a sketch ('...'), not JSON")
    previous = None
    for value in values:
        _check(value, previous, tmp_path, capsys, where)
        previous = value


def test_the_examples_cover_every_document():
    found = {p.values[0] for p in _blocks()}
    assert found == {p.name for p in DOCS}


def test_the_unordered_deal_example_is_the_annotated_hand(tmp_path, capsys):
    """LOGS.md's deal without its order is the annotated example's hand: put in its place, the
    example still audits clean (with the note saying what could not be checked)."""
    text = (ROOT / "conformance" / "LOGS.md").read_text(encoding="utf-8")
    values = [_values(m.group(2)) for m in FENCE.finditer(text)]
    log = next(v[0] for v in values if v and v[0].get("format") == "baloot-log/1")
    deal = next(v[0] for v in values if v and v[0].get("unordered"))
    log["hands"][0]["deal"] = deal
    assert _audit(tmp_path, log) == 0
    report = json.loads(capsys.readouterr().out)["documents"][0]
    assert report["violations"] == [] and any("without its deal order" in n for n in report["notes"])


def test_a_stale_example_would_fail(tmp_path, capsys):
    """The check can fail: the annotated example with a wrong hash, or a wrong claim, does."""
    text = (ROOT / "conformance" / "LOGS.md").read_text(encoding="utf-8")
    log = next(v[0] for v in (_values(m.group(2)) for m in FENCE.finditer(text)) if v and v[0].get("format") == "baloot-log/1")
    log["variant"]["hash"] = "0" * 16
    with pytest.raises(AssertionError):
        _check(log, None, tmp_path, capsys, "stale")
