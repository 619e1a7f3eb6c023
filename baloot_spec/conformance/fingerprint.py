"""Which Baloot does an engine play? (`baloot conformance fingerprint`, conformance/ENGINES.md
"Step 0").

The engine is asked every case once (fingerprint_ask.py); its answers are then compared with the
reference engine's answers under candidate variants, never asked again. The method:

1. Start from the preset whose answers the engine matches on most cases.
2. Coordinate descent over the knobs, to a fixpoint: for each knob K, try each of its values
   (only those the constraints of params.yaml accept with the other knobs), counting the
   engine's agreements on K's witnesses only (the cases whose expectation depends on K,
   conformance/dependencies.json); keep the best (the current value on a tie; a knob whose
   witnesses all agree already is not tried).
   Then every answered case that still differs is run under V with each knob at each other
   value; where one such change makes it agree, it becomes a witness of that knob (knobs act
   together: dependencies.json lists single changes from a case's own variant only) and the
   descent runs again, until no case is added. A case no single change explains is tried
   under two changes together: first two knobs it depends on (its answer may need both, and
   then neither alone helps: a valley the descent cannot cross), then a knob it depends on and
   a *free* knob (one whose witnesses agree with another value as well, so that moving it costs
   nothing; a knob none of whose witnesses the engine answered is not tried): where that makes it
   agree, the descent is run from there (the case a witness of both knobs), and the search
   moves to where that descent ends only if strictly more answered cases agree there than at V
   (a third knob may have to follow the two; a move that only trades one agreement for another
   is not made), and goes on (at most PAIR_BUDGET such variants per fingerprint).
3. At the final variant V, a knob K is decided by its *informative* witnesses: those the engine
   answered whose reference answer is not the same under V with K at each of its values. K = v
   is reported only when the engine agrees with V on every informative witness and every other
   value u of K is ruled out by one of them (the witness's answer under V with K = u differs):
   no case counts for K that K does not change at V, so another knob's value cannot be what it
   shows. A witness is compared on the keys of its answer that K's values change (a departure
   in another key is another knob's business, or none's), and a reference answer that is moot
   (the position the engine was given is not one of that variant's, fingerprint_ask.py) neither
   tells K's values apart nor rules one out. A value u ruled out so is still a candidate when
   K's witnesses agree with it once a second knob L they depend on changes too, losing no
   agreement among L's own witnesses (fingerprint_verdict.py: the two knobs together explain the
   same answers). If several values agree with every informative witness, or there is none, K is
   "not testable" (with the candidates); if no value agrees with all of them, K is "none of
   them" (a departure no knob value describes; the closest value stays in the variant line).
4. The closest preset, the `--preset P --set K=V ...` line of V, and every answered case judged
   under V: what fails there is what no known variant explains.

The reference answers are memoised per (case, knob values), and one run answers a case for
every preset that agrees with its own variant on the knobs it depends on (dependencies.json is
closed over the presets: see _share_preset_answers). The rules are compiled once, with the knobs
read at run time (rules/open_variants.py: a candidate variant costs milliseconds, not the half
second of folding its knobs in); the bound variants are kept in a small LRU.
"""

from __future__ import annotations

import shlex
import time
from collections import OrderedDict

from ..errors import BalootError
from ..rules import load_variant
from ..rules.open_variants import OpenVariantCache
from ..rules.constraints import check_constraints
from ..rules.loader import load_constraints, load_params, load_presets, resolve_variant
from .corpus import Case, corpus_digest, load_corpus
from .fingerprint_ask import Asked, Observation, ask_engine, observed
from .fingerprint_report import MATCHED, NONE_OF_THEM, NOT_TESTABLE, to_markdown, console_lines  # noqa: F401 (this module's API)
from .fingerprint_report import show_value as _show
from .fingerprint_verdict import verdict as knob_verdict
from ..engine.position import PositionError
from .positions import start_from_entry
from .runner import HAND_QUESTIONS, SetupRefused, reference_pair, replay_setup

