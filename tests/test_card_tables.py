"""Per-card tables (baloot_spec/rules/passes/card_tables.py): a call of a rule function of one
card that reads only the card, constants, knobs and the contract a phase is specialised on is a
lookup in a table of the deck, built when the generated module loads. Fixtures: the default
rules' own functions (game.yaml, play.yaml), their specialised modules, and hand-made bodies."""

import ast

import pytest

from baloot_spec.cards import Card
from baloot_spec.expr import tree as t
from baloot_spec.expr.builtins import Rec, card_table, keyed_card_table
from baloot_spec.expr.resolve import check as check_expression
from baloot_spec.rules.compile import _VariantCompiler
from baloot_spec.rules.compiled import instantiate
from baloot_spec.rules.loader import resolve_variant
from baloot_spec.rules.passes.card_tables import card_inputs, cheap, reads_only_card
from baloot_spec.rules.passes.domains import cannot_fail, key_domain, values_of

HOKUM_HEARTS = {"mode": "hokum", "trump": "H"}
SUN = {"mode": "sun", "trump": None}


@pytest.fixture(scope="module")
def compiled():
    compiler = _VariantCompiler(resolve_variant("default"))
    for stage in (compiler.functions, compiler.phases, compiler.rules, compiler.effects, compiler.scoring,
                  compiler.fuse):
        stage()
    _rules, namespace = instantiate(compiler.variant, compiler.plan())
    return compiler, namespace


def _specialised(compiled, phase: str, values: tuple):
    """(the specialised module's namespace, its source) for `phase` under `values`."""
    compiler, namespace = compiled
    captured = []
    from baloot_spec.rules import module
    original = module.ModuleBuilder.source
    module.ModuleBuilder.source = lambda self: captured.append(original(self)) or captured[-1]
    try:
        _names, code = compiler.specialized_code(phase, values)
    finally:
        module.ModuleBuilder.source = original
    space = dict(namespace)
    exec(code, space)
    return space, captured[-1]


@pytest.mark.parametrize("function, fixed, expected", [
    ("strength", HOKUM_HEARTS, True),    # the card, const.trump_order, and is_trump: mode and trump
    ("strength", None, False),           # unspecialised: mode and trump are state
    ("card_points", SUN, True),
    ("is_trump", HOKUM_HEARTS, True),    # (tabulable, but cheap: see below)
    ("trick_rank", HOKUM_HEARTS, False),  # reads led_suit, a derived value of the trick
    ("beats", HOKUM_HEARTS, False),      # two cards
    ("no_such_function", HOKUM_HEARTS, False),
])
def test_which_functions_read_only_the_card(compiled, function, fixed, expected):
    compiler, _ = compiled
    assert reads_only_card(function, compiler.scopes.hand(), fixed) is expected


@pytest.mark.parametrize("body, is_cheap", [
    ("v_card.suit == 'H'", True),
    ("False", True),
    ("8 - k__ix_plain_order.get(v_card.rank, -1)", False),
    ("k_plain_points[v_card.rank]", False),
    ("1 if v_card.suit == 'H' else 0", False),
])
def test_a_body_as_cheap_as_a_lookup_stays_inline(body, is_cheap):
    assert cheap(ast.parse(body, mode="eval").body) is is_cheap


def test_the_specialised_play_reads_strength_from_a_table_and_is_trump_inline(compiled):
    space, source = _specialised(compiled, "play", ("hokum", "H"))
    assert "k__card_strength[" in source and "def t_card_strength(v_card)" in source
    assert "k__card_is_trump" not in source   # `c.suit == 'H'`: one comparison
    assert len(space["k__card_strength"]) == 32 and type(space["k__card_strength"]) is dict


def test_the_unspecialised_module_has_no_tables(compiled):
    compiler, _ = compiled
    assert "k__card_" not in compiler.builder.source()


def test_trumps_jack_and_nine_are_the_strongest(compiled):
    # de, "Die Karten": "im Trumpf springen Bube und 9 nach oben"; "Hokum mit Bube oder 9 in
    # Trumpf. Das sind die beiden höchsten Trümpfe". So in a Hokum in hearts the two strongest
    # hearts are the jack and the nine; in spades (no trump) neither is among the two strongest.
    space, _ = _specialised(compiled, "play", ("hokum", "H"))
    table = space["k__card_strength"]
    hearts = sorted("AKQJT987", key=lambda rank: -table[Card(rank, "H")])
    spades = sorted("AKQJT987", key=lambda rank: -table[Card(rank, "S")])
    assert set(hearts[:2]) == {"J", "9"}
    assert not set(spades[:2]) & {"J", "9"}


@pytest.mark.parametrize("values, worth", [(("hokum", "H"), 162), (("sun", None), 130)])
def test_the_card_points_table_adds_up_to_the_game(compiled, values, worth):
    # de, "Die Karten": "Wer den letzten Stich macht, bekommt 10 Augen extra. Jedes Spiel ist also
    # 162 Augen wert in Hokum und 130 in Sun." The cards alone: 152 in a Hokum, 120 in a Sun.
    space, source = _specialised(compiled, "score", values)
    assert "k__card_card_points[" in source
    assert sum(space["k__card_card_points"].values()) == worth - 10


