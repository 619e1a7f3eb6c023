"""Self-check of the independent oracle (tools/oracle): random-simulation invariants and a few
hand-computed scores. Touches nothing but the oracle."""
import os
import random
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools"))
from oracle.oracle import CARD, Hand, Reject, find_projects, match, projects_case, score  # noqa: E402
from oracle.presets import PRESETS  # noqa: E402

DECK = list(CARD)


def play_random(seed, knobs=None):
    rng = random.Random(seed)
    deck = DECK[:]
    rng.shuffle(deck)
    dealer = rng.choice("NESW")
    ms = {"NS": rng.choice([0, 40, 120]), "EW": rng.choice([0, 90, 130])}
    h = Hand(dealer, {"deck": deck}, ms, knobs)
    steps = 0
    while h.turn() is not None:
        acts = h.legal()
        assert acts, "nobody can act in phase %s" % h.phase()
        a = dict(rng.choice(acts))
        a["seat"] = h.turn()
        if a["type"] == "play":
            if steps % 7 == 0:          # a card outside legal() must be refused, state unchanged
                legal = {x["card"] for x in acts}
                held = [c for c in DECK if h.hands[h.cur] >> DECK.index(c) & 1]
                for c in held:
                    if c not in legal:
                        with pytest.raises(Reject):
                            h.apply({"seat": a["seat"], "type": "play", "card": c})
            an = h.announcements(a["card"])
            if an["ekka"]:
                a["ekka"] = True
            if an["baloot"]:
                a["baloot"] = True
            if an["declare"]:
                a["declare"] = an["declare"]
        h.apply(a)
        steps += 1
        assert steps < 120, "the hand does not end"
    return h


@pytest.mark.parametrize("preset", ["default", "nl-rulebook", "saudi-federation", "riyadh", "online-apps"])
def test_random_hands(preset):
    n = 300 if preset == "default" else 60
    played = 0
    for seed in range(n):
        h = play_random(seed * 7 + len(preset), PRESETS[preset])
        r = h.result()
        assert r is not None and h.phase() == "over" and h.legal() == []
        if r["thrown_in"]:
            continue
        played += 1
        assert len(h.tricks) == 8 and all(len(t[1]) == 4 for t in h.tricks)
        cards = [c for t in h.tricks for c in t[1]]
        assert sorted(cards) == sorted(DECK)
        assert sum(r["card_points"].values()) == (130 if h.mode == "sun" else 162)
        assert sum(r["tricks"].values()) == 8
        assert min(r["written"].values()) >= 0
        assert r["kaboot"] == (8 in r["tricks"].values())
        full = 26 if h.mode == "sun" else 16
        if PRESETS[preset].get("other_team_points") == "own":   # nl: each team rounded on its own
            assert sum(r["converted"].values()) in ({24, 26, 28} if h.mode == "sun" else {16, 17})
        else:
            assert sum(r["converted"].values()) == full
        buyers = "NS" if h.buyer % 2 == 0 else "EW"
        if not h.doubling and r["winner"] == buyers and not r["kaboot"]:
            assert r["written"] == r["totals"]
        if h.doubling and not r["kaboot"]:
            assert r["written"][r["winner"]] >= full * 2
        # trick winners lead the next trick
        for a, b in zip(h.tricks, h.tricks[1:]):
            assert b[0] == a[2]
    assert played > n // 2


def test_de_worked_example():
    facts = {"mode": "hokum", "buyer": "E", "doubling": [], "card_points": {"NS": 77, "EW": 85},
             "tricks": {"NS": 4, "EW": 4}, "projects": {"NS": [], "EW": []},
             "baloot": {"NS": False, "EW": False}}
    r = score(facts)
    assert r["counting_team"] == "NS"
    assert r["converted"] == {"NS": 8, "EW": 8}
    assert r["winner"] == "EW"
    assert r["written"] == {"NS": 8, "EW": 8}
    facts["projects"] = {"NS": ["50"], "EW": []}
    r = score(facts)
    assert r["totals"] == {"NS": 13, "EW": 8}
    assert r["winner"] == "NS"
    assert r["written"] == {"NS": 21, "EW": 0}


