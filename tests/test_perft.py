"""Every recorded perft count (conformance/perft/) reproduced by the DSL engine and by the
independent oracle; Hand.copy() independence; the `baloot perft` entry point's exit codes."""

import glob
import json
import os
import random

import pytest

from baloot_spec import perft as P
from baloot_spec.cli.perft import run_perft_cli
from baloot_spec.rules import load_variant

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILES = sorted(glob.glob(os.path.join(ROOT, "conformance", "perft", "*", "*.json")))
POSITIONS = [(f, p) for f in FILES for p in json.load(open(f, encoding="utf-8"))["positions"]]
PRESETS = ["default", "nl-rulebook", "saudi-federation", "riyadh", "online-apps"]


def test_every_preset_has_ten_positions_with_counts():
    ids = [p["id"] for _, p in POSITIONS]
    assert len(ids) == len(set(ids))
    for preset in PRESETS:
        mine = [p for _, p in POSITIONS if p["variant"]["preset"] == preset]
        assert len(mine) >= 10, preset
        for p in mine:
            assert p["counts"] and all(isinstance(n, int) for n in p["counts"].values()), p["id"]


@pytest.mark.parametrize("engine", P.ENGINES)
@pytest.mark.parametrize("position", [p for _, p in POSITIONS], ids=[p["id"] for _, p in POSITIONS])
def test_perft_counts(position, engine):
    got = {d: P.count(position, int(d), engine) for d in position["counts"]}
    assert got == position["counts"]


def test_divide_adds_up_to_perft():
    position = next(p for _, p in POSITIONS if p["id"] == "default.play.overtrump")
    for engine in P.ENGINES:
        split = P.count(position, 3, engine, split=True)
        assert sum(split.values()) == position["counts"]["3"]
        assert len(split) == position["counts"]["1"]
    assert P.count(position, 3, "dsl", split=True) == P.count(position, 3, "oracle", split=True)


@pytest.mark.parametrize("engine", P.ENGINES)
def test_a_copy_is_independent_of_its_original(engine):
    rules = load_variant("default")
    rng = random.Random("copy")
    for _ in range(6):
        deck = [c.text for c in rules.deck.cards]
        rng.shuffle(deck)
        setup = {"dealer": rng.choice("NESW"), "deal": {"deck": deck}, "events": []}
        hand = P.dsl_hand({"setup": setup}) if engine == "dsl" else P.oracle_hand({"setup": setup})
        played = []
        while hand.turn() is not None:
            if rng.random() < 0.3:
                before = (hand.turn(), hand.legal(), list(played))
                copy = hand.copy()
                while copy.turn() is not None:                # play the copy out
                    copy.apply(dict(rng.choice(copy.legal()), seat=copy.turn()))
                assert (hand.turn(), hand.legal(), played) == before
                assert copy.result() is not None and hand.result() is None
            event = dict(rng.choice(hand.legal()), seat=hand.turn())
            hand.apply(event)
            played.append(event)


def test_a_copy_has_every_field_of_the_state():
    """Hand.copy() copies the state field by field (State._fields): the list must name every
    slot a state has, and the copy must hold the same values, before and after the play starts."""
    rules = load_variant("default")
    rng = random.Random(5)
    deck = [c.text for c in rules.deck.cards]
    rng.shuffle(deck)
    hand = P.dsl_hand({"setup": {"dealer": "N", "deal": {"deck": deck}, "events": []}})
    while hand.turn() is not None:
        state = hand.state
        assert not hasattr(state, "__dict__")
        assert sorted(type(state).__slots__) == sorted(state._fields + ("_fields",)), hand.phase
        copied = hand.copy().state
        assert type(copied) is type(state)
        assert all(getattr(copied, name) == getattr(state, name) for name in state._fields), hand.phase
        hand.apply(dict(rng.choice(hand.legal()), seat=hand.turn()))


