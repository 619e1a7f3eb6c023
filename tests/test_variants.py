"""Changing a knob or an overlay (YAML, not Python) changes what is legal."""

import pytest

from baloot_spec.engine.hand import Hand
from baloot_spec.rules import load_variant

# Dealer N; W buys Hokum in hearts (the public 7H) and leads the King of spades; S follows low.
# E, W's partner, has no spades: W is winning with a led card that is neither Ace nor Ekka.
DEAL = {"hands": {"W": ["JH", "9H", "AS", "KS", "QS", "7H", "8C", "7C"],
                  "S": ["AH", "TH", "AC", "KC", "QC", "JS", "TS", "9S"],
                  "E": ["KH", "QH", "AD", "KD", "QD", "JD", "TD", "9D"],
                  "N": ["8H", "TC", "JC", "9C", "8D", "7D", "8S", "7S"]}, "public": "7H"}
EVENTS = [("W", "bid", "call", "hokum"), ("S", "bid", "call", "pass"), ("E", "bid", "call", "pass"),
          ("N", "bid", "call", "pass"), ("W", "bid", "call", "pass"),   # W, asked last on his own Hokum (hokum_bidder_sun)
          ("S", "double", "call", "pass"), ("N", "double", "call", "pass"),
          ("W", "play", "card", "KS"), ("S", "play", "card", "9S")]
E_HAND = {"KH", "QH", "AD", "KD", "QD", "JD", "TD", "9D"}


def legal_for_e(rules):
    hand = Hand(rules, "N", DEAL)
    for seat, kind, key, value in EVENTS:
        hand.apply({"seat": seat, "type": kind, key: value})
    assert hand.turn() == "E"
    return {a["card"] for a in hand.legal()}


def test_default_partner_led_exception_forces_a_trump():
    # de: Das Spiel, Hokum 3: partner led a King (no Ace, no Ekka): E must still trump.
    assert legal_for_e(load_variant("default")) == {"KH", "QH"}


def test_the_knob_frees_the_partner():
    rules = load_variant("default", {"partner_led_exception": "false"})
    assert legal_for_e(rules) == E_HAND


def test_an_overlay_removing_the_rule_frees_the_partner(tmp_path):
    overlay = tmp_path / "no-exception.yaml"
    overlay.write_text("overlay: no-exception\ntitle: Free whenever partner is winning\n"
                       "source: \"smsf: Play — If your partner is winning the trick you are not forced to trump.\"\n"
                       "remove: [play.hokum.partner-led-exception]\n", encoding="utf-8")
    rules = load_variant("default", {}, [str(overlay)])
    assert legal_for_e(rules) == E_HAND
    assert rules.variant.overlays == ["no-exception"]


def test_an_overlay_replacing_a_rule_changes_the_refusal(tmp_path):
    overlay = tmp_path / "must-win.yaml"
    overlay.write_text(
        "overlay: must-win\ntitle: Partner must even win\nsource: \"choice: test overlay\"\n"
        "replace:\n"
        "  - id: play.hokum.partner-led-exception\n"
        "    phase: play\n"
        "    when: \"side_suit_led and void_in_led and partner_winning\"\n"
        "    only: \"is_trump(card) and card.rank == 'K'\"\n"
        "    if_possible: true\n"
        "    source: \"choice: test overlay\"\n", encoding="utf-8")
    assert legal_for_e(load_variant("default", {}, [str(overlay)])) == {"KH"}


def test_presets_resolve_with_distinct_hashes():
    hashes = {name: load_variant(name).hash for name in ("default", "nl-rulebook", "saudi-federation", "riyadh", "online-apps")}
    assert len(set(hashes.values())) == len(hashes)
    assert load_variant("default").hash == load_variant("default", {"first_lead": "dealer_right"}).hash


def test_a_preset_extends_its_parent():
    saudi = load_variant("saudi-federation").variant
    assert saudi.knobs["hundred_rank"] == "sequence_first"
    assert saudi.knobs["first_lead"] == "dealer_right"  # inherited from default (de)


