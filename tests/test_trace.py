"""rules/TRACE.md: every sentence of de, nl and smsf is traced to rules and cases (issue 24).

The data is rules/trace/trace.yaml, checked against the verbatim sources in rules/trace/sources/,
the rule ids and knob values of rules/, and the case ids of the corpus (tools/source_trace.py)."""

import copy
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import source_trace as st  # noqa: E402


@pytest.fixture(scope="module")
def world():
    return {"entries": st.load_trace(), "sentences": st.load_sources(), "rules": st.rule_citations(),
            "knobs": st.knob_citations(), "cases": st.case_citations()}


def problems(world, entries=None, sentences=None):
    return st.check(world["entries"] if entries is None else entries,
                    world["sentences"] if sentences is None else sentences,
                    world["rules"], world["knobs"], world["cases"])


def test_every_sentence_is_traced_and_every_rule_bearing_one_has_a_case(world):
    assert problems(world) == []


def test_each_preset_sets_the_knob_values_its_sentences_name(world):
    assert st.preset_problems(world["entries"], world["sentences"], st.preset_knobs()) == []


def test_a_preset_that_does_not_follow_its_source_is_reported(world):
    knobs = st.preset_knobs()
    knobs["nl"] = {**knobs["nl"], "project_multiplier": "at_most_double"}   # as if nl-rulebook forgot nl:140.1
    found = st.preset_problems(world["entries"], world["sentences"], knobs)
    assert any(p.startswith("nl:140.1: names project_multiplier=level") for p in found), found


def test_every_knob_value_named_is_run_by_one_of_its_cases(world):
    assert st.case_knob_problems(world["entries"], st.case_variants()) == []


def test_a_knob_value_no_case_runs_under_is_reported(world):
    entries = copy.deepcopy(world["entries"])
    _entry({"entries": entries}, "nl:140.1").update(cases=["scoring.doubled.007"])   # a default-preset case
    found = st.case_knob_problems(entries, st.case_variants())
    assert any(p.startswith("nl:140.1: names project_multiplier=level, but none") for p in found), found


def test_trace_md_is_up_to_date(world):
    assert (ROOT / "rules" / "TRACE.md").read_text(encoding="utf-8") == st.render(world["entries"], world["sentences"]), \
        "rules/TRACE.md is out of date: run python tools/source_trace.py doc"


def test_the_three_sources_are_all_there(world):
    by_source = {}
    for s in world["sentences"]:
        by_source.setdefault(s["id"].split(":")[0], []).append(s)
    assert set(by_source) == {"de", "nl", "smsf"}
    assert all(len(v) > 50 for v in by_source.values())


def test_sentences_split_where_a_reader_would():
    sentences = {s["id"]: s["text"] for s in st.load_sources()}
    assert sentences["de:48.2"].startswith("Sun geht über Hokum")
    assert sentences["de:48.1"] == "• Sun – „Ich spiele ohne Trumpf.“"
    assert sentences["de:36.1"] == "1. Geber: Der erste Geber wird ausgelost."     # no split after "1."
    assert sentences["smsf:3.1"].endswith("(\"اللائحة العامة للعبة البلوت\").")   # a wrapped paragraph is one line
    assert sentences["smsf:12.2"].startswith("Sun: ÷ 10")


def test_the_copies_match_the_shared_rulebooks():
    shared = ROOT.parent / "shared" / "rulebooks"   # (CI and every checkout have ../shared beside them)
    if not shared.is_dir():
        pytest.skip("no ../shared/rulebooks next to this checkout")
    for file in st.SOURCES.values():
        assert (st.SOURCE_DIR / file).read_bytes() == (shared / file).read_bytes(), file


def _entry(world, sid):
    return next(e for e in world["entries"] if e["id"] == sid)


@pytest.mark.parametrize("change, message", [
    (lambda e: e.update(cases=[]), "no case tests it"),
    (lambda e: e.update(rules=["play.no-such-rule"]), "rule 'play.no-such-rule' does not exist"),
    (lambda e: e.update(knobs=["ekka=sometimes"]), "knob value 'ekka=sometimes' does not exist"),
    (lambda e: e.update(cases=["play.no-such-case.001"]), "case 'play.no-such-case.001' does not exist"),
    (lambda e: e.update(sha="0000000000"), "text changed"),
    (lambda e: e.update(status="pending: someday"), "only 'pending: issue 24 finding N'"),
    (lambda e: e.update(status="not a rule"), "needs a reason"),
    (lambda e: e.update(status="maybe"), "is none of"),
    (lambda e: e.update(rules=[], knobs=[]), "names no rule or knob value"),
])
def test_a_broken_entry_is_reported(world, change, message):
    entries = copy.deepcopy(world["entries"])
    change(_entry({"entries": entries}, "de:71.1"))
    found = problems(world, entries=entries)
    assert any(p.startswith("de:71.1:") and message in p for p in found), found


def test_a_pending_finding_may_have_no_case_yet(world):
    entries = copy.deepcopy(world["entries"])
    _entry({"entries": entries}, "de:71.1").update(status="pending: issue 24 finding 6 (test)", cases=[])
    assert problems(world, entries=entries) == []


def test_a_missing_or_stale_sentence_is_reported(world):
    entries = [e for e in world["entries"] if e["id"] != "nl:46.3"]
    assert any(p.startswith("nl:46.3: sentence not traced") for p in problems(world, entries=entries))
    extra = entries + [{"id": "nl:999.1", "sha": "x", "status": "not a rule: test"}]
    assert any(p.startswith("nl:999.1: no such sentence") for p in problems(world, entries=extra))


def test_cli_exit_codes(tmp_path, monkeypatch, capsys):
    assert st.main(["check"]) == 0
    assert st.main(["doc", "--check"]) == 0
    bad = tmp_path / "trace.yaml"
    bad.write_text("sentences: [oops\n", encoding="utf-8")
    monkeypatch.setattr(st, "TRACE_YAML", bad)
    assert st.main(["check"]) == 2
    assert str(bad) in capsys.readouterr().err
