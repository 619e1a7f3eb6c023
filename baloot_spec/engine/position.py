"""A hand as a position: written from a Hand, and a Hand started from one.

A position is the state of a hand once the contract is settled (conformance/README.md, "Setup by
position"): an engine whose auction or doubling differs from ours can be asked about play
without going through them. Which state variables a position carries, at which of its fields,
and which phases it may be in, is declared in the rules (`position:` in rules/position.yaml);
this module is the generic machinery. Reading a position checks it against the rules: a card
twice, wrong counts, a card the rules refuse, a trick winner or a turn the rules contradict is a
PositionError naming the field (`position.tricks[2].winner`), never a crash.
"""

from __future__ import annotations

from ..cards import CardError
from ..errors import BalootError, IllegalAction, Location, RulesError
from .deal import DealError
from .hand import Hand

GENERIC_FIELDS = ("phase", "dealer", "match_scores", "public", "dealt", "hands", "tricks", "trick", "turn")


class PositionError(BalootError):
    """A position that cannot be read: malformed, or contradicted by the rules. `path` is where."""

    def __init__(self, message: str, path: str = "position", rule: str | None = None):
        self.path = path
        self.rule = rule
        super().__init__(f"{path}: {message}" + (f" (rule {rule})" if rule else ""))


def spec_of(rules) -> dict:
    """The rules' `position:` section, checked against their state variables and phases (a
    RulesError at the section if it names an unknown one or leaves a state variable out)."""
    spec = rules.variant.ruleset.single.get("position")
    if spec is None:
        raise PositionError("these rules declare no position (a `position:` section in rules/*.yaml)")
    checked = getattr(rules, "_position_checked", None)
    if checked is not spec:
        problems = spec_problems(rules, spec)
        if problems:
            where = spec.location() if hasattr(spec, "location") else Location("rules/")
            raise RulesError("the position section: " + "; ".join(problems), where)
        rules._position_checked = spec
    return spec


def spec_problems(rules, spec: dict) -> list[str]:
    """What is wrong with a position section: an unknown state variable or phase, a state
    variable in none or two of carried / shown / not_carried, a field given twice."""
    problems = []
    state = set(rules.state_init)
    phases = set(rules.phases)
    places: dict = {}
    fields = set()
    for kind in ("carried", "shown"):
        for entry in spec[kind]:
            places.setdefault(str(entry["state"]), []).append(kind)
            key = (str(entry["field"]), tuple(entry.get("phases") or ()))
            if key in fields or str(entry["field"]).split(".")[0] in GENERIC_FIELDS[:-1]:
                problems.append(f"field {entry['field']} is given twice")
            fields.add(key)
            problems += [f"{kind} phase {p!r} is not a phase" for p in entry.get("phases") or () if p not in phases]
    for name in spec["not_carried"]:
        places.setdefault(str(name), []).append("not_carried")
    problems += [f"{name!r} is not a state variable" for name in places if name not in state]
    problems += [f"state {name!r} is in {' and '.join(where)}" for name, where in places.items() if len(where) > 1]
    problems += [f"state {name!r} is in none of carried, shown, not_carried" for name in sorted(state - set(places))]
    problems += [f"phase {p!r} is not a phase" for p in spec["phases"] if p not in phases]
    return problems


# ---- writing ------------------------------------------------------------------------------------
def position_of(hand: Hand) -> dict:
    """The position of a hand now (PositionError if its phase is not one a position may be in)."""
    rules, S = hand.rules, hand.state
    spec = spec_of(rules)
    if S.phase not in spec["phases"]:
        raise PositionError(f"a position is in one of the phases {', '.join(spec['phases'])}, not {S.phase}", "position.phase")
    phase = rules.phases[S.phase]
    tricks_phase = phase.kind == "tricks"
    out = {"phase": S.phase, "dealer": S.dealer, "match_scores": _plain(S.match_scores), "public": _plain(S.public)}
    for entry in spec["carried"]:
        if entry.get("phases") and S.phase not in entry["phases"]:
            continue
        _put(out, str(entry["field"]), _plain(getattr(S, entry["state"])))
    out["dealt"] = {seat: _texts(S.dealt[seat]) for seat in S.all_seats}
    out["hands"] = {seat: _texts(S.hands[seat]) for seat in S.all_seats}
    out["tricks"] = [{"leader": t.leader, "plays": [_play(phase, p) for p in t.plays], "winner": t.winner} for t in S.tricks]
    if tricks_phase:
        out["trick"] = {"leader": S.trick[0].seat if S.trick else S.leader, "plays": [_play(phase, p) for p in S.trick]}
    else:
        out["trick"] = None
    for entry in spec["shown"]:
        _put(out, str(entry["field"]), _plain(getattr(S, entry["state"])))
    out.pop("turn", None)   # (a carried field may be the turn: written last, as hand.turn() gives it)
    out["turn"] = hand.turn()
    return out


