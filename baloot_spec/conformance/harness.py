"""Run the corpus against an engine: the built-in one in process, or any program over the protocol.

Through the protocol each case kind is asked the same question as `runner.run_case` asks the
built-in engine (the legal set after the setup events, the rule refusing an event, the hand
result, the scoring of facts, the projects of hands, the course of a match) and compared the
same way, so both paths give the same verdict for the same answers. Cases outside the engine's
claims (hello) are `unsupported` without being sent; every misbehaviour of the engine is an
`error` for the case at hand, and the engine is restarted before the next one.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from dataclasses import dataclass, field, replace
from functools import lru_cache

from .. import __version__
from ..errors import BalootError
from .capabilities import produced_keys, unproduced
from .console import show_item
from .corpus import Case
from .positions import POSITION_KINDS, entry_of, run_case_from_position, setup_form
from .process import EngineFailure, EngineProcess
from .protocol import KIND_COMMANDS, PROTOCOL, ProtocolError, check_response
from .runner import ERROR, FAIL, Outcome, canonical_action, compared_outcome, difference, norm_card, run_case
from .status import NOT_APPLICABLE, SKIPPED, UNSUPPORTED
from .target import Target, case_for, run_for, target_of, why_not_applicable  # noqa: F401 (Target, target_of: this module's API)

BUILTIN = {"name": "baloot-spec built-in engine", "version": __version__}
HELLO_TIMEOUT = 10.0    # at least this long for the first answer: a JVM or a first compile starts slowly
TEAMS = ("NS", "EW")


class EngineUnavailable(Exception):
    """The engine cannot be started or does not complete the handshake: no case can run."""


# ---- what an engine claims -----------------------------------------------------------------------
@dataclass(frozen=True)
class Claims:
    """What an engine's hello says it implements; a case needing anything else is unsupported."""

    engine: dict
    presets: frozenset = frozenset()
    knobs: dict = field(default_factory=dict)
    features: frozenset = frozenset()
    commands: frozenset = frozenset()
    overlays: frozenset = frozenset()
    everything: bool = False
    hello: dict | None = None
    setups: frozenset = frozenset({"events"})   # how new_hand may give a hand (PROTOCOL.md, Setup forms)

    @classmethod
    def from_hello(cls, hello: dict) -> "Claims":
        return cls(engine=dict(hello["engine"]), presets=frozenset(hello["presets"]), knobs=dict(hello["knobs"]),
                   features=frozenset(hello["features"]), commands=frozenset(hello["commands"]),
                   overlays=frozenset(hello.get("overlays") or ()),
                   setups=frozenset(hello.get("setups") or ("events",)), hello=hello)

    def unclaimed(self, commands, variant: dict) -> list[str]:
        """The commands and the parts of a variant (preset, knob values, overlays) not claimed."""
        out = [f"command {c}" for c in commands if c not in self.commands]
        preset = variant.get("preset", "default")
        if preset not in self.presets:
            out.append(f"preset {preset}")
        for knob, value in (variant.get("set") or {}).items():
            values = self.knobs.get(knob)
            if values != "any" and not any(_same(value, v) for v in values or ()):
                out.append(f"knob {knob}={json.dumps(value)}")
        out += [f"overlay {o}" for o in variant.get("overlays") or () if o not in self.overlays]
        return out

    def missing(self, case: Case) -> list[str]:
        """What the case needs that the engine did not claim (empty: the case is run)."""
        if self.everything:
            return []
        variant = case.data["variant"]
        if case.kind not in KIND_COMMANDS:
            return [f"case kind {case.kind} (not in {PROTOCOL})"]
        out = self.unclaimed(KIND_COMMANDS[case.kind], variant)
        out += [f"feature {f}" for f in case.features if f not in self.features]
        keys = unproduced(self.hello, case.kind, case.data["expect"])
        if keys:
            out.append(keys)
        if case.kind in KIND_COMMANDS and "new_hand" in KIND_COMMANDS[case.kind] and setup_form(case, self.setups) is None:
            out.append("setup form events (this case has no position)" if entry_of(case) is None else "setup form events or position")
        return out


