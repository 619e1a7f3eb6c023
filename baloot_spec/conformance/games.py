"""Recorded games as conformance: the game logs (conformance/games/) replayed through an engine.

A case asks one question at one position; a recorded game asks every question along a whole
match. Each hand of a `baloot-log/1` document is started in the engine (`new_hand`, in a setup
form it accepts) and driven event by event: before each event the engine's turn and legal set
are compared with the log's world (the reference engine replaying the same log), then the event
is applied and must be accepted; at the end of each hand every `claimed` result the engine
produces is compared with the log's claim (COMPARED_RESULTS: `thrown_in` and the keys of a
`score` answer; the facts a log may also claim, such as `card_points`, are not part of a hand's
result in the protocol, so not asked). At the end of the game, an engine that answers `match`
is asked the match over the hands played (their written scores and Gahwa, as a `match` case
gives them), and its `scores`, `winner` and `ended_after` are compared with the log's rules'
(the log's own `claimed` final scores and winner must be the rules' too). The first divergence
of each game is reported, with the rule that decides it in the reference engine (the rule that
excludes an action the engine offers, the phase whose turn order the engine departs from, the
scoring step of a wrong result, the match step of a wrong final score).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ..engine.hand import Hand, match_step
from ..engine.position import position_of
from ..errors import BalootError, IllegalAction
from ..log.reader import read_logs
from ..rules import load_variant
from ..log.writer import CLAIMED_FROM_SCORE
from ..text import plain
from .drive import accepted_setups, apply_events, query
from .protocol_engine import Claims, Errored, ProtocolEngine, Skipped
from .process import EngineFailure
from .protocol import ProtocolError
from .runner import canonical_action, run_match
from .capabilities import produced_keys

AGREES, DIVERGES, ERROR, UNSUPPORTED = "agrees", "diverges", "error", "unsupported"
COMPARED_RESULTS = ("thrown_in",) + CLAIMED_FROM_SCORE   # (the scoring steps a log claims: log/writer.py)


@dataclass
class GameOutcome:
    """One game (a log document) through an engine: agrees, diverges (with the first divergence),
    error (the engine failed, or the log cannot be replayed) or unsupported (not claimed)."""

    game: str
    status: str
    message: str = ""
    hands: int = 0
    steps: int = 0
    divergence: dict | None = None
    not_compared: list = field(default_factory=list)

    def as_json(self) -> dict:
        out = {"game": self.game, "status": self.status, "hands": self.hands, "steps": self.steps}
        if self.message:
            out["message"] = self.message
        if self.divergence:
            out["divergence"] = self.divergence
        if self.not_compared:
            out["not_compared"] = sorted(set(self.not_compared))
        return out


class _Diverged(Exception):
    def __init__(self, divergence: dict):
        super().__init__(divergence["message"])
        self.divergence = divergence


class _LogUnusable(Exception):
    """The log cannot be replayed by the reference engine (it is not a clean game)."""


def run_games(sources: list, argv: list, timeout: float = 10.0, setups=None) -> tuple[list, dict]:
    """Every document under `sources` through the engine `argv`: (outcomes, the engine's hello).
    EngineFailure when the engine cannot be started or greeted."""
    engine = ProtocolEngine(argv, timeout)
    engine.setups = setups
    hello = engine.start()
    claims = Claims.from_hello(hello)
    outcomes = []
    try:
        for item in read_logs(sources):
            outcomes.append(_run_document(engine, claims, item))
    finally:
        engine.close()
    return outcomes, hello


def _run_document(engine: ProtocolEngine, claims: Claims, item) -> GameOutcome:
    game = _shown_path(item.where)
    if item.errors:
        return GameOutcome(game, ERROR, f"unreadable log: {item.errors[0]['path']}: {item.errors[0]['message']}")
    document = item.document
    variant = document["variant"]
    missing = _unclaimed(claims, variant)
    forms = accepted_setups(engine)
    if not forms:
        missing.append("a setup form (events or position)")
    if missing:
        return GameOutcome(game, UNSUPPORTED, "not claimed by the engine: " + "; ".join(missing))
    try:
        rules = load_variant(variant.get("preset", "default"), variant.get("set") or {}, variant.get("overlays") or [])
    except BalootError as exc:
        return GameOutcome(game, ERROR, f"the log's variant cannot be loaded: {exc}")
    outcome = GameOutcome(game, AGREES)
    request_variant = {"preset": variant.get("preset", "default"), "set": dict(variant.get("set") or {})}
    if variant.get("overlays"):
        request_variant["overlays"] = list(variant["overlays"])
    start = dict(document["match"].get("start") or {t: 0 for t in rules.table.teams})
    scores = dict(start)
    step_ids = {name: step_id for name, step_id, _ in rules.facts}
    step_ids.update({name: step_id for name, step_id, _ in rules.scoring})
    played = []   # the hands played to the end, as a `match` request gives them
    try:
        engine.begin_case()
        for k, record in enumerate(document["hands"]):
            base = f"$.hands[{k}]"
            reference = _hand_of(rules, record, scores, base)
            _drive_hand(engine, rules, request_variant, record, reference, scores, base, forms, outcome, step_ids)
            outcome.hands += 1
            result = reference.result()
            if not result["thrown_in"]:
                played.append({"written": plain(result["written"]), **({"gahwa": result["winner"]} if result["gahwa"] else {})})
                values = match_step(rules, scores, result)
                scores = dict(values["new_scores"])
                if values["ended"]:
                    break
        _compare_match(engine, claims, rules, request_variant, start, played, document.get("claimed") or {}, outcome)
    except _Diverged as exc:
        outcome.status, outcome.divergence = DIVERGES, exc.divergence
        outcome.message = exc.divergence["message"]
    except _LogUnusable as exc:
        outcome.status, outcome.message = ERROR, f"the log is not a clean game: {exc}"
    except Skipped as exc:
        outcome.status, outcome.message = UNSUPPORTED, f"skipped by the engine: {exc}"
    except Errored as exc:
        outcome.status, outcome.message = ERROR, f"the engine reported an error: {exc.args[0]}"
    except ProtocolError as exc:
        outcome.status, outcome.message = ERROR, f"protocol: {exc}"
    except EngineFailure as exc:
        outcome.status, outcome.message = ERROR, f"engine {exc.kind}: {exc.message}"
    return outcome


def _shown_path(where: str) -> str:
    """A log's place as a person reads it: relative to the current folder when inside it."""
    import os
    if os.path.isabs(where):
        relative = os.path.relpath(where)
        if not relative.startswith(".."):
            return relative
    return where


def _unclaimed(claims: Claims, variant: dict) -> list:
    return claims.unclaimed(("new_hand", "apply", "query"), variant)


def _hand_of(rules, record: dict, scores: dict, base: str) -> Hand:
    try:
        return Hand(rules, record["dealer"], record["deal"], scores)
    except BalootError as exc:
        raise _LogUnusable(f"{base}.deal: {exc}") from None


def _drive_hand(engine, rules, variant, record, reference: Hand, scores, base, forms, outcome, step_ids) -> None:
    events = record["events"]
    start = 0
    if "events" in forms:
        engine.ask("new_hand", variant=variant, dealer=record["dealer"], deal=record["deal"], match_scores=dict(scores))
    else:   # positions only: the hand is given at the start of its play, the auction replayed here
        start = _to_play_start(rules, reference, events, base)
        if start is None:   # thrown in: nothing to ask an engine that takes positions only
            outcome.not_compared.append("hands thrown in (the engine takes positions only)")
            return
        engine.ask("new_hand", variant=variant, position=position_of(reference))
    for j in range(start, len(events)):
        path = f"{base}.events[{j}]"
        _compare_position(engine, rules, reference, path)
        event = events[j]
        refusal = reference.check(event)
        if refusal is not None:
            raise _LogUnusable(f"{path}: the reference engine refuses it: {refusal.rule_id}: {refusal.message}")
        results = apply_events(engine, [event])
        if not results or not results[0]["accepted"]:
            rule = results[0].get("rule") if results else None
            raise _Diverged({"path": path, "kind": "refused", "rule": rule,
                             "message": f"{path}: the engine refuses {_describe(event)}, legal here: {rule}: "
                                        f"{results[0].get('message', '') if results else ''}".rstrip(": "),
                             "expected": "accepted", "actual": results[0] if results else None})
        reference.apply(event)
        outcome.steps += 1
    if not reference.is_over():
        raise _LogUnusable(f"{base}.events: the events end before the hand does ({reference.phase}, {reference.turn()} to act)")
    answer = query(engine, ["result"])
    _compare_result(answer["result"], record.get("claimed") or {}, reference, base, outcome, step_ids)


def _to_play_start(rules, reference: Hand, events: list, base: str):
    """Apply events to the reference until it stands before the first card; their count, or
    None when the hand never gets there."""
    for j, event in enumerate(events):
        phase = rules.phases.get(reference.phase)
        if phase is not None and phase.kind == "tricks":
            return j
        try:
            reference.apply(event)
        except IllegalAction as refusal:
            raise _LogUnusable(f"{base}.events[{j}]: the reference engine refuses it: {refusal.rule_id}") from None
    return None


def _compare_position(engine, rules, reference: Hand, path: str) -> None:
    answer = query(engine, ["turn", "legal"])
    turn = reference.turn()
    phase = rules.phases.get(reference.phase)
    if answer["turn"] != turn:
        raise _Diverged({"path": path, "kind": "turn", "rule": phase.id if phase else None,
                         "message": f"{path}: the engine has {answer['turn']} to act, the log's rules {turn} "
                                    f"({phase.id if phase else reference.phase})",
                         "expected": turn, "actual": answer["turn"]})
    wanted = {canonical_action(a) for a in reference.legal()}
    got = {canonical_action(a) for a in answer["legal"]}
    if wanted == got:
        return
    extra, missing = sorted(got - wanted), sorted(wanted - got)
    rules_of_extra = []
    for text in extra:
        refusal = reference.check(dict(json.loads(text), seat=turn))
        rules_of_extra.append(refusal.rule_id if refusal else None)
    said = ([f"offers {', '.join(_show(t) for t in extra)}, which "
             f"{', '.join(sorted({r for r in rules_of_extra if r}))} refuse{'s' if len(set(rules_of_extra)) == 1 else ''}"]
            if extra else []) + ([f"does not offer {', '.join(_show(t) for t in missing)}, legal here"] if missing else [])
    rule = next((r for r in rules_of_extra if r), None)
    raise _Diverged({"path": path, "kind": "legal", "rule": rule,
                     "message": f"{path}: {turn} to act: the engine " + "; ".join(said),
                     "expected": [json.loads(t) for t in sorted(wanted)],
                     "actual": [json.loads(t) for t in sorted(got)],
                     "offered_but_refused": [{"action": json.loads(t), "rule": r} for t, r in zip(extra, rules_of_extra)],
                     "legal_but_not_offered": [json.loads(t) for t in missing]})


def _compare_result(result, claimed: dict, reference: Hand, base: str, outcome: GameOutcome, step_ids: dict) -> None:
    if not isinstance(result, dict):
        raise _Diverged({"path": f"{base}.claimed", "kind": "result", "rule": None,
                         "message": f"{base}: the hand is over but the engine gives no result", "expected": claimed,
                         "actual": result})
    mine = plain(reference.result())
    for key in COMPARED_RESULTS:
        if key not in claimed:
            continue
        if claimed[key] != mine.get(key):
            raise _LogUnusable(f"{base}.claimed.{key}: the log claims {json.dumps(claimed[key])}, its rules give {json.dumps(mine.get(key))}")
        if key not in result:
            outcome.not_compared.append(key)
            continue
        if result[key] != claimed[key]:
            step = step_ids.get(key, "claimed.thrown_in" if key == "thrown_in" else f"claimed.{key}")
            raise _Diverged({"path": f"{base}.claimed.{key}", "kind": "result", "rule": step,
                             "message": f"{base}.claimed.{key}: the engine gives {json.dumps(result[key])}, the log "
                                        f"claims {json.dumps(claimed[key])} (step {step})",
                             "expected": claimed[key], "actual": result[key]})
        if key == "thrown_in" and claimed[key]:
            return


def _compare_match(engine, claims: Claims, rules, variant: dict, start: dict, played: list, claimed: dict,
                   outcome: GameOutcome) -> None:
    """The match over the hands played, asked of an engine that answers `match`, against the
    log's rules; the log's own `claimed` winner and scores must be the rules' (else the log is
    not a clean game)."""
    expected = run_match(rules, start, played)
    for key in ("scores", "winner"):
        if key in claimed and claimed[key] != expected[key]:
            raise _LogUnusable(f"$.claimed.{key}: the log claims {json.dumps(claimed[key])}, its rules give "
                               f"{json.dumps(expected[key])}")
    if "match" not in claims.commands:
        outcome.not_compared.append("the match (command match not claimed)")
        return
    produced = produced_keys(claims.hello, "match")
    keys = [k for k in ("scores", "winner", "ended_after") if produced is None or k in produced]
    if not keys:
        outcome.not_compared.append("the match (no key of it produced)")
        return
    try:
        answer = engine.ask("match", variant=variant, start=dict(start), hands=played)["match"]
    except Skipped as exc:   # (the hands were compared: only the match is left out)
        outcome.not_compared.append(f"the match (skipped by the engine: {exc})")
        return
    match_ids = {name: step_id for name, step_id, _ in rules.match}
    for key in keys:
        got = answer.get(key) if isinstance(answer, dict) else None
        if got != expected[key]:
            step = match_ids.get({"scores": "new_scores", "ended_after": "ended"}.get(key, key))
            raise _Diverged({"path": f"$.claimed.{key}", "kind": "match", "rule": step,
                             "message": f"$.claimed.{key}: after {len(played)} hands the engine's match gives "
                                        f"{json.dumps(got)}, the log's rules {json.dumps(expected[key])} (step {step})",
                             "expected": expected[key], "actual": got})


def _describe(event: dict) -> str:
    return f"{event.get('seat')} {event.get('type')} " + " ".join(str(event[k]) for k in ("call", "suit", "card") if k in event)


def _show(text: str) -> str:
    action = json.loads(text)
    words = [action.get("type", "?")] + [str(action[k]) for k in ("call", "suit", "card") if k in action]
    if action.get("closed"):
        words.append("closed")
    return " ".join(words)


# ---- the command line: baloot conformance games ----------------------------------------------------
class UsageProblem(Exception):
    """Bad command-line input for `conformance games`; the CLI prints it and exits 2."""


def command(args) -> int:
    """`baloot conformance games`: print each game's verdict (and first divergence) and the totals;
    0 when every game agrees (or is not claimed), 1 when one diverges or errs, 2 on bad usage."""
    import os
    import shlex
    import sys
    from ..resources import conformance_dir
    engine = args.engine or f"{shlex.quote(sys.executable)} -m baloot_spec.conformance.serve"
    try:
        argv = shlex.split(engine, posix=(os.name == "posix"))
    except ValueError as exc:
        raise UsageProblem(f"--engine {engine!r}: {exc}") from None
    if not argv:
        raise UsageProblem("--engine takes the command that starts the engine")
    if not args.timeout > 0:
        raise UsageProblem(f"--timeout takes a number of seconds above 0, not {args.timeout}")
    if args.json_out and args.json_out != "-" and not os.path.isdir(os.path.dirname(os.path.abspath(args.json_out))):
        raise UsageProblem(f"--json {args.json_out}: the folder does not exist")
    sources = args.paths or [str(conformance_dir() / "games")]
    try:
        outcomes, hello = run_games(sources, argv, args.timeout, (args.setup,) if args.setup else None)
    except EngineFailure as exc:
        raise UsageProblem(f"the engine {engine!r} cannot be used: {exc.message}") from None
    if not outcomes:
        raise UsageProblem(f"no game log under {' '.join(sources)}")
    for outcome in outcomes:
        if outcome.status in (DIVERGES, ERROR):
            rule = (outcome.divergence or {}).get("rule")
            print(f"{outcome.status.upper()} {outcome.game}: {outcome.message}" + (f" [rule {rule}]" if rule else ""))
        elif not args.quiet:
            print(f"{outcome.status.upper()} {outcome.game}: {outcome.hands} hands, {outcome.steps} steps"
                  + (f" ({outcome.message})" if outcome.message else ""))
    count = {s: sum(o.status == s for o in outcomes) for s in (AGREES, DIVERGES, ERROR, UNSUPPORTED)}
    steps, hands = sum(o.steps for o in outcomes), sum(o.hands for o in outcomes)
    unused = sorted({k for o in outcomes for k in o.not_compared})
    name = f"{hello['engine'].get('name', '?')} {hello['engine'].get('version', '')}".strip()
    print(f"games: {count[AGREES]} agree, {count[DIVERGES]} diverge, {count[ERROR]} errors, {count[UNSUPPORTED]} unsupported "
          f"of {len(outcomes)} games ({hands} hands, {steps} steps compared; {name})"
          + (f"; not compared: {', '.join(unused)}" if unused else ""))
    if args.json_out:
        text = json.dumps({"engine": hello["engine"], "games": [o.as_json() for o in outcomes], "totals": count}, indent=1) + "\n"
        if args.json_out == "-":
            sys.stdout.write(text)
        else:
            try:
                with open(args.json_out, "w", encoding="utf-8") as handle:
                    handle.write(text)
            except OSError as exc:
                raise UsageProblem(f"--json: cannot write {args.json_out}: {exc.strerror or exc}") from None
    return 1 if count[DIVERGES] or count[ERROR] else 0