def test_a_new_preset_needs_only_yaml(tmp_path):
    (tmp_path / "family.yaml").write_text(
        "preset: family\ntitle: Our family rules\nextends: riyadh\nsources: [\"choice: a family convention\"]\n"
        "set: {first_lead: buyer, kawesh: true}\n", encoding="utf-8")
    variant = load_variant("family", preset_dirs=(tmp_path,)).variant
    assert variant.knobs["ashkal_round_two"] is True and variant.knobs["first_lead"] == "buyer"


def test_variants_md_is_up_to_date():
    from baloot_spec.resources import rules_dir
    from baloot_spec.rules.docs import variants_markdown
    committed = (rules_dir() / "VARIANTS.md").read_text(encoding="utf-8")
    assert committed == variants_markdown(), "rules/VARIANTS.md is out of date: run `baloot rules doc`"


def test_rules_diff_lists_knobs_with_sources():
    from baloot_spec.rules.docs import diff_variants
    diff = diff_variants("default", "riyadh")
    assert [k["knob"] for k in diff["knobs"]] == ["ashkal_round_two"]
    assert "zweiten Runde" in diff["knobs"][0]["source riyadh"]
    assert diff["rules"] == []
    assert diff_variants("nl-rulebook", "nl-rulebook")["knobs"] == []


def test_rules_diff_sees_overlay_rules(tmp_path):
    from baloot_spec.rules.docs import diff_variants
    presets = tmp_path / "presets"
    presets.mkdir()
    overlay = tmp_path / "no-undertrump.yaml"
    overlay.write_text('overlay: no-undertrump\ntitle: x\nsource: "choice: test"\nremove: [play.hokum.undertrump]\n', encoding="utf-8")
    (presets / "lenient.yaml").write_text(
        f"preset: lenient\ntitle: x\nsources: [\"choice: test\"]\noverlays: [{overlay}]\n", encoding="utf-8")
    diff = diff_variants("default", "lenient", preset_dirs=(presets,))
    assert diff["knobs"] == []
    assert diff["rules"] == [{"id": "play.hokum.undertrump", "difference": "only in default",
                              "source": "choice: the undertrump knob — several apps force a trump when you cannot over-trump (shared/rulebooks README)"}]


def test_the_disk_cache_is_keyed_by_the_rules_content(rules_copy, tmp_path, monkeypatch):
    import json
    import subprocess
    import sys
    env = dict(__import__("os").environ, BALOOT_CACHE_DIR=str(tmp_path / "cache"), BALOOT_RULES_DIR=str(rules_copy))
    code = ("import json; from baloot_spec.rules import load_variant; r = load_variant('riyadh'); "
            "print(json.dumps(r.variant.describe()))")
    run = lambda: json.loads(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout)
    first, second = run(), run()
    assert first == second and first["params"]["ashkal_round_two"] is True
    assert any((tmp_path / "cache").glob("*-variant-*.pickle"))
    preset = rules_copy / "presets" / "riyadh.yaml"
    preset.write_text(preset.read_text().replace("ashkal_round_two: true", "ashkal_round_two: true\n  kawesh: true"))
    edited = run()
    assert edited["params"]["kawesh"] is True and edited["hash"] != first["hash"]


def test_a_new_knob_value_needs_only_yaml(rules_copy, tmp_path, monkeypatch):
    # A house rule "the dealer leads the first trick": one value in params.yaml, one expression
    # in play.yaml, no Python. W buys (see DEAL); N deals, so N leads instead of W.
    monkeypatch.setenv("BALOOT_CACHE_DIR", str(tmp_path / "cache"))
    params = rules_copy / "params.yaml"
    params.write_text(params.read_text(encoding="utf-8").replace(
        "      buyer: {doc: \"The buyer leads the first trick.\"",
        "      dealer: {doc: \"The dealer leads the first trick.\", source: \"choice: a house rule (test)\"}\n"
        "      buyer: {doc: \"The buyer leads the first trick.\"", 1), encoding="utf-8")
    play = rules_copy / "play.yaml"
    play.write_text(play.read_text(encoding="utf-8").replace(
        "leader: \"at(1) if param.first_lead == 'dealer_right' else buyer\"",
        "leader: \"at(1) if param.first_lead == 'dealer_right' else (dealer if param.first_lead == 'dealer' else buyer)\"", 1),
        encoding="utf-8")
    rules = load_variant("default", {"first_lead": "dealer"})
    hand = Hand(rules, "N", DEAL)
    for seat, kind, key, value in EVENTS[:6]:
        hand.apply({"seat": seat, "type": kind, key: value})
    assert hand.turn() == "N"
    assert load_variant("default", {"first_lead": "buyer"}).hash != rules.hash