@pytest.mark.parametrize("values", [("hokum", "H"), ("hokum", "S"), ("sun", None)])
def test_each_table_is_the_function_on_every_card(compiled, values):
    """The table against the unspecialised function, which reads the contract from the state."""
    space, _ = _specialised(compiled, "play", values)
    _, namespace = compiled

    class State:
        mode, trump, _memo = values[0], values[1], {}

    for card in namespace["k__deck"]:
        assert space["k__card_strength"][card] == namespace["f_strength"](State, card)


def test_a_card_whose_value_raises_raises_where_it_is_read():
    def value(card):
        if card.rank == "7":
            raise KeyError(card.rank)
        return len(card.rank)

    deck = [Card("A", "H"), Card("7", "H")]
    table = card_table(value, deck)
    assert table[Card("A", "H")] == 1
    with pytest.raises(KeyError):
        table[Card("7", "H")]
    assert type(card_table(len, ["ab", "c"])) is dict   # every value known: a plain dict


# Tables keyed by a derived value as well as the card (rules/passes/domains.py) ----------------

def test_trick_rank_is_keyed_by_the_led_suit(compiled):
    compiler, _ = compiled
    scope = compiler.scopes.hand()
    assert card_inputs("trick_rank", scope, HOKUM_HEARTS) == frozenset({"led_suit"})
    assert card_inputs("strength", scope, HOKUM_HEARTS) == frozenset()
    assert card_inputs("trick_rank", scope, None) is None   # (unspecialised: mode and trump are state)
    # led_suit: `trick[0].card.suit if len(trick) > 0 else none`: a suit of the deck, or none
    assert key_domain("led_suit", scope) == (True, (None,))
    assert key_domain("winning_rank", scope) is None   # (a max over a list: no known few values)


@pytest.mark.parametrize("text, safe", [
    ("trick[0].card.suit if len(trick) > 0 else none", True),
    ("trick[0].card.suit if len(trick) != 0 else 'none'", True),
    ("trick[0].card.suit", False),                                 # fails on an empty trick
    ("trick[0].card.suit if len(hand) > 0 else none", False),      # guards another list
    ("trick[1].card.suit if len(trick) > 0 else none", False),     # the second play may be missing
    ("'a' if len(trick) > 1 else 'b'", True),
])
def test_only_a_derived_value_that_cannot_fail_is_a_key(compiled, text, safe):
    compiler, _ = compiled
    tree = check_expression(text, compiler.scopes.hand())
    assert cannot_fail(tree, frozenset()) is safe


def test_values_of_a_conditional_are_its_branches():
    assert values_of(t.IfExp(t.Const("x"), t.Const(True), t.Const(None))) == (False, ("x", None))
    assert values_of(t.IfExp(t.Const("x"), t.Const(True), t.Const([1]))) is None   # (a list: no key)


def test_the_specialised_play_reads_trick_rank_from_a_table_per_led_suit(compiled):
    # de, "Das Spiel": "Der höchste Trumpf gewinnt den Stich, liegt keiner, die höchste Karte der
    # ausgespielten Farbe." In a Hokum in hearts, spades led: the seven of hearts beats the ace of
    # spades; the ace of spades beats the king; a diamond (neither led nor trump) never wins.
    space, source = _specialised(compiled, "play", ("hokum", "H"))
    assert "def t_card_trick_rank(v_card, v_key0)" in source and "_keyed_card_table(t_card_trick_rank" in source
    spades_led = space["k__card_trick_rank"]["S"]
    assert spades_led[Card("7", "H")] > spades_led[Card("A", "S")] > spades_led[Card("K", "S")]
    assert spades_led[Card("A", "D")] == 0
    assert set(space["k__card_trick_rank"]) == {"S", "H", "D", "C", None}


@pytest.mark.parametrize("values", [("hokum", "H"), ("hokum", "C"), ("sun", None)])
def test_each_keyed_table_is_the_function_on_every_led_suit_and_card(compiled, values):
    """The keyed table against the unspecialised function, which reads the contract and the trick."""
    space, _ = _specialised(compiled, "play", values)
    _, namespace = compiled
    deck = namespace["k__deck"]
    for led in ("S", "H", "D", "C", None):
        class State:
            mode, trump, _memo = values[0], values[1], {}
            trick = [] if led is None else [Rec(seat="N", card=next(c for c in deck if c.suit == led))]
        for card in deck:
            assert space["k__card_trick_rank"][led][card] == namespace["f_trick_rank"](State, card)


def test_a_keyed_table_has_a_card_table_per_key():
    def value(card, key):
        return f"{card}{key}"
    table = keyed_card_table(value, ["ab", "c"], [(False, (1, 2))])
    assert table == {1: {"ab": "ab1", "c": "c1"}, 2: {"ab": "ab2", "c": "c2"}}
    deck = [Card("A", "H"), Card("7", "S")]
    by_suit = keyed_card_table(value, deck, [(True, (None,))])
    assert list(by_suit) == ["H", "S", None]
