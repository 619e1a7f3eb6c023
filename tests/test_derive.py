"""`baloot conformance derive`: the corpus re-expected under a variant (here a tiny house-rules
overlay: Baloot is worth 4 game points). The derived folder is a valid corpus that the built-in
engine passes under that variant and fails under another; changed cases are marked with the
rule ids that make the difference; unanswerable cases are left out and counted."""

import json

import pytest
from corpus_cache import corpus

from baloot_spec.cli import main
from baloot_spec.conformance.corpus import load_corpus
from baloot_spec.conformance.derive import derive_corpus, relative_path
from baloot_spec.conformance.harness import run_in_process, target_of
from baloot_spec.conformance.retarget import retarget, variant_spec
from baloot_spec.conformance.runner import FAIL, PASS, run_case
from baloot_spec.errors import CaseError

CASES = list(corpus())
OVERLAY = """overlay: baloot-four
title: "A house rule: Baloot is worth 4 game points"
source: "choice: a test overlay for conformance derive"
replace:
  - id: score.baloot-points
    name: baloot_points
    expr: "map((4 if baloot[t] else 0) for t in const.teams)"
    source: "choice: house rule, Baloot 4 points"
"""


@pytest.fixture(scope="module")
def derived(tmp_path_factory):
    folder = tmp_path_factory.mktemp("derive")
    overlay = folder / "baloot-four.yaml"
    overlay.write_text(OVERLAY, encoding="utf-8")
    out = folder / "out"
    code = main(["conformance", "derive", "--overlay", str(overlay), "--out", str(out), "--json"])
    assert code == 0
    return overlay, out


def test_the_derived_folder_is_a_corpus_with_every_answerable_case(derived, capsys):
    overlay, out = derived
    cases = load_corpus(cases_dir=out)
    ids = {c.id for c in cases}
    assert ids <= {c.id for c in CASES} and len(ids) > 800
    left_out = [c for c in CASES if c.id not in ids]
    for case in left_out:   # left out: the variant cannot answer it (the reference engine errs)
        assert run_case(retarget(case, variant_spec("default", {}, [str(overlay)]))).status not in (PASS, FAIL) \
            or case.kind == "reject", case.id
    original = {c.id: c for c in CASES}
    for case in cases:      # ids, titles, sources, files kept
        source = original[case.id]
        assert case.data["title"] == source.data["title"] and case.data["source"] == source.data["source"]
        assert case.file.endswith("/" + relative_path(source.file)), (case.file, source.file)


def test_changed_cases_are_marked_with_the_rules_that_make_the_difference(derived):
    overlay, out = derived
    cases = load_corpus(cases_dir=out)
    marked = [c for c in cases if "derived" in c.data]
    baloot = [c for c in marked if c.data["derived"]["from"] == {"preset": "default", "set": {}}]
    assert baloot, "default-variant cases with a Baloot must change under the overlay"
    assert all("score.baloot-points" in c.data["derived"]["rules"] for c in baloot)
    unmarked_ok = [c for c in cases if "derived" not in c.data]
    original = {c.id: c for c in CASES}
    assert all(c.data["expect"] == original[c.id].data["expect"] for c in unmarked_ok)


def test_a_derived_corpus_passes_under_its_variant_and_fails_under_another(derived):
    overlay, out = derived
    cases = load_corpus(cases_dir=out)
    own = run_in_process(cases)
    assert {o.status for o in own.outcomes} == {PASS}
    plain_default = [run_case(retarget(c, variant_spec("default"))).status for c in cases if "derived" in c.data]
    assert plain_default.count(FAIL) > 0


def test_the_derived_corpus_runs_through_the_cli(derived, monkeypatch, capsys):
    overlay, out = derived
    code = main(["conformance", "run", "--quiet", "--id", "scoring.*", "--cases", str(out)])
    captured = capsys.readouterr()
    assert code == 0 and " 0 failed" in captured.out


def test_derive_refuses_a_non_empty_folder_without_force(derived, tmp_path, capsys):
    overlay, out = derived
    (tmp_path / "keep.txt").write_text("mine", encoding="utf-8")
    code = main(["conformance", "derive", "--preset", "riyadh", "--out", str(tmp_path)])
    assert code == 2 and "--force" in capsys.readouterr().err
    assert (tmp_path / "keep.txt").read_text(encoding="utf-8") == "mine"


def test_derive_under_a_preset_keeps_the_applicable_cases_unchanged():
    """Under saudi-federation every case the dependencies declare applicable is kept as it is."""
    variant = variant_spec("saudi-federation")
    chosen = CASES[::7]
    result = derive_corpus(chosen, variant)
    target = target_of("saudi-federation")
    from baloot_spec.conformance.retarget import knobs_agree
    kept = {c["id"] for cases in result["files"].values() for c in cases if "derived" not in c}
    assert {c.id for c in chosen if knobs_agree(c, target.knobs, ())} <= kept
    assert result["counts"]["derived"] > 0


def test_a_bad_derived_field_is_a_located_case_error(tmp_path):
    case = dict(CASES[0].data, derived={"from": "default"})
    path = tmp_path / "cases" / "x.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"description": "d", "cases": [case]}), encoding="utf-8")
    with pytest.raises(CaseError) as info:
        load_corpus(cases_dir=path.parent)
    assert "derived" in str(info.value)


def test_under_an_overlay_only_the_cases_the_reference_engine_confirms_apply(derived):
    """`run --overlay`: a case applies when its knobs agree and the reference engine confirms its
    expectation under the overlay: the cases derive keeps unchanged, not the re-expected ones."""
    from baloot_spec.conformance.status import NOT_APPLICABLE
    overlay, out = derived
    target = target_of("default", {}, [str(overlay)])
    outcomes = {o.case.id: o for o in run_in_process(CASES, target).outcomes}
    assert {o.status for o in outcomes.values()} == {PASS, NOT_APPLICABLE}
    re_expected = {c.id: c for c in load_corpus(cases_dir=out) if "derived" in c.data}
    applied = {i for i, o in outcomes.items() if o.status == PASS}
    assert len(applied) > 600 and not applied & set(re_expected)
    baloot = [o for i, o in outcomes.items() if i in re_expected and "score.baloot-points" in
              re_expected[i].data["derived"]["rules"]]
    assert baloot and all("answers it differently" in o.message for o in baloot if o.case.data["variant"] == {"preset": "default"})
