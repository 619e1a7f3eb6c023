"""`baloot conformance fingerprint` (issue 23, items 1 and 4): the built-in adapter playing one
variant is fingerprinted exactly (each preset, a few random knob combinations), a planted
departure no knob describes is "none of them", an engine that skips everything is "not testable".

The full-corpus exactness check is tools/fingerprint_check.py (conformance/ENGINES.md); to stay
fast, these run on a slice of the corpus: the score cases (the scoring knobs) and the witnesses
of the two knobs that tell online-apps and riyadh from default.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from baloot_spec.conformance.corpus import load_corpus
from baloot_spec.conformance.fingerprint import (MATCHED, NONE_OF_THEM, NOT_TESTABLE, Reference, _share_preset_answers,
                                                  fingerprint, preset_knobs, to_markdown)
from baloot_spec.conformance.fingerprint_ask import Asked
from baloot_spec.conformance.drive import score_facts_of

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import fingerprint_check  # noqa: E402

ENGINES = ROOT / "tests" / "data" / "fingerprint_engines.py"
PLANTED = "scoring.conversion.014"     # depends on sun_conversion only (conformance/dependencies.json)


@pytest.fixture(scope="module")
def slice_cases():
    cases = load_corpus()
    telling = {"first_lead": 3, "ashkal_round_two": 3}
    out = []
    for case in cases:
        depends = case.depends_on or ()
        if case.kind == "score":
            out.append(case)
            continue
        for knob, left in telling.items():
            if left and knob in depends and case.kind == "legal":
                out.append(case)
                telling[knob] -= 1
                break
    return out


@pytest.fixture(scope="module")
def reference():
    return Reference(keep=24)


def _check(engine, slice_cases, reference):
    fp = fingerprint(fingerprint_check.command_of(engine), timeout=60, cases=slice_cases, reference=reference)
    return fp, fingerprint_check.judge(engine, fp)


@pytest.mark.parametrize("preset", ["default", "nl-rulebook", "online-apps", "riyadh", "saudi-federation"])
def test_each_preset_is_named(preset, slice_cases, reference):
    engine = next(e for e in fingerprint_check.engines(0, 1) if e["preset"] == preset)
    fp, verdict = _check(engine, slice_cases, reference)
    assert verdict["exact"], verdict["wrong"]
    assert fp["variant"]["line"] == f"--preset {preset}"
    assert fp["format"] == "baloot-fingerprint/1"
    # the knobs the slice tells apart are recovered, not merely "not testable"
    assert fp["knobs"]["sun_conversion"]["status"] == MATCHED
    assert fp["knobs"]["sun_conversion"]["value"] == engine["knobs"]["sun_conversion"]


def test_random_combinations_are_exact(slice_cases, reference):
    for engine in fingerprint_check.engines(2, 7)[-2:]:
        fp, verdict = _check(engine, slice_cases, reference)
        assert verdict["exact"], (engine["name"], verdict["wrong"])
        matched = [k for k, v in fp["knobs"].items() if v["status"] == MATCHED]
        assert {"hokum_rounding", "sun_conversion", "project_multiplier"} <= set(matched), fp["knobs"]


def test_a_case_that_needs_two_knobs_changed_together(slice_cases, reference):
    """bidding.ashkal.022 (the dealer's Ashkal after three passes, then the first lead) depends on
    ashkal_requires and first_lead: from saudi-federation (hokum_bid: the Ashkal is refused) no
    single change makes it agree with an engine playing all_passed and buyer, and neither knob is
    free (022 is each one's only witness here). The search must try the two knobs the case depends
    on changed together (the method before issue 23's fix reported ashkal_requires "none of them")."""
    sets = {"first_lead": "buyer", "ashkal_requires": "all_passed"}
    knobs = dict(next(e for e in fingerprint_check.engines(0, 1) if e["preset"] == "saudi-federation")["knobs"], **sets)
    engine = {"name": "two knobs", "preset": "saudi-federation", "set": sets, "knobs": knobs}
    cases = [c for c in slice_cases if c.kind == "score" or c.id == "bidding.ashkal.022"]
    fp, verdict = _check(engine, cases, reference)
    assert fp["search"]["start"] == "saudi-federation"
    assert verdict["exact"], verdict["wrong"]
    for knob, value in sets.items():
        assert fp["knobs"][knob]["status"] == MATCHED and fp["knobs"][knob]["value"] == value
        assert "bidding.ashkal.022" in fp["knobs"][knob]["witnesses"]


def test_preset_answers_shared_are_the_full_runs(slice_cases):
    """A case is run once for the presets that agree with its own variant on the knobs it depends
    on (dependencies.json is closed over the presets): every answer filled in that way is the
    answer of a run under that preset."""
    asked = Asked({}, {}, {c.id: None for c in slice_cases}, {}, {}, {})
    shared = Reference()
    _share_preset_answers(preset_knobs(), slice_cases, asked, shared)
    full = Reference()
    by_id = {c.id: c for c in slice_cases}
    filled = [(by_id[case_id], dict(zip(full.names, key)), got) for (case_id, _form, key), got in shared.memo.items()]
    assert len(filled) > 2 * len(slice_cases)       # (most cases are shared by several presets)
    wrong = [case.id for case, knobs, got in filled if full.answer(case, knobs) != got]
    assert not wrong


def test_a_planted_departure_is_none_of_them(tmp_path, slice_cases, reference):
    case = next(c for c in slice_cases if c.id == PLANTED)
    planted = score_facts_of(case.data["setup"])
    same = [c.id for c in slice_cases if c.kind == "score" and score_facts_of(c.data["setup"]) == planted]
    assert PLANTED in same      # (another case asks about the very same facts: it departs too)
    facts = tmp_path / "facts.json"
    facts.write_text(json.dumps(planted))
    fp = fingerprint([sys.executable, str(ENGINES), "plant", str(facts)], cases=slice_cases, reference=reference)
    verdict = fp["knobs"]["sun_conversion"]
    assert verdict["status"] == NONE_OF_THEM
    assert verdict["departures"] == same
    assert [f["id"] for f in fp["run"]["failures"]] == same
    others = {k: v["status"] for k, v in fp["knobs"].items() if k != "sun_conversion"}
    assert NONE_OF_THEM not in others.values(), others
    assert fp["knobs"]["hokum_rounding"] == dict(fp["knobs"]["hokum_rounding"], status=MATCHED, value="half_down")
    assert "none of them" in to_markdown(fp) and PLANTED in to_markdown(fp)


def test_an_engine_that_skips_everything_is_not_testable(slice_cases, reference):
    fp = fingerprint([sys.executable, str(ENGINES), "skip"], cases=slice_cases, reference=reference)
    assert {v["status"] for v in fp["knobs"].values()} == {NOT_TESTABLE}
    assert "answered none" in fp["knobs"]["sun_conversion"]["reason"]
    assert fp["run"] == dict(fp["run"], **{"pass": 0, "fail": 0, "not_answered": len(slice_cases)})


def test_the_command_line(tmp_path):
    json_out, md_out = tmp_path / "fp.json", tmp_path / "fp.md"
    bad = subprocess.run([sys.executable, "-m", "baloot_spec", "conformance", "fingerprint", "--engine",
                          f"{sys.executable} conformance/engines/builtin_adapter.py --preset nope"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "unknown preset 'nope'" in bad.stderr
    adapter = subprocess.run([sys.executable, "conformance/engines/builtin_adapter.py", "--set", "kawesh=maybe"],
                             cwd=ROOT, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert adapter.returncode == 2 and len(adapter.stderr.strip().splitlines()) == 1
    assert json_out.parent.is_dir() and not md_out.exists()


def test_the_fixed_adapter_says_what_it_plays():
    hello = subprocess.run([sys.executable, "conformance/engines/builtin_adapter.py", "--preset", "riyadh", "--set",
                            "kawesh=true"], cwd=ROOT, capture_output=True, text=True, timeout=60,
                           input='{"seq": 1, "cmd": "hello", "protocol": "baloot-protocol/1"}\n')
    answer = json.loads(hello.stdout.splitlines()[0])
    assert answer["plays"]["preset"] == "riyadh" and answer["plays"]["set"] == {"kawesh": True}
    assert answer["presets"] == ["riyadh"] and answer["knobs"] == {"kawesh": [True]}
    assert "audit" not in answer["commands"]


@pytest.fixture(scope="module")
def first_lead_cases():
    """Witnesses of first_lead (each has a position and doubling events), a few of each kind."""
    cases = [c for c in load_corpus() if "first_lead" in (c.depends_on or ())]
    return [c for c in cases if c.id.startswith(("play.first-lead.", "play.knobs.01", "deal.order.01"))]


def test_a_position_another_variant_would_not_reach_rules_nothing_out(first_lead_cases, reference):
    """An engine given positions is told who leads: its answers cannot show first_lead, so a
    reference that refuses the position under first_lead=buyer must not rule buyer out."""
    fp = fingerprint([sys.executable, str(ENGINES), "positions"], cases=first_lead_cases, reference=reference)
    verdict = fp["knobs"]["first_lead"]
    assert verdict["status"] == NOT_TESTABLE, verdict
    assert "buyer" in verdict["reason"] and "position" in verdict["reason"]
    assert fp["run"]["fail"] == 0 and fp["run"]["pass"] == len(first_lead_cases)


def test_events_the_engine_refuses_before_the_position_are_asked_from_it(first_lead_cases, reference):
    """An engine whose doubling refuses our events is asked from the position (as a run asks
    it); its refusal is never taken to agree with another refusal (a play under first_lead=buyer)."""
    fp = fingerprint([sys.executable, str(ENGINES), "no-doubling-events"], cases=first_lead_cases, reference=reference)
    assert fp["run"]["fail"] == 0, fp["run"]["failures"]
    assert set(fp["events_refused"]) == {c.id for c in first_lead_cases}
    assert fp["knobs"]["first_lead"]["status"] == NOT_TESTABLE


def test_two_refusals_agree_only_at_the_same_event():
    from baloot_spec.conformance.fingerprint_ask import Observation
    assert Observation(refused=True, refused_at=3).agrees(Observation(refused=True, refused_at=3))
    assert not Observation(refused=True, refused_at=3).agrees(Observation(refused=True, refused_at=10))
    assert not Observation(keys=(("turn", '"N"'),)).agrees(Observation(moot=True))


def test_a_pair_move_never_trades_one_agreeing_witness_for_another():
    """_explain_by_pairs moves only where no witness of the two knobs stops agreeing: gaining the
    differing case at the price of another witness is no explanation (the count stays level)."""
    from types import SimpleNamespace
    from baloot_spec.conformance.fingerprint import _explain_by_pairs
    from baloot_spec.conformance.fingerprint_ask import Observation

    def obs(value):
        return Observation(keys=(("x", str(value)),))

    c1, c2, c3 = (SimpleNamespace(id=i, depends_on=d) for i, d in (("c1", ("A",)), ("c2", ("A",)), ("c3", ("B",))))
    # the reference's answer per case under (A, B); the engine answers 1 to every case
    table = {"c1": lambda a, b: a and b, "c2": lambda a, b: not (a and b), "c3": lambda a, b: 1}
    ref = SimpleNamespace(names=["A", "B"], values=lambda name, current: [0, 1], refused=lambda knobs: False,
                          answer=lambda c, k, form, entry: obs(int(bool(table[c.id](k["A"], k["B"])))))
    asked = SimpleNamespace(answers={c.id: obs(1) for c in (c1, c2, c3)}, how=lambda c: ("events", None))
    knobs = {"A": 0, "B": 0}
    moved = _explain_by_pairs(knobs, [c1, c2, c3], {"A": [c1, c2], "B": [c3]}, asked, ref, [10])
    assert moved == "" and knobs == {"A": 0, "B": 0}
    table["c2"] = lambda a, b: 1          # now nothing is lost by the move: it is made
    moved = _explain_by_pairs(knobs, [c1, c2, c3], {"A": [c1, c2], "B": [c3]}, asked, ref, [10])
    assert moved == "A=1 and B=1" and knobs == {"A": 1, "B": 1}


def test_a_refused_position_agrees_with_a_variant_that_does_not_reach_it():
    """Random combination 1.2 of tools/fingerprint_check.py: the built-in adapter playing
    closed_after_buyer_raise=open answers `errored` to doubling.closed.011's position (a closed
    Triple its rules never reach). A variant whose reference finds that position moot agrees
    with it; a variant that reaches the position and answers is ruled out; without the engine's
    refusal, moot stays neutral (it neither agrees nor rules out)."""
    from baloot_spec.conformance.fingerprint_ask import Observation
    refused = Observation(error="the engine reported an error: PositionError: ...", position_refused=True)
    crashed = Observation(error="the engine reported an error: KeyError")
    moot, answered = Observation(moot=True), Observation(keys=(("turn", '"S"'),))
    assert refused.agrees(moot) and not refused.neutral(moot)
    assert not refused.agrees(answered)
    assert not crashed.agrees(moot) and crashed.neutral(moot)
    assert not answered.agrees(moot) and answered.neutral(moot)


def test_the_riyadh_example_of_engines_md_is_what_the_command_prints():
    """ENGINES.md "Step 0" shows the command's output on the built-in adapter under riyadh: the
    whole corpus, every knob's value and witnesses, so it is kept in step with the rules and
    the corpus (regenerate the block with the command it shows, stderr left out)."""
    from baloot_spec.conformance.fingerprint_report import console_lines
    text = (ROOT / "conformance" / "ENGINES.md").read_text(encoding="utf-8")
    command = '$ baloot conformance fingerprint --engine "python conformance/engines/builtin_adapter.py --preset riyadh"\n'
    start = text.index(command) + len(command)
    shown = text[start:text.index("```", start)].splitlines()
    fp = fingerprint([sys.executable, str(ROOT / "conformance" / "engines" / "builtin_adapter.py"), "--preset", "riyadh"],
                     timeout=60.0)
    assert shown == console_lines(fp), "conformance/ENGINES.md's riyadh example is stale: run the command it shows"