def _same(a, b) -> bool:
    return json.dumps(a) == json.dumps(b)


# ---- an engine process with its handshake and restarts -------------------------------------------
class ProtocolEngine:
    """An engine program: started on demand, greeted, restarted between cases after a failure."""

    def __init__(self, argv: list[str], timeout: float = 10.0, cwd: str | None = None,
                 hello_timeout: float | None = None):
        self.argv = list(argv)
        self.timeout = timeout
        self.hello_timeout = max(timeout, HELLO_TIMEOUT) if hello_timeout is None else hello_timeout
        self.cwd = cwd
        self.process: EngineProcess | None = None
        self.hello: dict | None = None
        self.starts = 0
        self._start_failures = 0
        self._dead: str | None = None
        self.setups = None    # the setup forms this run may send (None: any the engine accepts)

    @property
    def restarts(self) -> int:
        return max(0, self.starts - 1)

    def start(self) -> dict:
        """Start the program and exchange hello; EngineFailure if either goes wrong."""
        self.starts += 1
        process = EngineProcess(self.argv, self.timeout, self.cwd)
        process.start()
        try:
            hello = process.request({"cmd": "hello", "protocol": PROTOCOL,
                                     "harness": {"name": "baloot-spec", "version": __version__}},
                                    timeout=self.hello_timeout)
            if "skipped" in hello or "errored" in hello:
                raise EngineFailure("hello", f"the engine refused hello: {json.dumps(hello)[:300]}")
            try:
                check_response("hello", hello)
            except ProtocolError as exc:
                raise EngineFailure("hello", str(exc)) from None
        except EngineFailure as exc:
            exc.stderr = exc.stderr or process.stderr_tail(since_mark=False)
            process.kill()
            raise
        self.process = process
        self.hello = hello
        return hello

    def begin_case(self) -> None:
        """Make sure a healthy engine is running before a case (restarting it if it is not)."""
        if self.process is not None and self.process.alive:
            self.process.set_mark()
            return
        if self.process is not None:
            self.process.kill()
            self.process = None
        if self._dead:
            raise EngineFailure("start", self._dead)
        try:
            self.start()
        except EngineFailure as exc:
            self._start_failures += 1
            if self._start_failures >= 2:
                self._dead = f"the engine could not be restarted ({exc.message}); no further attempts"
            exc.message = f"restarting the engine failed: {exc.message}"
            raise
        self._start_failures = 0
        self.process.set_mark()

    def ask(self, cmd: str, **fields) -> dict:
        """One request of the current case; Skipped / Errored / ProtocolError / EngineFailure."""
        if self.process is None:
            raise EngineFailure("exited", "the engine is not running")
        try:
            response = self.process.request({"cmd": cmd, **fields})
        except EngineFailure:
            self.process.kill()             # out of step or gone: restart before the next case
            self.process = None
            raise
        check_response(cmd, response)
        if "skipped" in response:
            raise Skipped(response["skipped"])
        if "errored" in response:
            raise Errored(response["errored"])
        return response

    def stderr_tail(self) -> str:
        return self.process.stderr_tail() if self.process is not None else ""

    def close(self) -> None:
        if self.process is not None:
            self.process.close()
            self.process = None


class Skipped(Exception):
    """The engine answered `skipped`: it does not implement what the case needs."""


class Errored(Exception):
    """The engine answered `errored`: it failed while answering."""


class SetupRefused(Exception):
    """The engine refused an event of the case's setup (the case cannot be run: error)."""

    def __init__(self, message: str, index: int | None = None):
        super().__init__(message)
        self.index = index     # which setup event (None: not an event)


# ---- one case through the protocol ---------------------------------------------------------------
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


def _start_hand(engine: ProtocolEngine, case: Case) -> None:
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
    results = _apply(engine, events)
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


