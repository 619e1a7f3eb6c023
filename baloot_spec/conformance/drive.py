"""One case through the protocol: the question each case kind asks an engine program (the same
question `runner.run_case` asks the built-in engine), the answer compared the same way, and
every misbehaviour of the engine turned into an `error` outcome for that case.

start_hand, apply_events and query are also the steps of a game replay (games.py) and of perft
over the protocol (perft_engine.py)."""

from __future__ import annotations

import json
import time

from .capabilities import produced_keys
from .console import show_item
from .corpus import Case
from .positions import entry_of, setup_form
from .process import EngineFailure
from .protocol import ProtocolError
from .protocol_engine import Errored, ProtocolEngine, SetupRefused, Skipped
from .runner import ERROR, FAIL, Outcome, canonical_action, compared_outcome, difference, norm_card
from .status import SKIPPED

TEAMS = ("NS", "EW")


def variant_of(case: Case) -> dict:
    variant = case.data["variant"]
    out = {"preset": variant.get("preset", "default"), "set": dict(variant.get("set") or {})}
    if variant.get("overlays"):
        out["overlays"] = list(variant["overlays"])
    return out


def drive_case(engine: ProtocolEngine, case: Case) -> Outcome:
    """Run one case through the protocol; never raises for anything the engine does."""
    try:
        engine.begin_case()
        expected, actual = _DRIVERS[case.kind](engine, case)
    except Skipped as exc:
        return Outcome(case, SKIPPED, f"skipped by the engine: {exc}")
    except Errored as exc:
        context = exc.args[0]
        text = context if isinstance(context, str) else json.dumps(context)
        return Outcome(case, ERROR, f"the engine reported an error: {text}", details=_stderr(engine))
    except SetupRefused as exc:
        return Outcome(case, ERROR, str(exc), details={} if exc.index is None else {"refused_event": exc.index})
    except ProtocolError as exc:
        return Outcome(case, ERROR, f"protocol: {exc}", details=_stderr(engine))
    except EngineFailure as exc:
        details = {"failure": exc.kind}
        if exc.stderr:
            details["stderr"] = exc.stderr
        return Outcome(case, ERROR, f"engine {exc.kind}: {exc.message}", details=details)
    outcome = compared_outcome(case, expected, actual, produced_keys(engine.hello, case.kind))
    if outcome.status == FAIL:
        outcome.message = describe_difference(case, expected, actual, outcome.keys)
    return outcome


def ask_case(engine: ProtocolEngine, case: Case):
    """(expected, actual) of one case asked of a started engine, compared by nobody: the
    fingerprint (fingerprint_ask.py) keeps the answer. Raises what drive_case catches."""
    engine.begin_case()
    return _DRIVERS[case.kind](engine, case)


def describe_difference(case: Case, expected, actual, keys: dict | None = None) -> str:
    """What differs, in the keys that were compared (all of them without `keys`)."""
    if keys is not None:
        failed = [k for k, v in keys.items() if v == FAIL]
        expected = {k: expected[k] for k in failed}
        actual = {k: actual[k] for k in failed}
    return _describe(case, expected, actual)


def _describe(case: Case, expected, actual) -> str:
    """What differs, for people: a legal set as the missing and extra actions, else key by key."""
    if case.kind != "legal" or not isinstance(expected, dict) or not isinstance(actual, dict):
        return difference(expected, actual)
    parts = []
    for key in ("turn", "phase"):
        if key in expected and expected[key] != actual.get(key):
            parts.append(f"{key}: expected {json.dumps(expected[key])}, got {json.dumps(actual.get(key))}")
    wanted, got = set(expected.get("legal") or ()), set(actual.get("legal") or ())
    if "legal" in expected and wanted != got:
        missing, extra = sorted(wanted - got), sorted(got - wanted)
        said = ([f"missing {', '.join(map(_show_action, missing))}"] if missing else []) + \
               ([f"not legal but offered {', '.join(map(_show_action, extra))}"] if extra else [])
        parts.append("legal: " + "; ".join(said))
    return "; ".join(parts)


def _show_action(text: str) -> str:
    try:
        action = json.loads(text)
    except (ValueError, RecursionError):   # (an engine's garbage: shown as it came, clipped)
        action = None
    if not isinstance(action, dict):
        return repr(str(text)[:100])
    return show_item(action)


def _stderr(engine: ProtocolEngine) -> dict:
    time.sleep(0.05)    # stderr is read by another thread: let what preceded the response arrive
    tail = engine.stderr_tail()
    return {"stderr": tail} if tail else {}


def start_hand(engine: ProtocolEngine, case: Case) -> None:
    """new_hand in a setup form the engine accepts (a position where the case has one), then the
    events that follow it."""
    setup = case.data["setup"]
    if setup_form(case, accepted_setups(engine)) == "position":
        entry = entry_of(case)
        engine.ask("new_hand", variant=variant_of(case), position=entry["position"])
        events = entry["events"]
    else:
        engine.ask("new_hand", variant=variant_of(case), dealer=setup["dealer"], deal=setup["deal"],
                   match_scores=dict(setup.get("match_scores") or {t: 0 for t in TEAMS}))
        events = setup.get("events", [])
    if not events:
        return
    results = apply_events(engine, events)
    for index, result in enumerate(results):
        if not result["accepted"]:
            raise SetupRefused(f"setup.events[{index}] {json.dumps(events[index])} was refused: "
                               f"{result['rule']}: {result.get('message', '')}", index)
    if len(results) != len(events):
        raise ProtocolError(f"apply answered {len(results)} results for {len(events)} events, all accepted")