def test_conversion_tables():
    def conv(mode, x, knobs=None):
        f = {"mode": mode, "buyer": "E", "card_points": {"NS": x, "EW": (130 if mode == "sun" else 162) - x}}
        return score(f, knobs)["converted"]["NS"]
    assert [conv("hokum", x) for x in (55, 56, 65, 66, 75)] == [5, 6, 6, 7, 7]
    assert [conv("sun", x) for x in (56, 64, 65, 66)] == [12, 12, 13, 14]
    assert conv("sun", 65, {"sun_conversion": "half_up"}) == 14
    even = {"sun_conversion": "to_even"}
    assert [conv("sun", x, even) for x in (5, 15, 45, 54, 55, 56, 64, 65, 66, 74, 75, 76, 125)] == \
        [0, 4, 8, 10, 12, 12, 12, 12, 14, 14, 16, 16, 24]
    assert conv("hokum", 65, {"hokum_rounding": "half_up"}) == 7


def test_doubled_and_kaboot():
    f = {"mode": "hokum", "buyer": "E", "doubling": ["double"], "card_points": {"NS": 60, "EW": 102},
         "tricks": {"NS": 3, "EW": 5}, "projects": {"NS": [], "EW": ["50"]}, "baloot": {"NS": True, "EW": False}}
    r = score(f)
    assert r["counting_team"] == "EW" and r["winner"] == "EW"
    assert r["written"] == {"NS": 0, "EW": 32 + 10 + 2}
    f = {"mode": "sun", "buyer": "N", "card_points": {"NS": 130, "EW": 0}, "tricks": {"NS": 8, "EW": 0},
         "projects": {"NS": ["sira"], "EW": []}}
    r = score(f)
    assert r["kaboot"] and r["written"] == {"NS": 48, "EW": 0}


def test_projects():
    assert find_projects(["AH", "KH", "QH", "JH", "TH", "9H", "8H", "7H"], "hokum", "S") == [
        {"name": "100", "cards": ["AH", "KH", "QH", "JH", "TH"]},
        {"name": "sira", "cards": ["9H", "8H", "7H"]}]
    assert find_projects(["KS", "KH", "KD", "KC", "QH", "JH", "7C", "8D"], "sun", None) == [
        {"name": "100", "cards": ["KS", "KH", "KD", "KC"]}]
    assert find_projects(["AS", "AH", "AD", "AC", "9S", "9H", "9D", "9C"], "sun", None) == [
        {"name": "400", "cards": ["AS", "AH", "AD", "AC"]}]
    assert find_projects(["9S", "9H", "9D", "9C", "7S", "7H", "7D", "7C"], "hokum", "S") == []
    r = projects_case({"dealer": "N", "mode": "hokum", "trump": "H",
                       "hands": {"W": ["AS", "KS", "QS", "7H", "8D", "9C", "7C", "8C"],
                                 "S": ["KH", "QH", "JH", "TH", "7D", "9D", "TC", "JC"],
                                 "E": ["AD", "KD", "QD", "JD", "TD", "AC", "KC", "QC"],
                                 "N": ["AH", "9H", "8H", "TS", "JS", "9S", "8S", "7S"]}})
    assert r["credited_team"] == "EW" and r["credited"] == {"NS": 0, "EW": 16}
    assert r["baloot"] == "S"


def test_match():
    assert match({"NS": 140, "EW": 100}, [{"written": {"NS": 8, "EW": 8}}, {"written": {"NS": 16, "EW": 0}}]) == \
        {"winner": "NS", "scores": {"NS": 164, "EW": 108}, "ended_after": 2}
    assert match({"NS": 0, "EW": 0}, [{"written": {"NS": 0, "EW": 64}, "gahwa": "EW"}])["ended_after"] == 1
    assert match({"NS": 150, "EW": 150}, [{"written": {"NS": 8, "EW": 8}}])["winner"] is None
