"""Byte ranges of a JSON Lines file, each read on its own (by a worker on another machine).

A file of size S is cut at offsets 0 = b0 < b1 < ... < bn = S. Range [s, e) owns the lines that
*start* in (s, e] (in [0, e] for the first range): it skips to just after the first newline at
or after s (unless s is 0), and reads on to the end of the line that crosses e. Every line is
so owned by exactly one range, never cut in half, whatever the offsets, and a worker reads only
its own bytes plus the rest of one line. Line numbers are counted within the range; the caller
adds the lines owned by the earlier ranges (each range reports how many it owns), so no worker
needs to read the file from its start.

Lines are read as `open(..., encoding="utf-8")` reads them in `log/reader.py` (universal
newlines: "\\r\\n" and a lone "\\r" end a line too), so that the documents and their line numbers
are the same as in one process.
"""

from __future__ import annotations

DEFAULT_RANGE_BYTES = 4 << 20   # 4 MiB: ~2500 hands, about a second of a worker's time


def split(size: int, range_bytes: int = DEFAULT_RANGE_BYTES) -> list[tuple[int, int]]:
    """The ranges [start, end) that cover a file of `size` bytes (one empty range if empty)."""
    range_bytes = max(1, int(range_bytes))
    if size <= 0:
        return [(0, 0)]
    return [(start, min(start + range_bytes, size)) for start in range(0, size, range_bytes)]


class RangeReadError(Exception):
    """The range could not be read to its end: `lines` documents were read before; `reason`
    is what `log/reader.py` says of such a file ('not UTF-8 text: ...', 'cannot read: ...')."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def read_range(opener, start: int, end: int):
    """Yield (k, text) for each line the range [start, end) owns (k from 1 within the range,
    text stripped, blank lines skipped but counted); then return the count of lines it owns.

    `opener()` gives a binary file object (a plain `open(path, "rb")` or an fsspec file).
    Raises RangeReadError (after the lines read so far) if the file cannot be read or decoded."""
    count = 0
    try:
        with opener() as stream:
            if start > 0:
                stream.seek(start)
                stream.readline()   # the line that crosses `start` belongs to the range before
                position = stream.tell()
            else:
                position = 0
            while position <= end:
                raw = stream.readline()
                if not raw:
                    break
                position += len(raw)
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise RangeReadError(f"not UTF-8 text: {exc.reason}") from None
                for part in _universal_lines(text):
                    count += 1
                    part = part.strip()
                    if part:
                        yield count, part
    except OSError as exc:
        raise RangeReadError(f"cannot read: {exc.strerror or exc}") from None
    return count


def _universal_lines(text: str) -> list[str]:
    """The lines of one newline-ended piece as text mode reads them ('\\r' and '\\r\\n' end a line)."""
    if "\r" not in text:
        return [text]
    parts = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if parts and parts[-1] == "":
        parts.pop()
    return parts