def accepted_setups(engine: ProtocolEngine) -> list:
    """The setup forms the engine's hello accepts (default events), less those the run excludes."""
    accepted = (engine.hello or {}).get("setups") or ["events"]
    restricted = getattr(engine, "setups", None)
    return [form for form in accepted if restricted is None or form in restricted]


def apply_events(engine: ProtocolEngine, events: list) -> list:
    results = engine.ask("apply", events=events)["results"]
    if len(results) > len(events):
        raise ProtocolError(f"apply answered {len(results)} results for {len(events)} events")
    if any(not r["accepted"] for r in results[:-1]):
        raise ProtocolError("apply went on after a refused event (it must stop at the first refusal)")
    return results


def query(engine: ProtocolEngine, what: list, required: tuple = ()) -> dict:
    """The answer to a query; a key asked for but left out is unsupported (not an error), except
    those `required` to run the case at all."""
    response = engine.ask("query", what=what)
    for key in required:
        if key not in response:
            raise ProtocolError(f"the query response has no {key!r} (asked for {', '.join(what)})")
    return response


def _legal(engine, case):
    start_hand(engine, case)
    expect = case.data["expect"]
    produced = produced_keys(engine.hello, "legal")
    what = [k for k in ("turn", "legal", "phase") if k in expect and (produced is None or k in produced)]
    answer = query(engine, what)
    actual = {k: answer[k] for k in what if k in answer}
    if "legal" in actual:
        actual["legal"] = sorted(canonical_action(a) for a in actual["legal"])
    expected = {"turn": expect["turn"], "legal": sorted(canonical_action(a) for a in expect["legal"])}
    if "phase" in expect:
        expected["phase"] = expect["phase"]
    return expected, actual


def _reject(engine, case):
    start_hand(engine, case)
    results = apply_events(engine, [case.data["action"]])
    if not results:
        raise ProtocolError("apply answered no result for one event")
    result = results[0]
    actual = ({"reject": result["rule"], "message": result.get("message", "")} if not result["accepted"]
              else {"reject": None, "message": "accepted"})
    return {"reject": case.data["expect"]["reject"]}, actual


def _hand(engine, case):
    start_hand(engine, case)
    answer = query(engine, ["result", "turn", "phase"], required=("result",))
    if answer["result"] is None:
        raise SetupRefused(f"the events end before the hand does (phase {answer['phase']}, {answer['turn']} to act)")
    return dict(case.data["expect"]), answer["result"]


def score_facts_of(setup: dict) -> dict:
    """A `score` case's setup with every default written out (the protocol sends all fields)."""
    return {"mode": setup["mode"], "buyer": setup["buyer"], "doubling": list(setup.get("doubling", [])),
            "card_points": dict(setup["card_points"]), "tricks": dict(setup["tricks"]),
            "projects": {t: list((setup.get("projects") or {}).get(t, [])) for t in TEAMS},
            "baloot": dict(setup.get("baloot") or {t: False for t in TEAMS}),
            "match_scores": dict(setup.get("match_scores") or {t: 0 for t in TEAMS})}


def _score(engine, case):
    answer = engine.ask("score", variant=variant_of(case), facts=score_facts_of(case.data["setup"]))
    return dict(case.data["expect"]), answer["score"]


def _projects(engine, case):
    setup = dict(case.data["setup"])
    setup.setdefault("trump", None)
    actual = dict(engine.ask("projects", variant=variant_of(case), setup=setup)["projects"])
    expected = dict(case.data["expect"])
    if "projects" in expected:
        expected["projects"] = _project_lists(expected["projects"], expected["projects"])
        if isinstance(actual.get("projects"), dict):
            actual["projects"] = _project_lists(actual["projects"], expected["projects"])
    return expected, {k: actual[k] for k in expected if k in actual}


def _project_lists(by_seat: dict, seats) -> dict:
    """Projects of the given seats, cards normalised and sorted, lists in a stable order."""
    out = {}
    for seat in seats:
        projects = [{"name": p["name"], "cards": sorted(norm_card(c) for c in p["cards"])} for p in by_seat.get(seat, [])]
        out[seat] = sorted(projects, key=lambda p: json.dumps(p, sort_keys=True))
    return out


def _match(engine, case):
    setup = case.data["setup"]
    answer = engine.ask("match", variant=variant_of(case), start=dict(setup.get("start") or {t: 0 for t in TEAMS}),
                        hands=setup["hands"])
    return dict(case.data["expect"]), answer["match"]


def _audit(engine, case):
    answer = engine.ask("audit", log=case.data["setup"]["log"])["audit"]
    key = lambda v: (v["path"], v["rule"])
    expected = sorted(({"path": v["path"], "rule": v["rule"]} for v in case.data["expect"]["violations"]), key=key)
    actual = sorted(({"path": v["path"], "rule": v["rule"]} for v in answer["violations"]), key=key)
    return {"violations": expected}, {"violations": actual}


_DRIVERS = {"legal": _legal, "reject": _reject, "hand": _hand, "score": _score, "projects": _projects, "match": _match,
            "audit": _audit}
