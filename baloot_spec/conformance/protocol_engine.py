"""An engine program over baloot-protocol/1: what its hello claims (Claims), the process with its
handshake and restarts (ProtocolEngine), and the answers that end a case early (Skipped,
Errored, SetupRefused). Used by the corpus run (harness.py, drive.py), the game replays
(games.py) and perft over the protocol (perft_engine.py)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from .. import __version__
from .capabilities import unproduced
from .corpus import Case
from .positions import entry_of, setup_form
from .process import EngineFailure, EngineProcess
from .protocol import KIND_COMMANDS, PROTOCOL, ProtocolError, check_response

HELLO_TIMEOUT = 10.0    # at least this long for the first answer: a JVM or a first compile starts slowly


class EngineUnavailable(Exception):
    """The engine cannot be started or does not complete the handshake: no case can run."""


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
            raise Errored(response["errored"], cmd)
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
    """The engine answered `errored`: it failed while answering (args: its context, the command)."""

    @property
    def cmd(self) -> str | None:
        return self.args[1] if len(self.args) > 1 else None


class SetupRefused(Exception):
    """The engine refused an event of the case's setup (the case cannot be run: error)."""

    def __init__(self, message: str, index: int | None = None):
        super().__init__(message)
        self.index = index     # which setup event (None: not an event)
