"""Run the corpus against an engine: the built-in one in process, or any program over the protocol.

Through the protocol each case kind is asked the same question as `runner.run_case` asks the
built-in engine (the legal set after the setup events, the rule refusing an event, the hand
result, the scoring of facts, the projects of hands, the course of a match) and compared the
same way, so both paths give the same verdict for the same answers. Cases outside the engine's
claims (hello) are `unsupported` without being sent; every misbehaviour of the engine is an
`error` for the case at hand, and the engine is restarted before the next one.

This module runs the whole corpus (which cases apply, in process or over engine processes in
parallel); one case through the protocol is drive.py, the engine program itself
protocol_engine.py.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from dataclasses import dataclass, replace
from functools import lru_cache

from .. import __version__
from ..errors import BalootError
from .corpus import Case
from .drive import describe_difference, drive_case, variant_of
from .positions import POSITION_KINDS, run_case_from_position, setup_form
from .process import EngineFailure
from .protocol_engine import Claims, EngineUnavailable, ProtocolEngine
from .runner import ERROR, FAIL, Outcome
from .status import NOT_APPLICABLE, UNSUPPORTED
from .target import Target, case_for, run_for, target_of, why_not_applicable  # noqa: F401 (Target, target_of: this module's API)

# (Claims, EngineUnavailable, ProtocolEngine, drive_case: importable from here as before)
__all__ = ["BUILTIN", "Claims", "EngineUnavailable", "ProtocolEngine", "Run", "Target", "applicability",
           "case_variant_hash", "drive_case", "run_engine", "run_in_process", "target_of"]

BUILTIN = {"name": "baloot-spec built-in engine", "version": __version__}


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