def _apply(engine: ProtocolEngine, events: list) -> list:
    results = engine.ask("apply", events=events)["results"]
    if len(results) > len(events):
        raise ProtocolError(f"apply answered {len(results)} results for {len(events)} events")
    if any(not r["accepted"] for r in results[:-1]):
        raise ProtocolError("apply went on after a refused event (it must stop at the first refusal)")
    return results


def _query(engine: ProtocolEngine, what: list, required: tuple = ()) -> dict:
    """The answer to a query; a key asked for but left out is unsupported (not an error), except
    those `required` to run the case at all."""
    response = engine.ask("query", what=what)
    for key in required:
        if key not in response:
            raise ProtocolError(f"the query response has no {key!r} (asked for {', '.join(what)})")
    return response


def _legal(engine, case):
    _start_hand(engine, case)
    expect = case.data["expect"]
    produced = produced_keys(engine.hello, "legal")
    what = [k for k in ("turn", "legal", "phase") if k in expect and (produced is None or k in produced)]
    answer = _query(engine, what)
    actual = {k: answer[k] for k in what if k in answer}
    if "legal" in actual:
        actual["legal"] = sorted(canonical_action(a) for a in actual["legal"])
    expected = {"turn": expect["turn"], "legal": sorted(canonical_action(a) for a in expect["legal"])}
    if "phase" in expect:
        expected["phase"] = expect["phase"]
    return expected, actual


def _reject(engine, case):
    _start_hand(engine, case)
    results = _apply(engine, [case.data["action"]])
    if not results:
        raise ProtocolError("apply answered no result for one event")
    result = results[0]
    actual = ({"reject": result["rule"], "message": result.get("message", "")} if not result["accepted"]
              else {"reject": None, "message": "accepted"})
    return {"reject": case.data["expect"]["reject"]}, actual


def _hand(engine, case):
    _start_hand(engine, case)
    answer = _query(engine, ["result", "turn", "phase"], required=("result",))
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


# ---- a whole run ----------------------------------------------------------------------------------
@dataclass
class Run:
    """The outcomes of a run (in corpus order) and who produced them."""

    outcomes: list
    engine: dict
    claims: dict | None = None
    command: list | None = None
    restarts: int = 0
    seconds: float = 0.0


def case_variant_hash(case: Case) -> str:
    variant = case.data["variant"]
    return _variant_hash(variant.get("preset", "default"), tuple(sorted((variant.get("set") or {}).items())),
                         tuple(variant.get("overlays") or ()))


@lru_cache(maxsize=None)
def _variant_hash(preset: str, sets: tuple, overlays: tuple) -> str:
    from ..rules import load_variant
    return load_variant(preset, dict(sets), list(overlays)).hash


def applicability(case: Case, target: Target | None, claims: Claims) -> Outcome | None:
    """The outcome of a case that is not run (not applicable, unsupported), or None to run it."""
    if target is not None and target.knobs is not None and case.depends_on is not None:
        why = why_not_applicable(case, target)
        if why is not None:
            return Outcome(case, NOT_APPLICABLE, why)
    elif target is not None:
        try:
            applies = case_variant_hash(case) == target.hash
        except BalootError:
            applies = False
        if not applies:
            variant = case.data["variant"]
            written = variant.get("preset", "default") + "".join(f" {k}={v}" for k, v in (variant.get("set") or {}).items())
            return Outcome(case, NOT_APPLICABLE, f"written for {written}, not {target.label}")
    missing = claims.missing(case_for(case, target))
    if missing:
        return Outcome(case, UNSUPPORTED, "not claimed by the engine: " + "; ".join(missing))
    return None


