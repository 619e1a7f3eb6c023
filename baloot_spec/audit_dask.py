"""`baloot audit --dask`: the same audit, its documents read and checked by Dask workers.

The client only plans: it lists the input files (as `log/reader.py` does), cuts each JSON Lines
file into byte ranges (`jsonl_ranges.py`) and submits one task per range, and one per `.json`
file. A worker opens the path itself (a shared filesystem: nothing but the path goes through the
scheduler; a URL, s3:// or any other, through fsspec), audits every document of its range with the one-process code (`cli.logs._audit_item`, passed in)
and sends back the reports, their line numbers counted within the range. The client takes the
answers in input order, at most `window` tasks ahead of the first one it still waits for (its
memory does not grow with the input), adds to each line the lines owned by the earlier ranges,
and yields the reports exactly as the one-process reader would have produced them.

A task only reads: run twice (Dask runs again the tasks of a worker that died), it gives the
same answer, and each answer is taken once, by its key (the run, the file, the range).
A file that cannot be read (gone, unreadable, not UTF-8) gives the reports read before the
trouble, then one unreadable entry for the file, and the run goes on, as in one process. (One
difference: of a file that stops being UTF-8 part-way, one process reads the documents before
the 8 KB block the text decoder fails on, the cluster those before the bad line.)
"""

from __future__ import annotations

import os
import sys
import time
import uuid
from collections import deque
from pathlib import Path

from .errors import BalootError
from .jsonl_ranges import DEFAULT_RANGE_BYTES, RangeReadError, read_range, split

EXTRA_HINT = "pip install 'baloot-spec[dask]'"


class DaskUnavailable(BalootError):
    """--dask without dask.distributed installed (a usage error: exit 2)."""


def _distributed():
    try:
        import distributed
    except ImportError:
        raise DaskUnavailable(f"--dask needs dask.distributed, an optional extra: {EXTRA_HINT}") from None
    return distributed


# ---------------------------------------------------------------- planning (the client)

def plan(sources, range_bytes: int = DEFAULT_RANGE_BYTES) -> list[dict]:
    """The parts of the input, in the order the one-process reader reads it: for each file,
    {"file", "kind": "json"|"jsonl"|"missing", "start", "end", "index", "last"}."""
    parts = []
    for source in sources:
        if source == "-":
            raise BalootError("--dask reads files the workers open themselves: standard input ('-') cannot be split")
        if "://" in source:   # a URL fsspec opens (s3://, gs://, file://, ...): the workers open it too
            parts.extend(_plan_url(source, range_bytes))
            continue
        path = Path(source)
        if path.is_dir():
            files = sorted(p for p in path.rglob("*") if p.suffix in (".json", ".jsonl") and p.is_file())
        elif path.is_file():
            files = [path]
        else:
            parts.append({"file": str(path), "kind": "missing", "start": 0, "end": 0, "index": 0, "last": True})
            continue
        for file in files:
            name = str(file)
            if file.suffix != ".jsonl":
                parts.append({"file": name, "kind": "json", "start": 0, "end": 0, "index": 0, "last": True})
                continue
            try:
                size = file.stat().st_size
            except OSError:
                size = 0   # (the worker's read reports why)
            ranges = split(size, range_bytes)
            for index, (start, end) in enumerate(ranges):
                parts.append({"file": name, "kind": "jsonl", "start": start, "end": end, "index": index,
                              "last": index == len(ranges) - 1})
    return parts


def _plan_url(source: str, range_bytes: int) -> list[dict]:
    """The parts of a URL (a file, or a folder of .json/.jsonl files), listed with fsspec."""
    try:
        import fsspec
        fs, root = fsspec.core.url_to_fs(source)
        if fs.isdir(root):
            files = sorted(f for f in fs.find(root) if f.endswith((".json", ".jsonl")))
        elif fs.isfile(root):
            files = [root]
        else:
            return [{"file": source, "kind": "missing", "start": 0, "end": 0, "index": 0, "last": True}]
        sized = [(fs.unstrip_protocol(f), fs.size(f)) for f in files]
    except ImportError:
        raise BalootError(f"{source}: reading URLs needs fsspec ({EXTRA_HINT})") from None
    except (OSError, ValueError) as exc:
        return [{"file": source, "kind": "missing", "start": 0, "end": 0, "index": 0, "last": True, "why": f"cannot read: {exc}"}]
    parts = []
    for name, size in sized:
        if not name.endswith(".jsonl"):
            parts.append({"file": name, "kind": "json", "start": 0, "end": 0, "index": 0, "last": True})
            continue
        ranges = split(size or 0, range_bytes)
        parts.extend({"file": name, "kind": "jsonl", "start": start, "end": end, "index": k, "last": k == len(ranges) - 1}
                     for k, (start, end) in enumerate(ranges))
    return parts