def _play(phase, play) -> dict:
    out = {"seat": play.seat, "card": play.card.text}
    for name, default in phase.annotations.items():
        value = getattr(play, name, default)
        if value != default:
            out[name] = _plain(value)
    return out


def _texts(cards) -> list:
    return [c.text for c in cards]


def _plain(value):
    """A state value as JSON: cards as text, records as objects."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "rank") and hasattr(value, "suit") and hasattr(value, "text"):
        return value.text
    return value


def _put(out: dict, path: str, value) -> None:
    *parents, last = path.split(".")
    for name in parents:
        out = out.setdefault(name, {})
    out[last] = value


# ---- reading ------------------------------------------------------------------------------------
def hand_from_position(rules, position) -> Hand:
    """A Hand at `position`, checked against the rules (PositionError, located, if it is not one
    the rules can reach)."""
    spec = spec_of(rules)
    if not isinstance(position, dict):
        raise PositionError("a position is an object")
    unknown = sorted(set(position) - set(GENERIC_FIELDS) - {str(e["field"]).split(".")[0] for e in spec["carried"] + spec["shown"]})
    if unknown:
        raise PositionError(f"unknown field {unknown[0]!r}", f"position.{unknown[0]}")
    phase_name = position.get("phase")
    if phase_name not in spec["phases"]:
        raise PositionError(f"must be one of {', '.join(spec['phases'])}, not {phase_name!r}", "position.phase")
    phase = rules.phases[phase_name]
    seats = list(rules.table.seats)
    dealer = position.get("dealer")
    if dealer not in seats:
        raise PositionError(f"must be a seat ({' '.join(seats)}), not {dealer!r}", "position.dealer")
    dealt = _seat_lists(position, "dealt", seats)
    _seat_lists(position, "hands", seats)
    public = position.get("public")
    holders = [seat for seat in seats if public in dealt[seat]] if isinstance(public, str) else []
    try:
        card = rules.deck.parse(public) if isinstance(public, str) else None
    except CardError as exc:
        raise PositionError(str(exc), "position.public") from None
    if card is None:
        raise PositionError("must be the public card", "position.public")
    holders = [seat for seat in seats if any(_same_card(rules, c, card) for c in dealt[seat])]
    if len(holders) != 1:
        raise PositionError(f"the public card {card.text} must be among exactly one seat's dealt cards", "position.public")
    # The deal the hand is built from: each seat's dealt cards, the public card last for its taker
    # (the first five are what a seat held before the bidding: no rule after the bidding reads them).
    hands = {seat: [c for c in dealt[seat] if not _same_card(rules, c, card)] + ([card.text] if seat == holders[0] else [])
             for seat in seats}
    try:
        hand = Hand(rules, dealer, {"hands": hands, "public": card.text}, position.get("match_scores"))
    except DealError as exc:
        path = exc.path.replace("deal.hands", "position.dealt").replace("deal.public", "position.public")
        path = "position.match_scores" if path == "match_scores" else path
        raise PositionError(str(exc).split(": ", 1)[-1], path) from None
    fresh = hand.copy() if phase.kind != "tricks" else None   # (before the carried state: the phase's start)
    _set_state(hand, rules, spec, position, dealt, phase_name, skip=frozenset())
    if phase.kind == "tricks":
        hand._resume(phase_name, enter=True)
        _replay_plays(hand, phase, position)
    else:
        hand._resume(phase_name, enter=False)
        if hand.turn() is None:
            raise PositionError(f"the {phase_name} is over at this position: nobody is to act", "position.turn")
        _check_reachable(rules, spec, position, dealt, phase_name, fresh, hand)
    _compare(position_of(hand), position, rules)
    return hand


def _set_state(hand: Hand, rules, spec: dict, position: dict, dealt: dict, phase_name: str, skip) -> None:
    """The cards as dealt, and every carried state variable but those in `skip`."""
    S = hand.state
    S.dealt = dict(S.dealt)   # (the state's own to write: a fresh state holds the variant's, shared)
    for seat in rules.table.seats:   # (in the position's order: a position written again is the same text)
        cards = [rules.deck.parse(c) for c in dealt[seat]]
        S.hands[seat] = cards
        S.dealt[seat] = list(cards)
    for entry in spec["carried"]:
        if (entry.get("phases") and phase_name not in entry["phases"]) or entry["state"] in skip:
            continue
        setattr(S, entry["state"], _carried_value(rules, position, entry))
    S._memo = {}
    S._kept = {}   # (rule fields set outside play: rules/passes/kept.py)


REACH_LIMIT = 256   # positions of a calls phase explored from its start (the doubling has about 10)


def _check_reachable(rules, spec, position, dealt, phase_name, fresh: Hand, target: Hand) -> None:
    """A position in a calls phase must be one the phase reaches from its start by legal calls:
    the state its effects set (the doubling level, who doubled, who is asked...) is carried, so it
    is checked by searching the calls from the phase's entry (at most REACH_LIMIT positions)."""
    phase = rules.phases[phase_name]
    written = frozenset(e_name for effect in phase.on_enter + phase.on_action + phase.on_exit for e_name in effect.names)
    _set_state(fresh, rules, spec, position, dealt, phase_name, skip=written)
    fresh._resume(phase_name, enter=True)
    compared = written - {entry["state"] for entry in spec["carried"] if entry["field"] == "turn"}   # (the turn: apart)
    want = _values(target.state, compared)
    turn = target.turn()
    frontier, explored, same_state = [fresh], 0, False
    while frontier and explored < REACH_LIMIT:
        hand = frontier.pop(0)
        explored += 1
        if hand.phase != phase_name:
            continue
        if _values(hand.state, compared) == want:
            if hand.turn() == turn:
                return
            same_state = True
        seat = hand.turn()
        for action in hand.legal():
            child = hand.copy()
            child.apply(dict(action, seat=seat))
            frontier.append(child)
    if same_state:
        raise PositionError(f"the {phase_name} never asks {turn} at this point", "position.turn")
    raise PositionError(f"no sequence of legal {phase_name} calls reaches this state "
                        f"({', '.join(f'{name}={_show(_plain(value))}' for name, value in sorted(want.items()))})",
                        "position.contract")