FORMAT = "baloot-fingerprint/1"
INT_CANDIDATES = (1, 50, 100, 101, 151, 152, 153, 200, 300, 1000)   # an int knob is tried at these
MAX_SWEEPS = 10
MAX_ROUNDS = 6     # descents, each after adding the witnesses that interactions reveal
PAIR_BUDGET = 150  # two-knob changes tried per fingerprint (each may compile a variant)
SHOWN = 6          # witness ids listed per knob


def fingerprint_cases(cases: list[Case]) -> list[Case]:
    """The cases a fingerprint asks: every kind but audit (a log names its own rules), no overlay."""
    return [c for c in cases if c.kind != "audit" and not c.data["variant"].get("overlays")]


def fingerprint(engine_cmd: list[str] | str, *, timeout: float = 10.0, progress=None, cases: list[Case] | None = None,
                reference: "Reference | None" = None) -> dict:
    """The fingerprint document (format baloot-fingerprint/1) of an engine program.
    EngineUnavailable if it cannot be started."""
    started = time.perf_counter()
    argv = shlex.split(engine_cmd) if isinstance(engine_cmd, str) else list(engine_cmd)
    corpus = cases if cases is not None else load_corpus()
    chosen = fingerprint_cases(corpus)
    asked = ask_engine(argv, chosen, timeout, progress)
    document = identify(asked, chosen, reference or Reference(), progress)
    document["command"] = argv
    document["corpus"] = {"cases": len(corpus), "hash": corpus_digest(corpus), "asked": len(chosen),
                          "left_out": len(corpus) - len(chosen)}
    document["search"]["seconds"] = round(time.perf_counter() - started, 1)
    return document


# ---- the reference engine under a full knob assignment ---------------------------------------------
class Reference:
    """The reference engine's Observation of a case under a knob assignment, memoised."""

    def __init__(self, keep: int = 12):
        self.params = load_params()
        self.names = list(self.params)
        self.constraints = load_constraints()
        self.memo: dict = {}
        self.compiled: OrderedDict = OrderedDict()
        self.keep = keep
        self.open = OpenVariantCache()   # (compiled once, knobs read at run time: rules/open_variants.py)
        self.variants = 0
        self._refused: dict = {}

    def key(self, knobs: dict) -> tuple:
        return tuple(knobs[name] for name in self.names)

    def sets(self, knobs: dict) -> dict:
        return {k: v for k, v in knobs.items() if v != self.params[k].default}

    def refused(self, knobs: dict) -> bool:
        key = self.key(knobs)
        if key not in self._refused:
            try:
                check_constraints(knobs, self.constraints, "a candidate variant")
                self._refused[key] = False
            except BalootError:
                self._refused[key] = True
        return self._refused[key]

    def rules(self, knobs: dict):
        key = self.key(knobs)
        rules = self.compiled.pop(key, None)
        if rules is None:
            rules = self.open.rules(resolve_variant("default", self.sets(knobs)))
            self.variants += 1
        self.compiled[key] = rules
        while len(self.compiled) > self.keep:
            self.compiled.popitem(last=False)
        return rules

    def answer(self, case: Case, knobs: dict, form: str = "events", entry: dict | None = None) -> Observation:
        """From the case's events, or (form "position:<preset>") from the position `entry` that
        the engine was given (derived under that preset), as the engine was asked."""
        memo_key = (case.id, form, self.key(knobs))
        got = self.memo.get(memo_key)
        if got is None:
            try:
                if form != "events":
                    hand = start_from_entry(self.rules(knobs), entry)
                    expected, actual = HAND_QUESTIONS[case.kind](hand, case)
                else:
                    expected, actual = reference_pair(self.rules(knobs), case)
                    if case.kind == "reject" and actual.get("reject") is None:
                        _apply_accepted(self.rules(knobs), case)
                got = observed(expected, actual) or Observation(error="no expected key answered")
            except SetupRefused as exc:
                got = Observation(refused=True, refused_at=exc.index)
            except PositionError as exc:   # (the position's own events refused, or no position of these rules)
                got = _position_refused(exc)
            except (BalootError, KeyError, TypeError, ValueError) as exc:
                got = Observation(error=f"{type(exc).__name__}: {exc}")
            self.memo[memo_key] = got
        return got

    def values(self, name: str, current) -> list:
        knob = self.params[name]
        if knob.type == "int":
            return sorted(set(INT_CANDIDATES) | {current, knob.default})
        return [_typed(v) for v in knob.values]