def test_a_phase_specialised_on_its_fixed_state_plays_like_the_generic_one(rules_copy, tmp_path, monkeypatch):
    # The same random hands (announcements included), replayed under the rules as shipped (play
    # specialised per contract) and under a copy without `fixed`: same legal sets, same results.
    import random
    from baloot_spec.engine.random_play import play_random_hand
    monkeypatch.setenv("BALOOT_CACHE_DIR", str(tmp_path / "cache"))
    play = rules_copy / "play.yaml"
    play.write_text(play.read_text(encoding="utf-8").replace("    fixed: [mode, trump]\n", "", 1), encoding="utf-8")
    generic = load_variant("nl-rulebook")          # from the edited copy
    monkeypatch.delenv("BALOOT_RULES_DIR")
    shipped = load_variant("nl-rulebook")          # from rules/ as shipped
    hands = [play_random_hand(shipped, random.Random(f"fixed:{i}"), "NWSE"[i % 4]) for i in range(150)]
    assert not generic.phases["play"].fixed and shipped.phases["play"].fixed == ("mode", "trump")
    contracts = set()
    for played in hands:
        replay = Hand(generic, played.state.dealer, played.deal_spec)
        again = Hand(shipped, played.state.dealer, played.deal_spec)
        for event in played.events:
            assert replay.legal() == again.legal()
            replay.apply(event)
            again.apply(event)
        assert replay.result() == again.result()
        contracts.add((again.state.mode, again.state.trump))
    assert {mode for mode, _ in contracts} >= {"sun", "hokum"}


def test_a_specialised_phase_is_found_again_in_the_disk_cache(tmp_path, monkeypatch):
    # Its generated code is kept by the source it was made from: a second compile of the variant
    # reads it back (the same code), and a damaged entry is only a miss.
    from baloot_spec.rules import resolve_variant
    from baloot_spec.rules.compile import compile_variant
    monkeypatch.setenv("BALOOT_CACHE_DIR", str(tmp_path))
    variant = resolve_variant("default", {}, [])
    made = compile_variant(variant).specialized("play", ("hokum", "S"))
    entries = list(tmp_path.glob("*-phase-*"))
    assert len(entries) == 1
    stored = entries[0].stat().st_ino
    found = compile_variant(variant).specialized("play", ("hokum", "S"))
    assert found.narrow.__code__.co_code == made.narrow.__code__.co_code
    assert entries[0].stat().st_ino == stored          # read, not written again
    entries[0].write_bytes(b"not a pickle")
    again = compile_variant(variant).specialized("play", ("hokum", "S"))
    assert again.narrow.__code__.co_code == made.narrow.__code__.co_code
    assert [p.name for p in tmp_path.glob("*-phase-*")] == [entries[0].name]
    assert entries[0].read_bytes() != b"not a pickle"   # made again and stored


def test_a_variants_compiled_module_is_found_again_in_the_disk_cache(tmp_path, monkeypatch):
    # The generated module's code is kept by its source: read back on the second compile (the
    # entry is not written again), and a damaged entry is only a miss.
    from baloot_spec.rules import resolve_variant
    from baloot_spec.rules.compile import compile_variant
    monkeypatch.setenv("BALOOT_CACHE_DIR", str(tmp_path))
    variant = resolve_variant("default", {}, [])
    made = compile_variant(variant)
    entries = list(tmp_path.glob("*-module-*"))
    assert len(entries) == 1
    stored = entries[0].stat().st_ino
    found = compile_variant(variant)
    assert entries[0].stat().st_ino == stored
    assert found.functions["led_suit"].__code__.co_code == made.functions["led_suit"].__code__.co_code
    entries[0].write_bytes(b"not a pickle")
    again = compile_variant(variant)
    assert again.phases["play"].narrow.__code__.co_code == made.phases["play"].narrow.__code__.co_code
    assert entries[0].read_bytes() != b"not a pickle"