def run_in_process(cases: list, preset: Target | None = None, progress=None, setups=("events",)) -> Run:
    """Every case against the built-in engine, in this process (the reference verdicts); with
    setups=("position",) each hand case from its position (conformance/positions.json)."""
    started = time.perf_counter()
    everything = Claims(engine=BUILTIN, everything=True)
    outcomes = []
    for number, case in enumerate(cases, 1):
        outcome = applicability(case, preset, everything)
        form = setup_form(case, setups) if case.kind in POSITION_KINDS else "events"
        if outcome is None and form is None:
            outcome = Outcome(case, UNSUPPORTED, "not given in the setup forms asked for: this case has no position")
        if outcome is None:
            began = time.perf_counter()
            outcome = run_for(case, preset) if form == "events" else run_case_from_position(case_for(case, preset))
            outcome.details["seconds"] = time.perf_counter() - began
            if outcome.status == FAIL:
                outcome.message = describe_difference(case, outcome.expected, outcome.actual, outcome.keys)
        outcomes.append(outcome)
        if progress:
            progress(number, len(cases), outcome)
    return Run(outcomes, dict(BUILTIN), seconds=time.perf_counter() - started)


def run_engine(cases: list, argv: list[str], preset: Target | None = None, timeout: float = 10.0,
               jobs: int = 1, progress=None, cwd: str | None = None, chunk: int = 40,
               hello_timeout: float | None = None, setups=None) -> Run:
    """Every case against an engine program over the protocol, with `jobs` engine processes;
    `setups` (e.g. ("events",)) restricts the setup forms sent to those the engine also accepts.

    EngineUnavailable when the first engine cannot be started or greeted."""
    started = time.perf_counter()
    first = ProtocolEngine(argv, timeout, cwd, hello_timeout)
    first.setups = setups
    try:
        hello = first.start()
    except EngineFailure as exc:
        tail = f"\n--- engine stderr ---\n{exc.stderr.rstrip()}" if exc.stderr else ""
        raise EngineUnavailable(f"{exc.message}{tail}") from None
    claims = Claims.from_hello(hello)
    if setups is not None:
        claims = replace(claims, setups=claims.setups & frozenset(setups))
    outcomes: list = [None] * len(cases)
    todo: dict[str, list[int]] = {}
    done = [0]
    lock = threading.Lock()

    def finished(index: int, outcome: Outcome) -> None:
        with lock:
            outcomes[index] = outcome
            done[0] += 1
            if progress:
                progress(done[0], len(cases), outcome)

    for index, case in enumerate(cases):
        outcome = applicability(case, preset, claims)
        if outcome is not None:
            finished(index, outcome)
        else:  # grouped by variant: an engine process meets each variant in one stretch
            todo.setdefault(json.dumps(variant_of(case_for(case, preset)), sort_keys=True), []).append(index)
    work: queue.Queue = queue.Queue()
    for indices in todo.values():
        for at in range(0, len(indices), chunk):
            work.put(indices[at:at + chunk])
    engines = [first] + [ProtocolEngine(argv, timeout, cwd, hello_timeout) for _ in range(max(1, jobs) - 1)]
    for engine in engines:
        engine.setups = setups

    def worker(engine: ProtocolEngine) -> None:
        try:
            while True:
                try:
                    indices = work.get_nowait()
                except queue.Empty:
                    return
                for index in indices:
                    began = time.perf_counter()
                    try:
                        outcome = drive_case(engine, case_for(cases[index], preset))
                    except Exception as exc:  # a harness bug must not lose the run
                        outcome = Outcome(cases[index], ERROR, f"harness error: {type(exc).__name__}: {exc}")
                    outcome.details["seconds"] = time.perf_counter() - began
                    finished(index, outcome)
        finally:
            engine.close()

    threads = [threading.Thread(target=worker, args=(engine,), daemon=True) for engine in engines]
    for thread in threads:
        thread.start()
    try:
        for thread in threads:
            thread.join()
    except BaseException:      # Ctrl-C: the engines run in their own sessions and would outlive us
        for engine in engines:
            if engine.process is not None:
                engine.process.kill()
        raise
    return Run(outcomes, dict(claims.engine), claims=_claims_json(hello), command=list(argv),
               restarts=sum(e.restarts for e in engines), seconds=time.perf_counter() - started)


def _claims_json(hello: dict) -> dict:
    return {k: hello.get(k) for k in ("protocol", "presets", "knobs", "features", "commands", "overlays", "setups") if k in hello}
