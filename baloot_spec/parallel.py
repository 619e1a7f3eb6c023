"""An ordered map over worker processes, driven by one thread of the parent.

`audit --jobs N` used `multiprocessing.Pool.imap`. Its worker-handler thread waits on the result
pipe as well as on the workers (CPython's design since bpo-35493): while a result waits to be
read it wakes again and again (about 1300 times in an audit of 3000 hands), checks every worker,
and contends for the parent's GIL with the thread that reads the result. On two cores that
parent is a third busy process beside the two workers: it used 0.15 s of CPU in that audit, and
0.11 s with this pool (most of it the imports before the workers are forked).

Here the parent is one thread. Each worker has a pipe for chunks of items and one for its
answers; the parent keeps at most `in_flight` chunks per worker, writes chunks without blocking
(a chunk larger than the pipe is written as the worker reads it, while the parent serves the
others), and yields the answers in input order. Memory is bounded: no chunk is given out more
than `ahead` chunks past the first one not yet yielded.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
import select
import signal
import struct
import sys
from itertools import islice

from .errors import BalootError


class WorkerDied(BalootError):
    """A worker process ended without answering (killed, out of memory): the run cannot go on."""


def start_method() -> str:
    """fork where there is one (Linux): a worker starts with the modules and compiled rules the
    parent already has, instead of importing and compiling again (spawn elsewhere)."""
    return "fork" if "fork" in multiprocessing.get_all_start_methods() and sys.platform.startswith("linux") else "spawn"


def _die_with_parent(parent: int) -> None:
    """Linux: this process is killed when the parent that forked it dies, however it dies
    (SIGKILL included); elsewhere the pipe's end of input stops the worker."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)   # PR_SET_PDEATHSIG
    except (OSError, AttributeError, TypeError):
        pass
    if os.getppid() != parent:   # (the parent died before prctl took effect)
        os._exit(1)