def _opener(name: str, mode: str):
    """How a worker opens a part's file: a plain path, or a URL through fsspec."""
    if "://" in name:
        import fsspec
        return lambda: fsspec.open(name, mode, **({"encoding": "utf-8"} if mode == "r" else {}))
    return lambda: open(name, mode, **({"encoding": "utf-8"} if mode == "r" else {}))


def rules_key() -> dict:
    """What the client's rules are (rules_version and the digest of their content): a worker
    with other rules would give other findings."""
    from .rules.identity import read_version
    return read_version()


# ---------------------------------------------------------------- a task (a worker)

_CHECKED_RULES: set = set()   # the rules keys this worker process has checked its rules against


def audit_part(part: dict, override, key: dict, compact: bool, audit_one) -> dict:
    """Audit one part: {"reports": [...], "lines": lines owned, "error": reason or None,
    "fatal": message or None}. Never raises for bad input; reads only, so it can be run again.
    `compact`: the reports with nothing to say (no violation, error or note) are sent as one
    entry that counts them ("documents": n), as the client needs no more of them. `audit_one`
    is the one-process audit of a document (`cli.logs._audit_item`, sent by name)."""
    _audit_item = audit_one
    marker = repr(sorted(key.items()))
    if marker not in _CHECKED_RULES:
        mine = rules_key()
        if mine != key:
            return {"reports": [], "lines": 0, "error": None,
                    "fatal": f"worker {os.uname().nodename} pid {os.getpid()} has other rules ({mine}) than the client ({key})"}
        _CHECKED_RULES.add(marker)
    name, reports = part["file"], []
    if part["kind"] == "missing":
        return {"reports": [], "lines": 0, "error": part.get("why") or "no such file or directory", "fatal": None}
    if part["kind"] == "json":
        try:
            with _opener(name, "r")() as stream:
                text = stream.read()
        except UnicodeDecodeError as exc:
            return {"reports": [], "lines": 0, "error": f"not UTF-8 text: {exc.reason}", "fatal": None}
        except OSError as exc:
            return {"reports": [], "lines": 0, "error": f"cannot read: {exc.strerror or exc}", "fatal": None}
        reports = [_audit_item((name, None, text, None), override)]
        return {"reports": _compacted(name, reports) if compact else reports, "lines": 0, "error": None, "fatal": None}
    lines = read_range(_opener(name, "rb"), part["start"], part["end"])
    error = None
    try:
        while True:
            k, text = next(lines)
            reports.append(_audit_item((name, k, text, None), override))
    except StopIteration as stop:
        count = stop.value or 0
    except RangeReadError as exc:
        count, error = 0, exc.reason
    if compact:
        reports = _compacted(name, reports)
    return {"reports": reports, "lines": count, "error": error, "fatal": None}


def _compacted(name: str, reports: list) -> list:
    """The reports that say something, then one entry counting the clean ones (if any)."""
    kept = [r for r in reports if r["violations"] or r["errors"] or r["notes"]]
    clean = len(reports) - len(kept)
    if clean:
        kept.append({"file": name, "line": None, "documents": clean, "hands": sum(r["hands"] for r in reports) -
                     sum(r["hands"] for r in kept), "violations": [], "notes": [], "errors": []})
    return kept


# ---------------------------------------------------------------- running (the client)

def _shift(report: dict, base: int) -> dict:
    """A report of a range with its line numbers made the file's (base: lines of earlier ranges)."""
    if base and report.get("line"):
        report["line"] += base
        for entry in report["violations"]:
            if entry.get("line"):
                entry["line"] += base
        for entry in report["errors"]:
            if entry.get("line"):
                entry["line"] += base
    return report


def _unreadable(name: str, reason: str) -> dict:
    return {"file": name, "line": None, "hands": 0, "violations": [], "notes": [],
            "errors": [{"path": "$", "message": reason}]}


