"""Output files written whole or not at all.

A command writing a report or a log writes it to a temporary file in the same folder and renames
it over the target only when everything is written: an interrupted run (Ctrl-C, a full disk, a
crash) leaves the old file as it was, never a half-written one in its place. A target that is not
a regular file (/dev/null, a FIFO, a terminal) is written directly.
"""

from __future__ import annotations

import os
import stat
import tempfile
from contextlib import contextmanager


@contextmanager
def atomic_write(path: str, encoding: str = "utf-8"):
    """A text stream for `path`; the file appears (replacing any old one) when the block ends
    without an exception, and not at all otherwise."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        with open(path, "w", encoding=encoding) as stream:
            yield stream
        return
    folder = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".partial")
    try:
        with os.fdopen(fd, "w", encoding=encoding) as stream:
            yield stream
        if mode is not None:
            os.chmod(temporary, stat.S_IMODE(mode))
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