def _serve(chunks, answers, fn, extra, parent=None, others=()) -> None:
    """A worker: answer each chunk with [fn(item, extra) ...] until told to stop (None) or the
    parent goes away. An exception is sent back whole, for the parent to raise. Ctrl-C is the
    parent's to handle (it stops the workers): a worker ignores it, so it prints no traceback.
    `others`: the parent's ends of this worker's pipes and of the earlier workers', which a
    forked worker inherits and closes (holding them, no worker would see the end of its input
    when the parent is gone)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if parent is not None and sys.platform.startswith("linux"):
        _die_with_parent(parent)
    for fd in others:
        try:
            os.close(fd)
        except OSError:
            pass
    while True:
        try:
            chunk = chunks.recv()
        except (EOFError, OSError):
            return
        if chunk is None:
            return
        try:
            answer = (True, [fn(item, extra) for item in chunk])
        except BaseException as exc:   # (re-raised in the parent, as Pool.imap did)
            answer = (False, exc)
        try:
            answers.send(answer)
        except Exception as exc:   # an answer (or an exception) that cannot be pickled
            answers.send((False, RuntimeError(f"a worker's answer could not be sent: {type(exc).__name__}: {exc}")))


def _frame(obj) -> bytes:
    """`obj` as Connection.send writes it (so that Connection.recv reads it in the worker)."""
    payload = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    if len(payload) > 0x7fffffff:
        return struct.pack("!i", -1) + struct.pack("!Q", len(payload)) + payload
    return struct.pack("!i", len(payload)) + payload


def _widen(fd: int) -> None:
    """Let a pipe hold a whole chunk or two (Linux: 64 KB by default, 1 MB allowed): a worker then
    reads its next chunk at once instead of waiting while the parent refills the pipe."""
    try:
        import fcntl
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
    except (ImportError, AttributeError, OSError):   # (not Linux, or above the system's limit)
        pass


_PIPE_BYTES = 1 << 20


class _Worker:
    __slots__ = ("process", "chunks", "answers", "held", "unsent")

    def __init__(self, context, fn, extra, others=()):
        chunks_in, self.chunks = context.Pipe(duplex=False)
        self.answers, answers_out = context.Pipe(duplex=False)
        forked = context.get_start_method() == "fork"
        self.process = context.Process(target=_serve, daemon=True, args=(
            chunks_in, answers_out, fn, extra, os.getpid(),
            tuple(fd for w in others for fd in (w.chunks.fileno(), w.answers.fileno()))
            + (self.chunks.fileno(), self.answers.fileno()) if forked else ()))
        self.process.start()
        chunks_in.close()
        answers_out.close()
        os.set_blocking(self.chunks.fileno(), False)
        _widen(self.chunks.fileno())
        self.held = []                  # the numbers of the chunks it was given and has not answered, in order
        self.unsent = memoryview(b"")   # the end of the last chunk's frame, not yet written (a view: no copy)

    def write(self) -> None:
        try:
            written = os.write(self.chunks.fileno(), self.unsent)
        except BlockingIOError:
            return
        except (BrokenPipeError, OSError):
            raise self.died() from None
        self.unsent = self.unsent[written:]

    def died(self) -> WorkerDied:
        self.process.join(1)
        return WorkerDied(f"a worker process stopped without answering (exit code {self.process.exitcode})")


def ordered_map(fn, items, jobs: int, chunk: int, extra=None, in_flight: int = 2, ahead: int | None = None):
    """Yield fn(item, extra) for every item, in order, computed by `jobs` worker processes.

    `fn` must be a module-level function (a spawned worker imports it by name). Chunks of
    `chunk` items go to whichever worker holds the fewest, at most `in_flight` each; an answer
    is held back until every earlier one has been yielded, and no chunk is given out more than
    `ahead` chunks (default 4 x jobs) past the first one not yet yielded, so that a slow chunk
    cannot make the answers waiting behind it grow without end. POSIX only (non-blocking pipes)."""
    ahead = 4 * jobs if ahead is None else ahead
    context = multiprocessing.get_context(start_method())
    workers: list[_Worker] = []
    frozen = start_method() == "fork" and gc.get_freeze_count() == 0   # (a caller's own freeze is left as it is)
    if frozen:
        # A forked worker shares the parent's pages until it writes to them, and the cyclic
        # GC writes to every object it examines: frozen, the parent's objects (the compiled
        # rules, the modules) are never examined, so the workers copy fewer pages (an audit of
        # 3000 hands, --jobs 2: 0.71 -> 0.695 s, median of 8 alternating runs).
        gc.freeze()
    try:
        for _ in range(jobs):
            workers.append(_Worker(context, fn, extra, list(workers)))
        source = iter(items)
        sent = done = 0          # chunks given out; chunks yielded
        ready: dict = {}         # chunk number -> its answers, waiting for an earlier chunk
        exhausted = False
        while True:
            # The answers that can be yielded first, then chunks given out: the other way round, a
            # fill stopped by `ahead` just before the answers that free it are yielded left no
            # chunk out and no chunk to give, and select() on no pipe waited for ever (a slow
            # first chunk whose later ones were all answered: tests/test_parallel.py).
            while done in ready:
                yield from ready.pop(done)
                done += 1
            while not exhausted:   # give every worker up to in_flight chunks, the least loaded first
                worker = min(workers, key=lambda w: (len(w.held), bool(w.unsent)))
                if len(worker.held) >= in_flight or worker.unsent or sent - done >= ahead:
                    break
                part = list(islice(source, chunk))
                if not part:
                    exhausted = True
                    break
                worker.unsent = memoryview(_frame(part))
                worker.held.append(sent)
                sent += 1
                worker.write()
            if exhausted and done == sent:
                return
            waiting = {w.answers.fileno(): w for w in workers if w.held}
            writing = {w.chunks.fileno(): w for w in workers if w.unsent}
            if not waiting and not writing:   # (cannot happen: chunk `done` is held or being written)
                raise RuntimeError(f"ordered_map: no chunk out, {sent - done} not yielded")
            readable, writable, _ = select.select(list(waiting), list(writing), [])
            for fd in writable:
                writing[fd].write()
            for fd in readable:
                worker = waiting[fd]
                try:
                    ok, answer = worker.answers.recv()
                except (EOFError, OSError):
                    raise worker.died() from None
                if not ok:
                    raise answer
                ready[worker.held.pop(0)] = answer
    finally:
        for worker in workers:
            # Told to stop in so many words: a worker forked later holds a copy of this pipe's
            # end, so closing it here is no end of input for the worker.
            if not worker.unsent:
                worker.unsent = memoryview(_frame(None))
                try:
                    worker.write()
                except WorkerDied:
                    pass
            worker.chunks.close()
            worker.answers.close()
        for worker in workers:
            worker.process.join(1)
            if worker.process.is_alive():
                worker.process.terminate()
                worker.process.join()
        if frozen:
            gc.unfreeze()   # (the parent's objects are collected as before from here on)
