"""A broken rules file is a located error and exit 2, never a traceback."""

import pytest

from baloot_spec.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def replace_in(path, old, new):
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_the_shipped_rules_check_clean(capsys):
    code, out, err = run(capsys, "rules", "check")
    assert code == 0, err
    assert "rules ok" in out


def test_syntax_error_in_an_expression(rules_copy, capsys):
    replace_in(rules_copy / "play.yaml", 'only: "card.suit == led_suit"', 'only: "card.suit == == led_suit"')
    code, out, err = run(capsys, "rules", "check")
    assert code == 2
    assert "rules/play.yaml:" in err and "rule play.follow-suit" in err and "syntax error" in err
    assert "^" in err and "Traceback" not in err


def test_unknown_name_points_at_the_name(rules_copy, capsys):
    replace_in(rules_copy / "play.yaml", 'only: "card.suit == led_suit"', 'only: "card.suit == led_sut"')
    code, out, err = run(capsys, "rules", "check")
    assert code == 2
    line = next(l for l in err.splitlines() if "unknown name 'led_sut'" in l)
    location = line.split(": ")[1]
    file, line_no, column = location.rsplit(":", 2)
    assert file.endswith("rules/play.yaml")
    text_line = (rules_copy / "play.yaml").read_text().splitlines()[int(line_no) - 1]
    assert text_line[int(column) - 1:].startswith("led_sut")


def test_unknown_knob_in_a_rule(rules_copy, capsys):
    replace_in(rules_copy / "play.yaml", "param.undertrump == 'forced'", "param.under_trump == 'forced'")
    code, out, err = run(capsys, "rules", "check")
    assert code == 2 and "unknown knob 'param.under_trump'" in err and "play.hokum.undertrump" in err


def test_unknown_knob_in_a_preset(rules_copy, capsys):
    replace_in(rules_copy / "presets" / "riyadh.yaml", "ashkal_round_two: true", "ashkal_round_3: true")
    code, out, err = run(capsys, "rules", "check", "--preset", "riyadh")
    assert code == 2 and "unknown knob 'ashkal_round_3'" in err and "riyadh.yaml:" in err


def test_wrong_knob_value_in_a_preset(rules_copy, capsys):
    replace_in(rules_copy / "presets" / "riyadh.yaml", "ashkal_round_two: true", "ashkal_round_two: sometimes")
    code, out, err = run(capsys, "rules", "check", "--preset", "riyadh")
    assert code == 2 and "bool" in err


def test_duplicate_rule_id(rules_copy, capsys):
    replace_in(rules_copy / "play.yaml", "- id: play.hokum.undertrump", "- id: play.follow-suit")
    code, out, err = run(capsys, "rules", "check")
    assert code == 2 and "duplicate id 'play.follow-suit'" in err and "rules/play.yaml:" in err


def test_duplicate_yaml_key(rules_copy, capsys):
    replace_in(rules_copy / "play.yaml", "    if_possible: true\n", "    if_possible: true\n    if_possible: false\n")
    code, out, err = run(capsys, "rules", "check")
    assert code == 2 and "duplicate key 'if_possible'" in err


def test_not_yaml_at_all(rules_copy, capsys):
    (rules_copy / "play.yaml").write_text("rules: [\n  - id: x\n  : : :\n", encoding="utf-8")
    code, out, err = run(capsys, "rules", "check")
    assert code == 2 and "not valid YAML" in err and "rules/play.yaml:" in err


def test_a_rule_without_a_source_breaks_the_schema(rules_copy, capsys):
    replace_in(rules_copy / "play.yaml", '    source: "choice: the undertrump knob', '    about: "choice: the undertrump knob')
    code, out, err = run(capsys, "rules", "check")
    assert code == 2 and "schema" in err and "play.hokum.undertrump" in err


def test_an_effect_on_an_undeclared_variable(rules_copy, capsys):
    replace_in(rules_copy / "play.yaml", 'baloot_said: "baloot_said + [actor]"', 'baloot_told: "baloot_said + [actor]"')
    code, out, err = run(capsys, "rules", "check")
    assert code == 2 and "not a declared state variable" in err


def test_overlay_naming_a_missing_rule(tmp_path, capsys):
    overlay = tmp_path / "broken.yaml"
    overlay.write_text('overlay: broken\ntitle: x\nsource: "choice: test"\nremove: [play.no-such-rule]\n', encoding="utf-8")
    code, out, err = run(capsys, "rules", "check", "--overlay", str(overlay))
    assert code == 2 and "play.no-such-rule" in err and "broken.yaml" in err


