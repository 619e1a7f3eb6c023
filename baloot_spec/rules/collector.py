"""The cyclic garbage collector paused while rules are compiled.

Compiling a variant with no disk cache allocates some 150,000 objects that live until the
compile ends (YAML nodes, Lark trees, checked trees, generated `ast`): the collector, run every
700 allocations, examined them ~500 times in young collections, ~50 times in middle ones and
several times in full ones, about a sixth of `load_variant()`'s CPU time (step 107). They are
freed by reference counting as before; the few cycles among them (~15,000 objects, well under a
megabyte of a ~53 MB process) wait for the first collection after the compile. Pausing changes
no result, only when cycles are looked for. Paused where code is made: a variant resolved and
compiled; a phase specialised for a contract, all of it (its rules emitted again, its module's
functions lowered, passed and unparsed, the module compiled: step 109); a module's functions
made wherever that is. Never where the rules, or a specialised phase's code, are read back from
the disk cache: there is nothing to gain, and a process whose rules come from the cache keeps
its collections where they were. (The +0.5 % instructions a replayed hand first blamed on a
pause there was main moving under the measurement: tools/BENCHMARKS.md, step 107.) Not nested:
a caller that paused or disabled it keeps it so.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager


@contextmanager
def collector_paused():
    """`with collector_paused():` no automatic cyclic collection until the block ends."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
