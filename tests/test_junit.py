"""The JUnit XML report: valid against a JUnit XSD (tests/data/junit.xsd, the subset Jenkins,
GitLab, Azure and GitHub reporters read), one testsuite per area, counts that add up, every
status mapped, and text from an engine's stderr made safe for XML."""

import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest
from corpus_cache import corpus

from baloot_spec.cli import main
from baloot_spec.conformance.junit import junit_xml
from baloot_spec.conformance.runner import ERROR, FAIL, PASS, Outcome
from baloot_spec.conformance.status import NOT_APPLICABLE, SKIPPED, UNSUPPORTED

xmlschema = pytest.importorskip("xmlschema", reason="xmlschema is a test dependency (pyproject [test])")

XSD = xmlschema.XMLSchema(str(Path(__file__).parent / "data" / "junit.xsd"))
CASES = list(corpus())
NASTY = "Traceback\x1b[31m <boom> & \"quotes\"\x00\x07 done \ud800 end"


def _outcomes():
    """One case of each area, cycling through every status (and an expected failure)."""
    by_area = {}
    for case in CASES:
        by_area.setdefault(case.area, []).append(case)
    statuses = [PASS, FAIL, ERROR, SKIPPED, UNSUPPORTED, NOT_APPLICABLE, "xfail"]
    out = []
    for number, case in enumerate(c for cases in by_area.values() for c in cases[:4]):
        status = statuses[number % len(statuses)]
        if status == FAIL:
            out.append(Outcome(case, FAIL, "winner: expected NS, got EW", {"winner": "NS"}, {"winner": "EW"},
                               details={"seconds": 0.25}))
        elif status == ERROR:
            out.append(Outcome(case, ERROR, "engine exited: " + NASTY, details={"stderr": NASTY, "failure": "exited"}))
        elif status == "xfail":
            out.append(Outcome(case, FAIL, "a known departure", {"a": 1}, {"a": 2}, details={"expected_failure": "house rule"}))
        else:
            out.append(Outcome(case, status, "" if status == PASS else f"why: {status}"))
    return out


def test_the_junit_report_is_valid_and_its_counts_add_up():
    outcomes = _outcomes()
    stale = [{"id": "play.gone.001", "reason": "old", "problem": "names no case of the corpus"}]
    text = junit_xml(outcomes, engine={"name": "eng <1>", "version": "2"}, corpus_hash="abc", stale=stale)
    XSD.validate(text)
    root = ET.fromstring(text)
    suites = root.findall("testsuite")
    areas = list(dict.fromkeys(o.case.area for o in outcomes))
    assert [s.get("name") for s in suites] == areas + ["departures", "expected-failures"]
    departures = suites[-2]
    assert departures.get("tests") == "0" and "FAILURES BY RULE" in departures.find("system-out").text
    totals = Counter()
    for suite in suites:
        cases = suite.findall("testcase")
        counts = {"tests": len(cases), "failures": sum(c.find("failure") is not None for c in cases),
                  "errors": sum(c.find("error") is not None for c in cases),
                  "skipped": sum(c.find("skipped") is not None for c in cases)}
        assert {k: int(suite.get(k)) for k in counts} == counts, suite.get("name")
        totals.update(counts)
    assert {k: int(root.get(k)) for k in totals} == dict(totals)
    by_id = {c.get("name"): c for s in suites for c in s.findall("testcase")}
    for outcome in outcomes:
        element = by_id[outcome.case.id]
        assert element.get("classname") == "conformance." + outcome.case.id.rsplit(".", 1)[0]
        if "expected_failure" in outcome.details:
            assert "expected failure: house rule" in element.find("skipped").get("message")
        elif outcome.status == FAIL:
            assert "expected" in element.find("failure").text and element.get("time") == "0.2500"
        elif outcome.status == ERROR:
            assert element.find("error").get("type") == "exited"
            assert element.find("system-err").text == "Traceback[31m <boom> & \"quotes\" done  end"
        elif outcome.status == PASS:
            assert len(element) == 0
        else:
            assert element.find("skipped").get("message").startswith(outcome.status)
    assert by_id["play.gone.001"].find("error").get("type") == "stale-entry"


def test_the_schema_is_strict_enough_to_catch_a_broken_report():
    good = junit_xml(_outcomes()[:3], engine={"name": "e", "version": "1"}, corpus_hash="h")
    XSD.validate(good)
    for broken in (good.replace('<testcase name="', '<testcase nam="', 1),
                   good.replace('tests="', 'tests="-', 1),
                   good.replace("<properties>", "<testcase name='x' classname='y' /><properties>", 1)):
        assert not XSD.is_valid(broken)


def test_a_junit_file_written_by_the_command_line_is_valid(tmp_path, capsys, monkeypatch):
    import baloot_spec.conformance.corpus as corpus_module
    monkeypatch.setattr(corpus_module, "load_corpus", lambda root=None: list(CASES))
    junit = tmp_path / "report.xml"
    assert main(["conformance", "run", "--id", "play.ekka.*", "--junit", str(junit), "--quiet"]) == 0
    capsys.readouterr()
    XSD.validate(str(junit))
    root = ET.parse(junit).getroot()
    assert [s.get("name") for s in root.findall("testsuite")] == ["play"]
    assert int(root.get("tests")) == sum(c.id.startswith("play.ekka.") for c in CASES) > 0