@pytest.mark.parametrize("argv, message", [
    (["rules", "check", "--preset", "nowhere"], "unknown preset 'nowhere'"),
    (["rules", "check", "--set", "first_lead"], "KNOB=VALUE"),
    (["rules", "check", "--set", "first_lead=maybe"], "takes one of"),
    (["rules", "check", "--set", "match_target=lots"], "integer"),
    (["rules", "check", "--overlay", "no-such-overlay"], "unknown overlay"),
])
def test_usage_errors_exit_2(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and message in err


def test_knob_values_that_cannot_be_combined(capsys):
    code, out, err = run(capsys, "rules", "check", "--set", "wrongful_ashkal=forced_sun", "--set", "ace_sun_overcall=dealer_right")
    assert code == 2
    assert "knobs.forced-sun-needs-open-overcall" in err and "rules/params.yaml:" in err
    assert "wrongful_ashkal=forced_sun" in err and "ace_sun_overcall=dealer_right" in err
    assert run(capsys, "rules", "check", "--set", "wrongful_ashkal=forced_sun")[0] == 0


def test_a_constraint_with_an_unknown_knob_is_a_load_error(rules_copy, capsys):
    replace_in(rules_copy / "params.yaml", "require: \"param.ace_sun_overcall == 'anyone'\"",
               "require: \"param.ace_overcall == 'anyone'\"")
    code, out, err = run(capsys, "rules", "check")
    assert code == 2 and "unknown knob 'param.ace_overcall'" in err



def test_an_effect_may_not_change_what_its_phase_fixes(rules_copy, capsys):
    # The play phase fixes mode and trump (its rules are compiled once per contract).
    replace_in(rules_copy / "play.yaml", 'baloot_said: "baloot_said + [actor]"',
               'baloot_said: "baloot_said + [actor]"\n      mode: "\'sun\'"')
    code, out, err = run(capsys, "rules", "check")
    assert code == 2
    assert "rules/play.yaml:" in err and "rule play.record-baloot" in err and "declares fixed" in err


def test_a_phase_can_only_fix_declared_state(rules_copy, capsys):
    replace_in(rules_copy / "play.yaml", "fixed: [mode, trump]", "fixed: [mode, weather]")
    code, out, err = run(capsys, "rules", "check")
    assert code == 2
    assert "rules/play.yaml:" in err and "rule phase.play" in err and "'weather'" in err


def test_a_file_changed_between_two_loads_is_read_again(rules_copy):
    # Checked rules files are kept by their text (a corpus run resolves dozens of variants from
    # the same files): a file edited in between is parsed and checked again, never served stale.
    from baloot_spec.errors import RulesError
    from baloot_spec.rules import resolve_variant
    assert resolve_variant("default").ruleset.files
    play = rules_copy / "play.yaml"
    play.write_text(play.read_text(encoding="utf-8").replace("    source: \"de: Das Spiel — Wer einen Stich", "    sourc: \"de: Das Spiel — Wer einen Stich", 1),
                    encoding="utf-8")
    with pytest.raises(RulesError) as caught:
        resolve_variant("default")
    assert "rules/play.yaml" in str(caught.value)
    schema = rules_copy / "schema" / "variants.schema.json"   # the schema a file is checked against, too
    play.write_text(play.read_text(encoding="utf-8").replace("    sourc: ", "    source: ", 1), encoding="utf-8")
    assert resolve_variant("default").ruleset.files
    schema.write_text(schema.read_text(encoding="utf-8").replace('"knobs"', '"knobz"', 1), encoding="utf-8")
    with pytest.raises(RulesError):
        resolve_variant("default")


@pytest.mark.parametrize("name, reason", [("hands", "a field the engine keeps"), ("hand", "a field the engine keeps"),
                                          ("if", "a reserved word")])
def test_a_state_variable_may_not_take_an_engine_field_or_a_reserved_word(rules_copy, capsys, name, reason):
    replace_in(rules_copy / "projects.yaml", "  declared: {initial: []", f"  {name}: {{initial: 0}}\n  declared: {{initial: []")
    code, out, err = run(capsys, "rules", "check")
    assert code == 2 and f"state {name!r} cannot be declared: it is {reason}" in err
    assert "projects.yaml:" in err and "Traceback" not in err