def _values(S, names) -> dict:
    return {name: _plain(getattr(S, name)) for name in names}


def _seat_lists(position: dict, name: str, seats: list) -> dict:
    value = position.get(name)
    if not isinstance(value, dict) or set(value) != set(seats):
        raise PositionError(f"must give the cards of every seat ({' '.join(seats)})", f"position.{name}")
    for seat, cards in value.items():
        if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
            raise PositionError("must be a list of cards", f"position.{name}.{seat}")
    return value


def _same_card(rules, text: str, card) -> bool:
    try:
        return rules.deck.parse(text) == card
    except CardError:
        return False


def _carried_value(rules, position: dict, entry):
    """The value of one carried field, checked against its declared type."""
    path = str(entry["field"])
    node = position
    for name in path.split("."):
        if not isinstance(node, dict) or name not in node:
            raise PositionError("missing", f"position.{path}")
        node = node[name]
    where = f"position.{path}"
    kind = entry["type"]
    if node is None:
        if entry.get("nullable"):
            return None
        raise PositionError("must not be null", where)
    if kind == "seat" and node not in rules.table.seats:
        raise PositionError(f"must be a seat ({' '.join(rules.table.seats)}), not {node!r}", where)
    if kind == "suit" and node not in rules.deck.suits:
        raise PositionError(f"must be a suit ({' '.join(rules.deck.suits)}), not {node!r}", where)
    if kind == "bool" and not isinstance(node, bool):
        raise PositionError(f"must be true or false, not {node!r}", where)
    if kind == "int":
        if isinstance(node, bool) or not isinstance(node, int):
            raise PositionError(f"must be a whole number, not {node!r}", where)
        if not entry.get("minimum", node) <= node <= entry.get("maximum", node):
            raise PositionError(f"must be from {entry.get('minimum')} to {entry.get('maximum')}, not {node}", where)
    values = entry.get("values")
    if kind == "word" and not (isinstance(node, str) and (values is None or node in values)):
        raise PositionError(f"must be one of {', '.join(values or ['a word'])}, not {node!r}", where)
    if kind == "words":
        if not isinstance(node, list) or not all(isinstance(w, str) and (values is None or w in values) for w in node):
            raise PositionError(f"must be a list of {', '.join(values or ['words'])}", where)
        return list(node)
    return str(node) if isinstance(node, str) else node