def _position_refused(exc: PositionError) -> Observation:
    """A refused event after the position is a refusal (the engine meets it too, at the same
    index); a position these rules would not reach is moot: the case cannot tell them apart."""
    where = exc.path
    if where.startswith("events[") and where.endswith("]") and where[7:-1].isdigit():
        return Observation(refused=True, refused_at=int(where[7:-1]))
    return Observation(moot=True)


def _typed(value):
    return value   # (params values are already typed by the loader: True/False for bools)


def _apply_accepted(rules, case: Case) -> None:
    """An accepted `reject` action applied, as an engine over the protocol applies it (a hand
    dealt five cards a seat cannot go on past the bidding: the error it meets is the answer)."""
    hand = replay_setup(rules, case.data["setup"])
    hand.apply(case.data["action"])


def preset_knobs() -> dict[str, dict]:
    """Every preset's knob values."""
    return {name: dict(load_variant(name).variant.knobs) for name in sorted(load_presets())}


# ---- the search ---------------------------------------------------------------------------------
def identify(asked: Asked, cases: list[Case], ref: Reference, progress=None) -> dict:
    """The fingerprint of recorded answers (see the module docstring)."""
    say = progress or (lambda message: None)
    answered = [c for c in cases if c.id in asked.answers]
    witnesses = {name: [c for c in answered if name in (c.depends_on or ())] for name in ref.names}
    all_witnesses = {name: [c for c in cases if name in (c.depends_on or ())] for name in ref.names}

    agreements = _agreement_count(asked, ref)

    presets = preset_knobs()
    _share_preset_answers(presets, answered, asked, ref)
    preset_scores = {}
    for name, knobs in presets.items():
        preset_scores[name] = agreements(answered, knobs)
        say(f"preset {name}: the engine agrees on {preset_scores[name]}/{len(answered)} answered cases")
    start = max(presets, key=lambda n: (preset_scores[n], n == "default"))
    knobs = dict(presets[start])
    sweeps = 0
    budget = [PAIR_BUDGET]
    for _round in range(MAX_ROUNDS):
        sweeps += _descend(knobs, witnesses, agreements, ref, say, sweeps)
        added = _explain_differences(knobs, answered, witnesses, asked, ref)
        if added:
            say(f"{added} differing cases are told apart by another knob here than dependencies.json lists "
                "(knobs acting together): searching again with them as its witnesses")
            continue
        moved = _explain_by_pairs(knobs, answered, witnesses, asked, ref, budget, agreements)
        if not moved:
            break
        say(f"a differing case agrees with {moved} changed together: searching again from there")
    else:
        sweeps += _descend(knobs, witnesses, agreements, ref, say, sweeps)   # (the rounds ran out after a move)
    verdicts = {name: knob_verdict(name, knobs, witnesses[name], all_witnesses[name], asked, ref, witnesses)
                for name in ref.names}
    for name, verdict in verdicts.items():
        knobs[name] = verdict.get("value", verdict.get("value_assumed", knobs[name]))
    closest = min(presets, key=lambda n: (sum(presets[n][k] != knobs[k] for k in knobs), -preset_scores[n], n != "default"))
    sets = {k: knobs[k] for k in ref.names if knobs[k] != presets[closest][k]}
    run = _run_under(knobs, cases, asked, ref)
    say(f"under the variant found: {run['pass']} agree, {run['fail']} differ, {run['not_answered']} not answered")
    return {
        "format": FORMAT,
        "engine": asked.engine,
        "knobs": verdicts,
        "closest_preset": {"name": closest, "differs_on": sorted(sets)},
        "variant": {"preset": closest, "set": sets, "line": variant_line(closest, sets), "knobs": dict(knobs)},
        "presets": {name: {"agree": score, "answered": len(answered)} for name, score in preset_scores.items()},
        "run": run,
        # case id -> the setup event the engine refused; the case was then asked from its position
        "events_refused": dict(getattr(asked, "refused_events", {})),
        "search": {"start": start, "sweeps": sweeps, "variants": ref.variants,
                   "pairs_tried": PAIR_BUDGET - budget[0],
                   "reference_answers": len(ref.memo)},
    }