def connect(address: str):
    """A Client for `--dask ADDRESS` or `--dask local[:N]` (a LocalCluster of N worker processes,
    one thread each; N defaults to the core count); (client, cluster or None)."""
    distributed = _distributed()
    if address == "local" or address.startswith("local:"):
        count = address.partition(":")[2]
        if count and not (count.isdigit() and int(count) >= 1):
            raise BalootError(f"--dask local:N takes a whole number of workers of at least 1, not {count!r}")
        workers = int(count) if count else (os.cpu_count() or 1)
        import logging
        cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                           dashboard_address=":0", silence_logs=logging.ERROR)
        return distributed.Client(cluster), cluster
    try:
        return distributed.Client(address, timeout="10s"), None
    except (OSError, TimeoutError, ValueError) as exc:
        raise BalootError(f"cannot reach the Dask scheduler at {address}: {exc}") from None


def reports(sources, override, audit_one, address: str | None = None, client=None,
            range_bytes: int = DEFAULT_RANGE_BYTES, progress=None, window: int | None = None, compact: bool = False):
    """Yield every document's report, in input order, audited by the cluster at `address` (or by
    `client`, left open). `progress(hands, bytes_done, bytes_total)` is called as answers come.
    `compact`: clean documents come as entries that count them ("documents": n, see audit_part).
    `audit_one(item, override)`: the audit of one document, run by the workers."""
    parts = plan(sources, range_bytes)
    own = client is None
    cluster = None
    if own:
        client, cluster = connect(address)
    try:
        workers = max(1, len(client.scheduler_info().get("workers", {})))
        window = window or max(8, 4 * workers)
        key = rules_key()
        run = uuid.uuid4().hex[:12]
        total = sum(p["end"] - p["start"] for p in parts) or 1
        done_bytes = hands = 0
        pending = deque()
        todo = iter(enumerate(parts))
        base = 0            # lines owned by the earlier ranges of the current file
        skipping = None     # a file whose reading failed: its later ranges are not taken
        while True:
            while len(pending) < window:
                nxt = next(todo, None)
                if nxt is None:
                    break
                number, part = nxt
                future = client.submit(audit_part, part, override, key, compact, audit_one, pure=False,
                                       key=f"baloot-audit-{run}-{number}")
                pending.append((part, future))
            if not pending:
                break
            part, future = pending.popleft()
            try:
                answer = future.result()
            except Exception as exc:   # (a task the cluster gave up on: workers died again and again, ...)
                raise BalootError(f"the Dask cluster failed on {part['file']} bytes {part['start']}-{part['end']}: "
                                  f"{type(exc).__name__}: {exc}") from None
            future.release()
            if answer["fatal"]:
                raise BalootError(answer["fatal"])
            done_bytes += part["end"] - part["start"]
            if part["index"] == 0:
                base, skipping = 0, None
            if skipping == part["file"]:
                continue
            for report in answer["reports"]:
                hands += report["hands"]
                yield _shift(report, base)
            base += answer["lines"]
            if answer["error"]:
                skipping = part["file"]
                yield _unreadable(part["file"], answer["error"])
            if progress:
                progress(hands, done_bytes, total)
    finally:
        if own:
            client.close()
            if cluster is not None:
                cluster.close()


class RateProgress:
    """A progress line on stderr: hands, hands per second, share of the input's bytes, ETA (only
    on a terminal unless forced). Rates are counted from the first answer, so that the start of
    the cluster does not make the ETA of a long run too long."""

    def __init__(self, force: bool):
        self.enabled = force or sys.stderr.isatty()
        self.first = None   # (time, hands, bytes) at the first answer
        self.last = 0.0
        self.state = (0, 0, 1)

    def __call__(self, hands: int, done: int, total: int) -> None:
        self.state = (hands, done, total)
        now = time.monotonic()
        if self.first is None:
            self.first = (now, hands, done)
        if self.enabled and now - self.last >= 0.5:
            self.last = now
            print(f"\r{self._line(now)}", end="", file=sys.stderr, flush=True)

    def _line(self, now: float) -> str:
        hands, done, total = self.state
        since, hands0, done0 = self.first or (now, hands, done)
        elapsed = max(now - since, 1e-9)
        rate = (hands - hands0) / elapsed
        speed = (done - done0) / elapsed
        eta = f"ETA {(total - done) / speed:.0f} s" if speed > 0 and done < total else ("done" if done >= total else "ETA ?")
        return f"{hands} hands audited, {rate:.0f} hands/s, {100 * done / total:.0f}% of the input, {eta}   "

    def done(self) -> None:
        if self.enabled and self.first is not None:
            print(f"\r{self._line(time.monotonic())}", file=sys.stderr)
