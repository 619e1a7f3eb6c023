"""An engine subprocess spoken to in JSON lines, which can never hang or flood the harness.

Third-party engines crash, hang, print garbage, answer out of order or write megabytes on a line.
Two reader threads drain stdout (split into bounded lines) and stderr (kept as a bounded tail)
whatever the engine does, and every wait for a response has a deadline. Any misbehaviour becomes
an EngineFailure saying what happened, with the stderr tail; the caller decides to restart.
"""

from __future__ import annotations

import json
import os
import queue
import select
import signal
import subprocess
import threading
import time

from .protocol import ProtocolError, decode, encode

MAX_LINE = 1 << 20          # a longer response line is a protocol violation (1 MiB)
STDERR_KEEP = 64 * 1024     # bytes of stderr kept in memory
TAIL = 2000                 # characters of stderr shown with a failure


class EngineFailure(Exception):
    """The engine did not answer a request properly; `kind` is one of:
    start, exited, timeout, garbage, oversized, wrong-seq."""

    def __init__(self, kind: str, message: str, stderr: str = ""):
        self.kind = kind
        self.message = message
        self.stderr = stderr
        super().__init__(message)


class EngineProcess:
    """One running engine: send a request, get its response (or an EngineFailure)."""

    def __init__(self, argv: list[str], timeout: float, cwd: str | None = None, max_line: int = MAX_LINE):
        self.argv = list(argv)
        self.timeout = timeout
        self.cwd = cwd
        self.max_line = max_line
        self.proc: subprocess.Popen | None = None
        self._lines: queue.Queue = queue.Queue()
        self._stderr = bytearray()
        self._stderr_total = 0
        self._stderr_lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._seq = -1
        self.mark = 0

    # ---- lifecycle ------------------------------------------------------------------------------
    def start(self) -> None:
        try:
            self.proc = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                cwd=self.cwd, bufsize=0, start_new_session=(os.name == "posix"))
        except OSError as exc:
            raise EngineFailure("start", f"cannot start {self.argv[0]!r}: {exc.strerror or exc}") from None
        if os.name == "posix":
            os.set_blocking(self.proc.stdin.fileno(), False)   # (writes wait in select, bounded: _send)
        self._lines = queue.Queue()
        self._threads = [threading.Thread(target=self._read_stdout, args=(self.proc.stdout, self._lines), daemon=True),
                         threading.Thread(target=self._read_stderr, args=(self.proc.stderr,), daemon=True)]
        for thread in self._threads:
            thread.start()

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """End the engine now (its whole process group on POSIX) and reap it."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        # The whole process group, even when the engine itself has exited: a child it started
        # (a shell's command, a worker) would otherwise outlive the run, holding its pipes.
        try:
            if os.name == "posix":
                os.killpg(proc.pid, signal.SIGKILL)
            elif proc.poll() is None:
                proc.kill()
        except (ProcessLookupError, PermissionError, OSError):
            pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for thread in self._threads:        # they drain the pipes to the end once the engine is gone
            thread.join(timeout=1)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            try:
                stream.close()
            except OSError:
                pass

    def close(self, grace: float = 2.0) -> None:
        """Ask the engine to stop, give it a moment to exit, then make sure it is gone."""
        if self.alive:
            try:
                self.request({"cmd": "stop"}, timeout=min(grace, self.timeout))
            except EngineFailure:
                pass
            deadline = time.monotonic() + grace
            while self.alive and time.monotonic() < deadline:
                time.sleep(0.01)
        self.kill()

    # ---- talking --------------------------------------------------------------------------------
    def request(self, message: dict, timeout: float | None = None) -> dict:
        """Send one request (a fresh `seq` is set) and return its response."""
        if self.proc is None:
            raise EngineFailure("exited", "the engine is not running")
        self._seq += 1
        message = {"seq": self._seq, **{k: v for k, v in message.items() if k != "seq"}}
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        self._send(encode(message), message["cmd"], deadline, self.timeout if timeout is None else timeout)
        while True:
            remaining = deadline - time.monotonic()
            try:
                kind, payload = self._lines.get(timeout=max(0.0, remaining))
            except queue.Empty:
                raise self._failure("timeout", f"no response to {message['cmd']} (seq {self._seq}) within "
                                               f"{self.timeout if timeout is None else timeout:g} s") from None
            if kind == "eof":
                raise self._exited(f"the engine exited before answering {message['cmd']} (seq {self._seq})")
            if kind == "oversized":
                raise self._failure("oversized", f"a response line longer than {self.max_line} bytes "
                                                 f"(answering {message['cmd']})")
            if not payload.strip():
                continue                            # blank lines are tolerated
            try:
                response = decode(payload)
            except ProtocolError as exc:
                raise self._failure("garbage", f"answering {message['cmd']}: {exc}") from None
            if response.get("seq") != self._seq or isinstance(response.get("seq"), bool):
                raise self._failure("wrong-seq", f"a response with seq {json_text(response.get('seq'))} to "
                                                 f"{message['cmd']} (seq {self._seq})")
            return response

    def _send(self, data: bytes, cmd: str, deadline: float, seconds: float) -> None:
        """Write a request within the deadline: an engine that never reads its input fills the
        pipe, and a blocking write would wait for it for ever (--timeout covers writes too)."""
        if os.name != "posix":   # (no select on pipes: a plain write)
            try:
                self.proc.stdin.write(data)
                self.proc.stdin.flush()
                return
            except (OSError, ValueError):
                raise self._exited(f"the engine stopped reading its input (sending {cmd})") from None
        fd = self.proc.stdin.fileno()
        view = memoryview(data)
        try:
            while view:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise self._failure("timeout", f"the engine did not read the {cmd} request within {seconds:g} s")
                _, writable, _ = select.select([], [fd], [], remaining)
                if not writable:
                    continue
                try:
                    written = os.write(fd, view[:65536])
                except BlockingIOError:
                    continue
                view = view[written:]
        except (BrokenPipeError, ConnectionResetError, ValueError):
            raise self._exited(f"the engine stopped reading its input (sending {cmd})") from None
        except OSError as exc:
            raise self._exited(f"the engine stopped reading its input (sending {cmd}: {exc.strerror or exc})") from None

    def stderr_tail(self, since_mark: bool = True, limit: int = TAIL) -> str:
        """The end of what the engine wrote on stderr (since the last `set_mark` by default)."""
        with self._stderr_lock:
            new = self._stderr_total - self.mark if since_mark else len(self._stderr)
            data = bytes(self._stderr[-min(max(new, 0), len(self._stderr)):]) if new > 0 else b""
        text = data.decode("utf-8", errors="replace")
        return text if len(text) <= limit else "..." + text[-limit:]

    def set_mark(self) -> None:
        """Remember where stderr is now: later tails show only what follows (one case's output)."""
        with self._stderr_lock:
            self.mark = self._stderr_total

    def _failure(self, kind: str, message: str) -> EngineFailure:
        """The engine is out of step: end it, so that its stderr is complete, and say what happened."""
        self.kill()
        return EngineFailure(kind, message, self.stderr_tail())

    def _exited(self, message: str) -> EngineFailure:
        code = None
        if self.proc is not None:
            try:
                code = self.proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                code = None
        for thread in self._threads[1:]:
            thread.join(timeout=1)          # the stderr tail is complete once the pipe is closed
        if code is not None:
            message += f" (exit code {code})" if code >= 0 else f" (killed by signal {-code})"
        return EngineFailure("exited", message, self.stderr_tail())

    # ---- reader threads -------------------------------------------------------------------------
    def _read_stdout(self, stream, lines: queue.Queue) -> None:
        buffer = bytearray()
        dropping = False
        try:
            while True:
                chunk = stream.read1(65536) if hasattr(stream, "read1") else os.read(stream.fileno(), 65536)
                if not chunk:
                    break
                start = 0
                while True:
                    end = chunk.find(b"\n", start)
                    piece = chunk[start:] if end < 0 else chunk[start:end]
                    if not dropping:
                        buffer += piece
                        if len(buffer) > self.max_line:
                            lines.put(("oversized", None))
                            buffer.clear()
                            dropping = True
                    if end < 0:
                        break
                    if not dropping:
                        lines.put(("line", bytes(buffer)))
                    buffer.clear()
                    dropping = False
                    start = end + 1
        except (OSError, ValueError):
            pass
        if buffer and not dropping:
            lines.put(("line", bytes(buffer)))
        lines.put(("eof", None))

    def _read_stderr(self, stream) -> None:
        try:
            while True:
                chunk = stream.read1(65536) if hasattr(stream, "read1") else os.read(stream.fileno(), 65536)
                if not chunk:
                    break
                with self._stderr_lock:
                    self._stderr += chunk
                    self._stderr_total += len(chunk)
                    if len(self._stderr) > STDERR_KEEP:
                        del self._stderr[:len(self._stderr) - STDERR_KEEP]
        except (OSError, ValueError):
            pass


def json_text(value) -> str:
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)
