"""The one input policy: how big, how deep and how long anything a user gives us may be.

Every reader (logs, rules files, overlays, presets, params, case files, expected-failures files,
an engine's replies) enforces these limits and reports a breach as a located error (exit 2; for
an engine's reply, an `errored` case), never as a traceback, never with unbounded time or memory.
README.md ("Input limits") states the same numbers; tests/test_hostile_*.py checks each one.
"""

from __future__ import annotations

import json

MAX_RULES_FILE_BYTES = 512 * 1024         # one rules, params, preset or overlay file (the largest is 15 kB)
MAX_JSON_FILE_BYTES = 64 * 1024 * 1024     # one case file, expected-failures file or whole .json log
MAX_LOG_LINE_BYTES = 16 * 1024 * 1024      # one JSON Lines document (a 300-hand match is about 0.7 MB)
MAX_NESTING = 50                           # containers inside containers, in YAML and JSON
MAX_INT_DIGITS = 100                       # digits of an integer literal (YAML, JSON; logs: see the schema)
MAX_EXPRESSION_CHARS = 4000                # one rule expression (the longest is 508)
MAX_EXPRESSION_DEPTH = 40                  # operators nested in one expression (the deepest is about 12)
MAX_SECONDS_PER_HAND = 10.0               # rule evaluation per hand (a hand takes about 0.3 ms): budget.py
MAX_JOBS_PER_CORE = 1                      # --jobs is capped at the core count


class InputLimitError(ValueError):
    """Input that breaks the policy or is not valid JSON: the message and, where known, the
    1-based line and column of the problem."""

    def __init__(self, message: str, line: int = 0, column: int = 0):
        super().__init__(message)
        self.message, self.line, self.column = message, line, column


def _pairs(pairs):
    """An object with every key once (JSON allows duplicates; readers disagree on which wins)."""
    result = dict(pairs)
    if len(result) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise InputLimitError(f"duplicate key {key!r}")
            seen.add(key)
    return result


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise InputLimitError(f"an integer of {len(text.lstrip('-'))} digits (at most {MAX_INT_DIGITS})")
    return int(text)


def _constant(name: str):
    raise InputLimitError(f"{name} is not JSON")


def loads(text: str, max_bytes: int = MAX_JSON_FILE_BYTES, check_depth: bool = True, strict_ints: bool = True,
          check_duplicates: bool = True):
    """Parse JSON under the policy: size, duplicate keys, NaN/Infinity, integer length and (with
    `check_depth`) nesting. InputLimitError (located where JSON says) for anything wrong.

    A log's documents are read with `strict_ints` and `check_depth` off (they are the hot path of
    `audit`): there Python's own limits apply (an integer over 4,300 digits, nesting deeper than
    its recursion limit: both an InputLimitError here), and the log schema bounds the integers
    and the shape of a valid document."""
    if len(text) > max_bytes:
        raise InputLimitError(f"{len(text)} characters, more than the limit of {max_bytes}")
    hooks = {"parse_constant": _constant}
    if check_duplicates:   # (a Python call per object: 7% of auditing a one-hand log, by callgrind)
        hooks["object_pairs_hook"] = _pairs
    if strict_ints:
        hooks["parse_int"] = _int
    try:
        value = json.loads(text, **hooks)
    except json.JSONDecodeError as exc:
        raise InputLimitError(f"not valid JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except RecursionError:
        raise InputLimitError(f"not valid JSON: nested too deeply (more than {MAX_NESTING} levels)") from None
    except InputLimitError as exc:
        if "integer" in exc.message:
            raise InputLimitError(exc.message, *_long_number(text)) from None
        if exc.message.startswith("duplicate key"):
            raise InputLimitError(exc.message, *_duplicate_key(text)) from None
        raise
    except ValueError as exc:   # (Python's own 4,300-digit limit on int())
        raise InputLimitError(f"not valid JSON: {_short(exc)}", *_long_number(text)) from None
    if check_depth:
        depth = nesting(value)
        if depth > MAX_NESTING:
            raise InputLimitError(f"nested {depth} levels deep (at most {MAX_NESTING})")
    return value


def _duplicate_key(text: str) -> tuple[int, int]:
    """(line, column) of the first key given twice in one object of `text` (JSON that parsed but
    for that), else (0, 0). Only on the error path: the hook that finds the duplicate cannot know
    where it is. One pass, strings read by json's own scanner."""
    from json.decoder import scanstring
    stack = []          # per open container: None for an array, [keys, expecting a key] for an object
    i, end = 0, len(text)
    while i < end:
        c = text[i]
        if c == "{":
            stack.append([set(), True])
        elif c == "[":
            stack.append(None)
        elif c in "]}":
            if stack:
                stack.pop()
        elif c == "," and stack and stack[-1] is not None:
            stack[-1][1] = True
        elif c == '"':
            try:
                value, after = scanstring(text, i + 1)
            except ValueError:
                return 0, 0
            top = stack[-1] if stack else None
            if top is not None and top[1]:
                if value in top[0]:
                    line = text.count("\n", 0, i) + 1
                    return line, i - (text.rfind("\n", 0, i) + 1) + 1
                top[0].add(value)
                top[1] = False
            i = after
            continue
        i += 1
    return 0, 0


def _long_number(text: str) -> tuple[int, int]:
    """(line, column) of the first run of more than MAX_INT_DIGITS digits in `text`, else (0, 0)."""
    import re
    found = re.search(r"[0-9]{%d}" % (MAX_INT_DIGITS + 1), text)
    if not found:
        return 0, 0
    line = text.count("\n", 0, found.start()) + 1
    return line, found.start() - (text.rfind("\n", 0, found.start()) + 1) + 1


def nesting(value) -> int:
    """How many containers deep `value` goes (0 for a scalar); iterative, so never RecursionError."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        deepest = max(deepest, depth)
        if depth > MAX_NESTING:
            return depth
        stack.extend((child, depth + 1) for child in children)
    return deepest


def _short(exc: Exception) -> str:
    text = str(exc)
    return text if len(text) <= 200 else text[:200] + "..."


def check_timeout(value: float, option: str = "--timeout") -> float:
    """A timeout the harness can represent: a finite number of seconds above 0 and at most a day."""
    import math
    if not isinstance(value, (int, float)) or isinstance(value, bool) or math.isnan(value) or not 0 < value <= 86400:
        raise ValueError(f"{option} takes a number of seconds above 0 and at most 86400, not {value}")
    return float(value)


def capped_jobs(jobs: int) -> tuple[int, str | None]:
    """`jobs` capped at the machine's core count, and the note to print when it was capped."""
    import os
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    limit = max(1, cores * MAX_JOBS_PER_CORE)
    if jobs > limit:
        return limit, f"--jobs {jobs} is more than the {cores} cores of this machine: using {limit}"
    return jobs, None