def _replay_plays(hand: Hand, phase, position: dict) -> None:
    """The plays of the finished tricks and of the current one, judged and applied in order."""
    tricks = position.get("tricks")
    if not isinstance(tricks, list):
        raise PositionError("must be a list of tricks", "position.tricks")
    current = position.get("trick")
    if not isinstance(current, dict) or not isinstance(current.get("plays"), list):
        raise PositionError("must be the current trick {leader, plays}", "position.trick")
    seats = len(hand.rules.table.seats)
    for index, trick in enumerate(tricks):
        where = f"position.tricks[{index}]"
        if not isinstance(trick, dict) or not isinstance(trick.get("plays"), list) or len(trick["plays"]) != seats:
            raise PositionError(f"a finished trick is {{leader, plays, winner}} with {seats} plays", where)
        _replay_trick(hand, phase, trick, where)
        winner = hand.state.tricks[-1].winner if hand.state.tricks else None
        if trick.get("winner") != winner:
            raise PositionError(f"the rules give the trick to {winner}, not {trick.get('winner')!r}", f"{where}.winner")
        if hand.phase != phase.name:
            raise PositionError(f"the hand is over after trick {index + 1}: a position has a card still to play", where)
    if len(current["plays"]) >= seats:
        raise PositionError(f"the current trick has at most {seats - 1} plays", "position.trick.plays")
    _replay_trick(hand, phase, current, "position.trick")


def _replay_trick(hand: Hand, phase, trick: dict, where: str) -> None:
    leader = hand.turn()
    if trick.get("leader") != leader:
        raise PositionError(f"the rules have {leader} lead this trick, not {trick.get('leader')!r}", f"{where}.leader")
    for number, play in enumerate(trick["plays"]):
        at = f"{where}.plays[{number}]"
        if not isinstance(play, dict) or not isinstance(play.get("card"), str):
            raise PositionError("a play is {seat, card} (and what was said with it)", at)
        unknown = set(play) - {"seat", "card"} - set(phase.annotations)
        if unknown:
            raise PositionError(f"unknown field {sorted(unknown)[0]!r}", at)
        event = {"seat": play.get("seat"), "type": phase.action, **{k: v for k, v in play.items() if k != "seat"}}
        try:
            hand.apply(event)
        except IllegalAction as refusal:
            raise PositionError(f"the rules refuse this play: {refusal.message}", at, refusal.rule_id) from None


def _compare(derived: dict, given: dict, rules, path: str = "position") -> None:
    """PositionError at the first field where the given position differs from what the rules
    derive from it (cards compared as sets where order is not part of the position)."""
    for key, value in derived.items():
        where = f"{path}.{key}"
        if key not in given:
            raise PositionError(f"missing (here: {_show(value)})", where)
        mine, theirs = value, given[key]
        if path == "position" and key in ("dealt", "hands"):
            theirs = {s: sorted(_norm(rules, c) for c in cs) for s, cs in theirs.items()} if isinstance(theirs, dict) else theirs
            mine = {s: sorted(cs) for s, cs in mine.items()}
        if isinstance(mine, dict) and isinstance(theirs, dict) and key not in ("match_scores",):
            _compare(mine, theirs, rules, where)
            continue
        if _canonical(rules, mine, key) != _canonical(rules, theirs, key):
            raise PositionError(f"the rules give {_show(mine)}, not {_show(theirs)}", where)


def _norm(rules, text):
    try:
        return rules.deck.parse(text).text
    except (CardError, TypeError, AttributeError):
        return text


def _canonical(rules, value, key: str = ""):
    """Cards (a play's `card`, the public card) written as writers write them (TS, not 10S)."""
    if isinstance(value, dict):
        return {k: _canonical(rules, v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_canonical(rules, v) for v in value]
    return _norm(rules, value) if key in ("card", "public") and isinstance(value, str) else value


def _show(value) -> str:
    import json
    return json.dumps(value, default=str)


def replay_events(hand: Hand, events: list, where: str = "events") -> Hand:
    """Apply events after a position (IllegalAction refused ones are PositionErrors at `where`)."""
    for index, event in enumerate(events):
        try:
            hand.apply(event)
        except IllegalAction as refusal:
            raise PositionError(f"refused: {refusal.message}", f"{where}[{index}]", refusal.rule_id) from None
    return hand


