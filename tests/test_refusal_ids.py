"""conformance/README.md lists every refusal id, with its meaning and source, generated from the
rules (baloot_spec/conformance/refusals.py): the table is up to date, and it covers every rule
the compiled phases can refuse with and every refusal a `reject` case expects."""

from corpus_cache import corpus

from baloot_spec.conformance.refusals import main, readme_block, refusal_ids, refusal_table
from baloot_spec.resources import conformance_dir
from baloot_spec.rules import load_variant
from baloot_spec.rules.loader import load_presets

README = conformance_dir() / "README.md"


def test_the_readme_table_is_the_generated_one(capsys):
    assert readme_block(README.read_text(encoding="utf-8")) == refusal_table(), \
        "run: python -m baloot_spec.conformance.refusals --write"
    assert main(["--check"]) == 0


def test_every_refusing_rule_of_every_preset_and_every_expected_refusal_is_listed():
    text = readme_block(README.read_text(encoding="utf-8"))
    listed = {r["id"] for r in refusal_ids()}
    for preset in load_presets():
        rules = load_variant(preset, {}, [])
        for phase in rules.phases.values():
            for rule in list(phase.filters) + list(phase.checks):
                assert rule.id in listed and f"| `{rule.id}` |" in text, (preset, rule.id)
    for case in corpus():
        if case.kind == "reject":
            assert case.data["expect"]["reject"] in listed, case.id
    assert all(r["refuses"] and r["source"] for r in refusal_ids())


def test_check_says_when_the_table_is_out_of_date(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "conformance"
    folder.mkdir()
    (folder / "README.md").write_text(README.read_text(encoding="utf-8").replace("| `play.follow-suit` |", "| `x` |"))
    monkeypatch.setattr("baloot_spec.conformance.refusals.conformance_dir", lambda: folder)
    assert main(["--check"]) == 1 and "out of date" in capsys.readouterr().err
    assert main(["--write"]) == 0 and main(["--check"]) == 0