def _agreement_count(asked: Asked, ref: Reference):
    """(cases, knobs) -> how many of the cases the engine answers as the reference does under knobs."""
    def agreements(group, knobs) -> int:
        return sum(asked.answers[c.id].agrees(ref.answer(c, knobs, *asked.how(c))) for c in group)
    return agreements


def _share_preset_answers(presets: dict, answered: list[Case], asked: Asked, ref: Reference) -> None:
    """One reference run answers a case (asked as events) for every preset that agrees with the
    case's own variant on the knobs it depends on: dependencies.json is closed over the presets
    (conformance/dependencies.py), so the case's expectation holds under each such preset, and
    its answer on the expected keys is the same under all of them. The memo is filled for the
    others without running them."""
    for case in answered:
        form, entry = asked.how(case)
        depends, spec = case.depends_on, case.data["variant"]
        own_preset = presets.get(spec.get("preset", "default"))
        if form != "events" or depends is None or own_preset is None:
            continue
        own = dict(own_preset, **(spec.get("set") or {}))
        same = [knobs for knobs in presets.values() if all(own.get(k) == knobs[k] for k in depends)]
        if len(same) > 1 and not any((case.id, form, ref.key(knobs)) in ref.memo for knobs in same[1:]):
            shared = ref.answer(case, same[0], form, entry)
            for knobs in same[1:]:
                ref.memo[(case.id, form, ref.key(knobs))] = shared


def _descend(knobs: dict, witnesses: dict, agreements, ref: Reference, say, done: int) -> int:
    """Coordinate descent over the knobs to a fixpoint (module docstring, step 2); the sweeps made."""
    sweeps = 0
    changed = True
    while changed and sweeps < MAX_SWEEPS:
        changed = False
        sweeps += 1
        for name in ref.names:
            group = witnesses[name]
            if not group:
                continue
            best, best_score = knobs[name], agreements(group, knobs)
            if best_score == len(group):
                continue            # every witness agrees already: no value can do better
            for value in ref.values(name, knobs[name]):
                trial = dict(knobs, **{name: value})
                if value == knobs[name] or ref.refused(trial):
                    continue
                score = agreements(group, trial)
                if score > best_score:
                    best, best_score = value, score
            if best != knobs[name]:
                say(f"sweep {done + sweeps}: {name} = {_show(best)} (agrees on {best_score}/{len(group)} witnesses)")
                knobs[name] = best
                changed = True
    return sweeps


def _explain_differences(knobs: dict, answered: list[Case], witnesses: dict, asked: Asked, ref: Reference) -> int:
    """A case the engine answers otherwise than the variant found, but as the variant with one
    knob changed does, is a witness of that knob here even if dependencies.json (single changes
    from the case's own variant) does not list it: add it. -> how many were added."""
    differing = [c for c in answered if not asked.answers[c.id].agrees(ref.answer(c, knobs, *asked.how(c)))]
    added = 0
    for name in ref.names if differing else ():
        listed = {c.id for c in witnesses[name]}
        for value in ref.values(name, knobs[name]):
            trial = dict(knobs, **{name: value})
            if value == knobs[name] or ref.refused(trial):
                continue
            for case in differing:
                if case.id not in listed and asked.answers[case.id].agrees(ref.answer(case, trial, *asked.how(case))):
                    witnesses[name].append(case)
                    listed.add(case.id)
                    added += 1
    return added


