"""Ask an engine every fingerprint case once and keep its answers (the fingerprint compares them
with the reference engine's answers under many variants, never asking again).

Every case is sent under the engine's own preset (`default` if its hello claims it, else the
first it claims) with no knob set: "play your own Baloot". An app that plays one Baloot ignores
the variant anyway; an engine that can play several plays its default. A hand is given as
events when the engine takes them (a position would skip the auction that another variant may
refuse), else as a position (derived under that preset); the form and the position are kept,
so that the reference answers the same question. What the
engine's hello does not claim (a command, a feature, a key it produces, a setup form) is not
asked; preset and knob claims are ignored: the point is to find out which variant it plays.
When the engine refuses one of the events that the case's position stands for (its auction,
say, has a step ours lacks), the case is asked again from that position, as a run asks it: the
question is then still put (`Asked.refused_events` keeps what the events met).
An answer is kept as an Observation: the expected keys of the case, each projected onto the
shape of its expected value (extra keys the engine gives are not compared, as in a run), or
the setup refused (with which event: two refusals agree only at the same event), or an error.
The reference's answer may also be `moot`: the position the engine was given is not one of
that variant's (its rules would have another seat lead, say), so the case cannot tell that
variant from the engine's (it neither agrees nor rules the variant out, fingerprint.py) unless
the engine answered `errored` to that position (`position_refused`): then neither reaches it,
which agrees, and a variant that does reach it is ruled out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace

from .capabilities import produced_keys
from .corpus import Case
from .drive import ask_case
from .protocol_engine import Claims, EngineUnavailable, Errored, ProtocolEngine, SetupRefused, Skipped
from .positions import POSITION_KINDS, entry_of, setup_form
from .process import EngineFailure
from .protocol import ProtocolError

MISSING = "<missing>"


@dataclass(frozen=True)
class Observation:
    """One answer: `keys` (key -> canonical JSON of the projected value), or refused, or error."""

    keys: tuple = ()           # ((key, json), ...) sorted
    refused: bool = False
    refused_at: int | None = None   # the index of the setup event refused (None: not one event)
    error: str = ""
    moot: bool = False         # (the reference's only) the position given is not one of this variant's
    position_refused: bool = False   # (the engine's only) it answered `errored` to the position it was given

    def agrees(self, reference: "Observation", keys=None) -> bool:
        """Whether the reference's answer is this one on every key this one has (only `keys`,
        if given; a moot answer agrees only with an engine that refused that position, and
        fingerprint.py does not let it rule a value out otherwise: `neutral`)."""
        if reference.moot:
            return self.position_refused   # neither reaches that position
        if self.refused or reference.refused or self.error or reference.error:
            if self.refused and reference.refused:
                return self.refused_at == reference.refused_at
            return bool(self.error) and bool(reference.error)
        theirs = dict(reference.keys)
        return all(theirs.get(k) == v for k, v in self.keys if keys is None or k in keys)

    def neutral(self, reference: "Observation") -> bool:
        """Whether the reference's answer says nothing about this one: a moot answer (the
        position given is not one of that variant's) does, unless the engine refused the position
        as well: then both say the variant does not reach it, and that tells variants apart."""
        return reference.moot and not self.position_refused

    def telling_keys(self, references: list) -> frozenset | None:
        """The keys of this answer on which `references` (a knob's values) differ: a knob is
        judged on what it changes, not on a key another departure spoils (None: all of them,
        when one of the references is no answer)."""
        if self.refused or self.error or any(r.refused or r.error or r.moot for r in references):
            return None
        maps = [dict(r.keys) for r in references]
        return frozenset(k for k, _ in self.keys if len({m.get(k) for m in maps}) > 1)

    def seen(self, reference: "Observation"):
        """The reference's answer as far as this one can tell it apart (its keys only)."""
        if reference.moot:
            return ("moot",)
        if reference.refused or reference.error:
            return ("refused", reference.refused_at) if reference.refused else ("error",)
        theirs = dict(reference.keys)
        return tuple(theirs.get(k) for k, _ in self.keys) if self.keys else ("answered",)

    def shown(self) -> str:
        if self.moot:
            return "not askable (the position given is not one of this variant's)"
        if self.refused:
            return "the setup refused" + ("" if self.refused_at is None else f" at event {self.refused_at}")
        if self.error:
            return f"error ({self.error[:120]})"
        return "; ".join(f"{k}: {v}" for k, v in self.keys)


def project(value, shape):
    """`value` cut to the keys of `shape` (recursively), as matches_expected compares them."""
    if isinstance(shape, dict) and isinstance(value, dict):
        return {k: project(value[k], shape[k]) if k in value else MISSING for k in shape}
    return value


def observed(expected: dict, actual, keys=None) -> Observation | None:
    """The Observation of an answer on the expected keys (only `keys` if given); None when none
    of them is in the answer."""
    out = []
    for key, shape in expected.items():
        if (keys is None or key in keys) and isinstance(actual, dict) and key in actual:
            out.append((key, json.dumps(project(actual[key], shape), sort_keys=True, default=str)))
    return Observation(tuple(sorted(out))) if out else None


@dataclass
class Asked:
    """The engine's answers: case id -> Observation, and why the other cases have none."""

    engine: dict
    hello: dict
    answers: dict
    not_answered: dict         # case id -> reason (not claimed, skipped, no key produced)
    forms: dict                # case id -> "events" or "position:<preset>": how its hand was given
    entries: dict              # case id -> the position entry sent (form "position:...")
    preset: str = "default"    # the preset every case was sent under
    refused_events: dict = field(default_factory=dict)   # case id -> the event refused, then asked by position

    def how(self, case: Case) -> tuple:
        """(form, position entry) the case was asked in: what the reference must answer from."""
        return self.forms.get(case.id, "events"), self.entries.get(case.id)


def ask_engine(argv: list[str], cases: list[Case], timeout: float = 10.0, progress=None) -> Asked:
    """Every case asked once of one engine process (EngineUnavailable if it cannot start)."""
    engine = ProtocolEngine(argv, timeout)
    try:
        hello = engine.start()
    except EngineFailure as exc:
        tail = f"\n--- engine stderr ---\n{exc.stderr.rstrip()}" if exc.stderr else ""
        raise EngineUnavailable(f"{exc.message}{tail}") from None
    claims = Claims.from_hello(hello)
    positions = "position" in claims.setups
    if "events" in claims.setups:
        engine.setups = ("events",)
        claims = replace(claims, setups=frozenset({"events"}))
    preset = own_preset(hello)
    answers, not_answered, forms, entries, refused_events = {}, {}, {}, {}, {}
    try:
        for number, original in enumerate(cases, 1):
            case = Case(dict(original.data, variant={"preset": preset, "set": {}}), original.file, original.index)
            why = claims.missing(case)
            if why:
                not_answered[case.id] = "not claimed: " + "; ".join(why)
            else:
                form = setup_form(case, claims.setups) if case.kind in POSITION_KINDS else "events"
                forms[case.id] = "events" if form == "events" else f"position:{preset}"
                if form == "position":
                    entries[case.id] = entry_of(case)
                got = _ask(engine, case)
                if positions and forms[case.id] == "events" and _refused_before_position(got, case):
                    refused_events[case.id] = got.refused_at
                    got = _ask_by_position(engine, case)
                    forms[case.id], entries[case.id] = f"position:{preset}", entry_of(case)
                if isinstance(got, Observation):
                    if got.position_refused and forms[case.id] == "events":
                        got = replace(got, position_refused=False)   # (its events, not a position, refused)
                    answers[case.id] = got
                else:
                    not_answered[case.id] = got
            if progress and (number % 100 == 0 or number == len(cases)):
                progress(f"asked the engine {number}/{len(cases)} cases")
    finally:
        engine.close()
    return Asked(dict(claims.engine), hello, answers, not_answered, forms, entries, preset, refused_events)


def _refused_before_position(got, case: Case) -> bool:
    """Whether the engine refused one of the events that the case's position stands for (not
    one the position still applies, whose refusal is the engine's answer)."""
    if not isinstance(got, Observation) or not got.refused or got.refused_at is None:
        return False
    if case.kind not in POSITION_KINDS:
        return False
    entry = entry_of(case)
    if entry is None:
        return False
    return got.refused_at < len(case.data["setup"].get("events", [])) - len(entry["events"])


def _ask_by_position(engine: ProtocolEngine, case: Case):
    """The case asked again, from its position (the engine claims that setup form)."""
    restricted = engine.setups
    engine.setups = ("position",)
    try:
        return _ask(engine, case)
    finally:
        engine.setups = restricted


def own_preset(hello: dict) -> str:
    """The preset an engine plays when asked for its own: default if claimed, else its first."""
    presets = list(hello.get("presets") or ())
    return "default" if "default" in presets or not presets else presets[0]


def _ask(engine: ProtocolEngine, case: Case):
    try:
        expected, actual = ask_case(engine, case)
    except Skipped as exc:
        return f"skipped by the engine: {exc}"
    except SetupRefused as exc:
        return Observation(refused=True, refused_at=exc.index)
    except Errored as exc:
        text = exc.args[0] if isinstance(exc.args[0], str) else json.dumps(exc.args[0])
        return Observation(error=f"the engine reported an error: {text}", position_refused=exc.cmd == "new_hand")
    except ProtocolError as exc:
        return Observation(error=f"protocol: {exc}")
    except EngineFailure as exc:
        return Observation(error=f"engine {exc.kind}: {exc.message}")
    got = observed(expected, actual, produced_keys(engine.hello, case.kind))
    return got if got is not None else "the engine produced none of the expected keys"