def _write(tmp_path, data, name="p.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_cli_exit_codes(tmp_path, capsys):
    f, position = next((f, p) for f, p in POSITIONS if p["id"] == "default.play.closed")
    assert run_perft_cli(["--position", f, "--id", position["id"], "--depth", "2"]) == 0
    assert run_perft_cli(["--position", _write(tmp_path, position), "--engine", "oracle", "--json"]) == 0
    wrong = dict(position, counts={"2": position["counts"]["2"] + 1})
    assert run_perft_cli(["--position", _write(tmp_path, wrong), "--divide"]) == 1
    assert run_perft_cli(["--position", f]) == 2                       # a file of many: --id needed
    assert run_perft_cli(["--position", str(tmp_path / "missing.json")]) == 2
    bad = dict(position, setup=dict(position["setup"], events=[{"seat": "N", "type": "play", "card": "AS"}]))
    assert run_perft_cli(["--position", _write(tmp_path, bad)]) == 2   # a setup event refused
    assert run_perft_cli(["--position", f, "--depth", "x"]) == 2
    capsys.readouterr()


def test_cli_json_output(tmp_path, capsys):
    position = next(p for _, p in POSITIONS if p["id"] == "riyadh.bidding.round-two")
    path = _write(tmp_path, position)
    capsys.readouterr()
    assert run_perft_cli(["--position", path, "--depth", "2", "--divide", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["nodes"] == position["counts"]["2"] == sum(out["divide"].values())
    assert out["expected"] == position["counts"]["2"] and out["engine"] == "dsl"


def test_cli_variant_options_override_the_file_part_by_part(tmp_path, capsys):
    position = next(p for _, p in POSITIONS if p["id"] == "default.play.partner-led")
    base = P.with_variant_options(position)
    assert base is position                                              # no options: the file's variant
    freed = P.with_variant_options(position, sets={"partner_led_exception": "false"})
    assert freed["variant"] == {"preset": "default", "set": {"partner_led_exception": False}}
    assert position["variant"] == {"preset": "default"}                  # the loaded position is not changed
    depth = max(int(d) for d in position["counts"])
    free_counts = {engine: P.count(freed, depth, engine) for engine in P.ENGINES}
    assert free_counts["dsl"] == free_counts["oracle"] != position["counts"][str(depth)]
    # a file that sets a knob: --preset replaces the preset, the file's knob stays; --set replaces it
    own = dict(position, variant={"preset": "default", "set": {"partner_led_exception": False}})
    assert P.with_variant_options(own, preset="saudi-federation")["variant"] == \
        {"preset": "saudi-federation", "set": {"partner_led_exception": False}}
    assert P.with_variant_options(own, sets={"partner_led_exception": "true", "ekka": "false"})["variant"] == \
        {"preset": "default", "set": {"partner_led_exception": True, "ekka": False}}
    assert P.with_variant_options(own, overlays=[])  is own

    path = _write(tmp_path, position)
    wrong = _write(tmp_path, dict(position, counts={str(depth): position["counts"][str(depth)] + 1}), "wrong.json")
    capsys.readouterr()
    # another variant: the recorded counts are not compared (exit 0 with a count that differs from them)
    for engine in P.ENGINES:
        assert run_perft_cli(["--position", path, "--set", "partner_led_exception=false", "--engine", engine,
                                "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["nodes"] == free_counts["dsl"] and out["expected"] is None
        assert out["variant"] == {"preset": "default", "set": {"partner_led_exception": False}}
    # the same variant given on the command line: still compared
    assert run_perft_cli(["--position", wrong, "--preset", "default"]) == 1
    assert run_perft_cli(["--position", path, "--preset", "default", "--set", "partner_led_exception=true"]) == 0
    assert "(recorded: ok)" in capsys.readouterr().out
    # bad options: usage errors that say what is wrong, no traceback
    for argv, words in ((["--set", "nope=1"], "unknown knob 'nope'"), (["--set", "x"], "KNOB=VALUE"),
                        (["--preset", "nope"], "unknown preset 'nope'"),
                        (["--set", "ekka=maybe"], "ekka"),
                        (["--overlay", "x.yaml", "--engine", "oracle"], "overlay")):
        assert run_perft_cli(["--position", path] + argv) == 2
        err = capsys.readouterr().err
        assert words in err and "Traceback" not in err, (argv, err)
