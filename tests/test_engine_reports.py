"""The published reports of real engines (conformance/reports/) are well formed and explain every
case that did not pass; the README's matrix is the one the reports make; tools/engine_report.py
joins a run with a classification as documented. No engine source is needed: reports are data."""

import glob
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import engine_report  # noqa: E402

REPORTS = sorted((ROOT / "conformance" / "reports").glob("*.json"))


def corpus_ids() -> set:
    ids = set()
    for path in glob.glob(str(ROOT / "conformance" / "cases" / "**" / "*.json"), recursive=True):
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        ids.update(case["id"] for case in (data["cases"] if isinstance(data, dict) else data))
    return ids


def test_there_are_two_engines_in_two_languages():
    reports = [json.loads(p.read_text(encoding="utf-8")) for p in REPORTS]
    assert len({r["engine"]["language"] for r in reports}) >= 2
    assert all(r["engine"]["language"] != "Python" for r in reports)


@pytest.mark.parametrize("path", REPORTS, ids=lambda p: p.stem)
def test_report_is_well_formed_and_explains_every_case(path):
    report = json.loads(path.read_text(encoding="utf-8"))
    assert report["format"] == engine_report.FORMAT
    manifest = json.loads((ROOT / "conformance" / "engines" / path.stem / "engine.json").read_text())
    assert report["engine"]["commit"] == manifest["commit"] and len(manifest["commit"]) == 40
    assert report["unclassified"] == []
    totals = report["totals"]
    assert sum(totals[k] for k in ("pass", "fail", "error", "skipped", "unsupported")) == totals["total"]
    assert len(report["cases"]) == totals["fail"] + totals["error"] + totals["skipped"]
    for cause in engine_report.CAUSES:
        assert report["by_cause"][cause] == sum(1 for c in report["cases"] if c["cause"] == cause)
    ids = corpus_ids()
    for case in report["cases"]:
        assert case["id"] in ids, f"{case['id']} is not a case of the corpus any more"
        assert case["status"] in engine_report.NOT_PASSING
        assert case["cause"] in engine_report.CAUSES and case.get("explanation")
        if case["cause"] == "departure":  # the rule broken, with its sentence
            assert case["rules"] and case.get("quote")
        if case["cause"] == "skipped":
            assert case["status"] == "skipped"
    assert report["summary"] in (path.with_suffix(".md")).read_text(encoding="utf-8")


def test_classification_names_only_corpus_cases():
    ids = corpus_ids()
    for path in (ROOT / "conformance" / "engines").glob("*/classification.json"):
        for entry in json.loads(path.read_text(encoding="utf-8"))["entries"]:
            for pattern in entry.get("cases", []):
                assert pattern in ids, f"{path}: {pattern} is not a case id"


@pytest.mark.parametrize("path", REPORTS, ids=lambda p: p.stem)
def test_every_case_a_classification_names_is_explained_by_it_in_the_report(path):
    """No stale explanation: a case named in classification.json is one the published report
    explains with that entry (a case that now passes, or fails for another reason, is taken out)."""
    report = json.loads(path.read_text(encoding="utf-8"))
    _, classification = engine_report.engine_files(path.stem)
    explained = {}
    for case in report["cases"] + report.get("fingerprint_cases", []):
        explained.setdefault(id(engine_report.classify(case, classification["entries"])), set()).add(case["id"])
    for entry in classification["entries"]:
        for case_id in entry.get("cases", []):
            assert case_id in explained.get(id(entry), set()), f"{path.stem}: {case_id} is not explained by its entry"


def test_readme_matrix_is_the_reports_matrix():
    readme = (ROOT / "conformance" / "README.md").read_text(encoding="utf-8")
    inside = readme.split(engine_report.MATRIX_BEGIN, 1)[1].split(engine_report.MATRIX_END, 1)[0]
    assert inside.strip() == engine_report.matrix(engine_report.engines_with_reports()).strip()


MANIFEST = {"name": "toy", "repository": "https://example.org/toy", "commit": "0" * 40, "language": "Rust"}


def run_of(*outcomes):
    totals = {"pass": 0, "fail": 0, "error": 0, "skipped": 0, "unsupported": 0}
    for o in outcomes:
        totals[o["status"]] += 1
    totals["total"] = len(outcomes)
    return {"engine": {"name": "toy", "claims": {}}, "corpus": {"version": "x", "cases": 3, "hash": "h"},
            "totals": totals, "features": {}, "cases": list(outcomes)}


def test_classify_explains_failures_and_skips_separately():
    entries = [{"cases": ["play.a.*"], "cause": "skipped", "explanation": "no such thing"},
               {"message_contains": "no scores", "cause": "skipped", "explanation": "no scores"},
               {"cases": ["play.b.001"], "cause": "departure", "rules": ["r"], "quote": "q", "explanation": "e"}]
    run = run_of({"id": "play.a.001", "status": "fail", "message": "m"},
                 {"id": "score.x.001", "status": "skipped", "message": "skipped by the engine: no scores here"},
                 {"id": "play.b.001", "status": "fail", "message": "m"},
                 {"id": "play.b.001", "status": "error", "message": "setup refused"},
                 {"id": "play.c.001", "status": "pass"})
    report = engine_report.make_report(run, MANIFEST, {"entries": entries}, "2026-01-01")
    # a skip note does not explain a failure, a departure does not explain an error
    assert [(c["id"], c["status"]) for c in report["unclassified"]] == [("play.a.001", "fail"), ("play.b.001", "error")]
    assert {(c["id"], c["cause"]) for c in report["cases"]} == {("score.x.001", "skipped"), ("play.b.001", "departure")}
    assert report["by_cause"] == {"departure": 1, "ours": 0, "protocol": 0, "skipped": 1}
    assert "play.a.001" in engine_report.markdown(report)