def _fresh_process(monkeypatch):
    """Forget the variants this process compiled, as a new process would not have them."""
    import baloot_spec.rules as rules_package
    monkeypatch.setattr(rules_package, "_CACHE", {})
    monkeypatch.setattr(rules_package, "_REQUESTS", {})


def _played(rules, count=40):
    """Seeded random hands under `rules`: each hand's events and result."""
    import random
    from baloot_spec.engine.random_play import play_random_hand
    hands = [play_random_hand(rules, random.Random(f"plan:{i}"), "NWSE"[i % 4]) for i in range(count)]
    return [(hand.events, hand.result()) for hand in hands]


def test_a_compiled_variant_is_read_back_from_its_plan(tmp_path, monkeypatch):
    # A later process reads what the engine needs (the plan) and the module's code back from the
    # disk cache instead of compiling: the same source, the same rules, the same games.
    monkeypatch.setenv("BALOOT_CACHE_DIR", str(tmp_path))
    _fresh_process(monkeypatch)
    made = load_variant("riyadh")
    expected = _played(made)                  # (its contracts' specialised phases are cached too)
    assert len(list(tmp_path.glob("*-plan-*"))) == 1
    _fresh_process(monkeypatch)
    import baloot_spec.rules.compile as compiler
    monkeypatch.setattr(compiler, "compile_variant", lambda *a, **k: pytest.fail("compiled again"))
    found = load_variant("riyadh")
    assert found is not made and found.python_source == made.python_source
    assert found.hash == made.hash and list(found.rules_by_id) == list(made.rules_by_id)
    assert found.rules_by_id["play.follow-suit"].source == made.rules_by_id["play.follow-suit"].source
    assert _played(found) == expected


def test_a_damaged_plan_is_compiled_again(tmp_path, monkeypatch):
    monkeypatch.setenv("BALOOT_CACHE_DIR", str(tmp_path))
    _fresh_process(monkeypatch)
    made = load_variant("default")
    (entry,) = tmp_path.glob("*-plan-*")
    entry.write_bytes(b"not a pickle")
    _fresh_process(monkeypatch)
    again = load_variant("default")
    assert again.python_source == made.python_source
    assert entry.read_bytes() != b"not a pickle"       # made again and stored
    assert _played(again, 10) == _played(made, 10)


def test_a_plan_without_its_specialised_phases_makes_them(tmp_path, monkeypatch):
    # The plan holds no parse trees: a contract's specialised play phase that is not in the
    # cache either is generated by compiling the variant in full, once.
    monkeypatch.setenv("BALOOT_CACHE_DIR", str(tmp_path))
    _fresh_process(monkeypatch)
    made = load_variant("default")
    expected = _played(made)
    for entry in tmp_path.glob("*-phase-*"):
        entry.unlink()
    _fresh_process(monkeypatch)
    import baloot_spec.rules as rules_package
    builds = []
    real = rules_package.compile_variant
    monkeypatch.setattr(rules_package, "compile_variant", lambda *a, **k: builds.append(1) or real(*a, **k))
    found = load_variant("default")
    assert builds == []
    assert _played(found) == expected
    assert builds == [1] and list(tmp_path.glob("*-phase-*"))


def test_a_cached_variant_loads_without_the_compiler_or_lark(tmp_path):
    import os
    import subprocess
    import sys
    env = dict(os.environ, BALOOT_CACHE_DIR=str(tmp_path))
    code = ("import sys; from baloot_spec.rules import load_variant; load_variant('default'); "
            "print(sorted(m for m in ('lark', 'yaml', 'baloot_spec.rules.compile') if m in sys.modules))")
    run = lambda: subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout.strip()
    assert run() == "['baloot_spec.rules.compile', 'lark', 'yaml']"   # the first compiles
    assert run() == "[]"