def _explain_by_pairs(knobs: dict, answered: list[Case], witnesses: dict, asked: Asked, ref: Reference,
                      budget: list, agreements=None) -> str:
    """A differing case may agree only when two knobs change together (one it depends on, and a
    *free* one: a knob whose witnesses agree with another value as well). Try such pairs (within
    `budget`, a one-item list counted down); at the first that makes the case agree and, after a
    descent from there, makes strictly more answered cases agree than `knobs`, move there and
    make the case a witness of both. -> "K=u and L=w" when moved, else ""."""
    agreements = agreements or _agreement_count(asked, ref)
    differing = [c for c in answered if not asked.answers[c.id].agrees(ref.answer(c, knobs, *asked.how(c)))]
    if not differing:
        return ""
    free = []
    for name in ref.names:
        for value in ref.values(name, knobs[name]):
            trial = dict(knobs, **{name: value})
            if witnesses[name] and value != knobs[name] and not ref.refused(trial) and all(
                    asked.answers[c.id].agrees(ref.answer(c, trial, *asked.how(c))) for c in witnesses[name]):
                free.append((name, value))
    own = {c.id: set(c.depends_on or ()) | {k for k in ref.names if c in witnesses[k]} for c in differing}
    here = agreements(answered, knobs)
    for name, value, other, other_value, concerned in _pairs(differing, own, free, knobs, ref):
        trial = dict(knobs, **{name: value, other: other_value})
        if not ref.refused(trial):
            if budget[0] <= 0:
                return ""
            budget[0] -= 1
            for case in concerned:
                if not asked.answers[case.id].agrees(ref.answer(case, trial, *asked.how(case))):
                    continue
                # the move is judged with the descent it opens: made when, after a descent from
                # the two changes (the case a witness of both), strictly more answered cases agree
                # than here. A move that only trades one agreement for another is not made (that
                # gave a real engine knob values none of its answers showed), and one that loses a
                # witness the descent then wins back is (a third knob may have to follow the two).
                moved, seen_by = dict(trial), {k: list(v) for k, v in witnesses.items()}
                for knob in (name, other):
                    if case not in seen_by[knob]:
                        seen_by[knob].append(case)
                _descend(moved, seen_by, agreements, ref, lambda message: None, 0)
                if agreements(answered, moved) <= here:
                    continue
                knobs.update(moved)
                witnesses.update(seen_by)
                return f"{name}={_show(value)} and {other}={_show(other_value)}"
    return ""


def _pairs(differing: list[Case], own: dict, free: list, knobs: dict, ref: Reference):
    """The two-knob changes worth trying, as (K, u, L, w, the differing cases that depend on K):
    first two knobs that one differing case depends on, at every pair of other values (its
    answer may need both: neither alone explains it, so the descent cannot find it); then a
    knob one depends on with a free knob at a value its witnesses allow."""
    seen = set()
    for case in differing:
        mine = [k for k in ref.names if k in own[case.id]]
        for i, name in enumerate(mine):
            for other in mine[i + 1:]:
                for value in ref.values(name, knobs[name]):
                    for other_value in ref.values(other, knobs[other]):
                        key = (name, value, other, other_value)
                        if value != knobs[name] and other_value != knobs[other] and key not in seen:
                            seen.add(key)
                            yield name, value, other, other_value, [c for c in differing if name in own[c.id]]
    for name in ref.names:
        concerned = [c for c in differing if name in own[c.id]]
        for value in ref.values(name, knobs[name]) if concerned else ():
            for other, other_value in free:
                key = (name, value, other, other_value)
                if value != knobs[name] and other != name and key not in seen:
                    seen.add(key)
                    yield name, value, other, other_value, concerned


def _run_under(knobs: dict, cases: list[Case], asked: Asked, ref: Reference) -> dict:
    """Every answered case judged under the variant found."""
    failures, moot = [], []
    passed = 0
    for case in cases:
        got = asked.answers.get(case.id)
        if got is None:
            continue
        expected = ref.answer(case, knobs, *asked.how(case))
        if got.neutral(expected):     # (the position the engine was given is not one of this variant's)
            moot.append(case.id)
        elif got.agrees(expected):
            passed += 1
        else:
            failures.append({"id": case.id, "depends_on": list(case.depends_on or ()), "engine": got.shown(),
                             "expected": expected.shown(), "features": list(case.features)})
    return {"pass": passed, "fail": len(failures), "not_answered": len(cases) - len(asked.answers),
            "failures": failures, "moot": moot}


def variant_line(preset: str, sets: dict) -> str:
    """The command-line words that name the variant: --preset P --set K=V ..."""
    return " ".join([f"--preset {preset}"] + [f"--set {k}={_show(v)}" for k, v in sets.items()])