def test_cli_exit_statuses(tmp_path, capsys):
    assert engine_report.main(["build", "no-such-engine", "--run-json", str(tmp_path / "x.json")]) == 2
    assert "no engine 'no-such-engine'" in capsys.readouterr().err
    # a run of another engine than the one named is refused
    other = tmp_path / "run.json"
    other.write_text(json.dumps(run_of({"id": "a", "status": "pass"})))
    assert engine_report.main(["build", "majlis-baloot", "--run-json", str(other), "--out", str(tmp_path)]) == 2
    # an unexplained failure: the report is written and the status is 1
    run = run_of({"id": "play.nothing.999", "status": "fail", "message": "m"})
    run["engine"]["name"] = "majlis-baloot"
    run["engine"]["version"] = "1" * 40  # not the pinned commit
    other.write_text(json.dumps(run))
    assert engine_report.main(["build", "majlis-baloot", "--run-json", str(other), "--out", str(tmp_path)]) == 2
    assert "pinned to" in capsys.readouterr().err
    run["engine"]["version"] = json.loads((ROOT / "conformance/engines/majlis-baloot/engine.json").read_text())["commit"]
    other.write_text(json.dumps(run))
    assert engine_report.main(["build", "majlis-baloot", "--run-json", str(other), "--out", str(tmp_path)]) == 1
    written = json.loads((tmp_path / "majlis-baloot.json").read_text())
    assert [c["id"] for c in written["unclassified"]] == ["play.nothing.999"]
    assert engine_report.main(["build", "majlis-baloot"]) == 2  # neither --source nor --run-json


def test_report_embeds_a_fingerprint_when_the_module_is_there(tmp_path, monkeypatch):
    """build --source fingerprints through baloot_spec.conformance.fingerprint when it imports; the
    JSON keeps it, the Markdown has "Which Baloot it plays" and the matrix its variant line. Without
    the module the report says why it has none."""
    fp = {"format": "baloot-fingerprint/1", "variant": {"line": "--preset saudi-federation --set tie_rule=digit"}}
    calls = []

    class Fake:
        @staticmethod
        def fingerprint(engine_cmd, **_):
            calls.append(engine_cmd)
            return fp

        @staticmethod
        def to_markdown(value):
            return "## Fingerprint\n\nplays " + value["variant"]["line"] + "\n"

    monkeypatch.setattr(engine_report, "fingerprint_module", lambda: Fake)
    manifest = dict(MANIFEST, command=["node", "{build}/adapter.mjs"])
    made, note = engine_report.make_fingerprint(engine_report.engine_command(manifest, tmp_path))
    assert calls == [f"node {tmp_path}/adapter.mjs"] and made == fp and note == ""
    report = engine_report.make_report(run_of({"id": "a", "status": "pass"}), MANIFEST, {"entries": []},
                                       "2026-01-01", made, note)
    assert report["fingerprint"] == fp and report["fingerprint_note"] == ""
    text = engine_report.markdown(report)
    assert "## Which Baloot it plays\n\n### Fingerprint\n\nplays --preset saudi-federation --set tie_rule=digit" in text
    assert "`--preset saudi-federation --set tie_rule=digit`" in engine_report.matrix([report])
    assert report["fingerprint_cases"] == [] and report["fingerprint_unclassified"] == []

    monkeypatch.setattr(engine_report, "fingerprint_module", lambda: None)
    made, note = engine_report.make_fingerprint("node x.mjs")
    assert made is None and "not importable" in note
    report = engine_report.make_report(run_of({"id": "a", "status": "pass"}), MANIFEST, {"entries": []},
                                       "2026-01-01", made, note)
    assert "No fingerprint: baloot_spec.conformance.fingerprint is not importable" in engine_report.markdown(report)

    class Broken(Fake):
        @staticmethod
        def fingerprint(engine_cmd, **_):
            raise RuntimeError("engine died")

    monkeypatch.setattr(engine_report, "fingerprint_module", lambda: Broken)
    made, note = engine_report.make_fingerprint("node x.mjs")
    assert made is None and note == "the fingerprint failed: RuntimeError: engine died"


def test_cases_that_differ_under_the_fingerprint_variant_are_explained_too():
    """What differs under the variant the fingerprint found is joined with classification.json
    like a run's failures; one it does not explain is listed as unclassified."""
    fp = {"format": "baloot-fingerprint/1", "variant": {"line": "--preset default"}, "knobs": {},
          "closest_preset": {"name": "default", "differs_on": []}, "engine": {"name": "toy"},
          "run": {"pass": 1, "fail": 2, "not_answered": 0, "failures": [
              {"id": "play.b.001", "depends_on": [], "engine": "legal: [1]", "expected": "legal: [2]", "features": []},
              {"id": "play.c.001", "depends_on": [], "engine": "x", "expected": "y", "features": []}]}}
    entries = [{"cases": ["play.b.001"], "cause": "departure", "rules": ["r"], "quote": "q", "explanation": "e"}]
    report = engine_report.make_report(run_of({"id": "play.b.001", "status": "pass"}), MANIFEST,
                                       {"entries": entries}, "2026-01-01", fp, "")
    assert [(c["id"], c["cause"]) for c in report["fingerprint_cases"]] == [("play.b.001", "departure")]
    assert [c["id"] for c in report["fingerprint_unclassified"]] == ["play.c.001"]
    assert report["unclassified"] == []
    text = engine_report.markdown(report)
    assert "### Why each case differs under that variant" in text and "play.c.001" in text
    assert "under it 2 cases differ (1 departure)" in engine_report.matrix([report])
