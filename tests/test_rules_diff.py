"""`rules diff` between any two variants, the variant syntax, and `rules doc` to standard output."""

import json

import pytest

from baloot_spec.cli import main
from baloot_spec.resources import rules_dir
from baloot_spec.rules.diff import SpecError, VariantSpec, parse_spec


def test_the_variant_syntax():
    assert parse_spec("riyadh") == VariantSpec("riyadh")
    assert parse_spec("preset=riyadh, set=kawesh=true,overlay=a.yaml,overlay=no-gahwa") == \
        VariantSpec("riyadh", {"kawesh": "true"}, ["a.yaml", "no-gahwa"])
    assert parse_spec("nl-rulebook,set=match_target=151") == VariantSpec("nl-rulebook", {"match_target": "151"})
    for bad, words in (("preset=a,preset=b", "two presets"), ("set=kawesh", "KNOB=VALUE"),
                       ("overlays=x", "did you mean 'overlay'?"), ("riyadh,kawesh", "not KEY=VALUE")):
        with pytest.raises(SpecError, match=words):
            parse_spec(bad)


def _diff(argv, capsys) -> dict:
    assert main(["rules", "diff", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_house_variant_against_default(capsys):
    diff = _diff(["default", "--against", "preset=riyadh,set=kawesh=true,overlay=no-gahwa"], capsys)
    assert [k["knob"] for k in diff["knobs"]] == ["ashkal_round_two", "kawesh"]
    assert diff["knobs"][1]["a"] is False and diff["knobs"][1]["b"] is True and "Kawesh" in diff["knobs"][1]["source b"]
    rules = {r["id"]: r for r in diff["rules"]}
    assert set(rules) == {"doubling.gahwa", "fn.next-step"}
    assert rules["doubling.gahwa"]["difference"] == "only in a" and rules["doubling.gahwa"]["section"] == "effects"
    assert rules["fn.next-step"]["difference"] == "changed" and "expr" in rules["fn.next-step"]["fields"]
    assert "no-gahwa" in rules["fn.next-step"]["source b"] and "Verdoppeln" in rules["fn.next-step"]["source a"]
    assert diff["b"]["overlays"] == ["no-gahwa"] and diff["a"]["hash"] != diff["b"]["hash"]


def test_the_sides_from_options(capsys):
    mine = _diff(["--overlay", "no-trump-opening"], capsys)   # default against yours
    assert mine["a"]["label"] == "default" and mine["b"]["overlays"] == ["no-trump-opening"]
    assert [(r["id"], r["difference"]) for r in mine["rules"]] == [("play.house.no-trump-opening", "only in b")]
    flipped = _diff(["--overlay", "no-trump-opening", "--against", "default"], capsys)
    assert flipped["a"]["overlays"] == ["no-trump-opening"] and flipped["rules"][0]["difference"] == "only in a"
    assert _diff(["default", "riyadh"], capsys)["knobs"][0]["knob"] == "ashkal_round_two"
    assert _diff(["nl-rulebook", "nl-rulebook"], capsys)["knobs"] == []


@pytest.mark.parametrize("argv, words", [
    (["default", "riyadh", "--against", "riyadh"], "not both"),
    (["default", "riyadh", "--overlay", "no-gahwa"], "a third"),
    (["default", "--against", "prest=riyadh"], "did you mean 'preset'?"),
    (["default", "--against", "riyad"], "did you mean 'riyadh'?"),
])
def test_diff_usage_errors(argv, words, capsys):
    assert main(["rules", "diff", *argv]) == 2
    assert words in capsys.readouterr().err


def test_rules_doc_prints_and_writes_nothing_unless_told(tmp_path, capsys):
    committed = rules_dir() / "VARIANTS.md"
    before = committed.stat().st_mtime_ns
    assert main(["rules", "doc"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Variants") and committed.stat().st_mtime_ns == before
    assert main(["rules", "doc", "--check"]) == 0
    target = tmp_path / "v.md"
    assert main(["rules", "doc", "--out", str(target)]) == 0 and target.read_text(encoding="utf-8") == out
    target.write_text("stale", encoding="utf-8")
    assert main(["rules", "doc", "--check", "--out", str(target)]) == 1
    assert target.read_text(encoding="utf-8") == "stale"
