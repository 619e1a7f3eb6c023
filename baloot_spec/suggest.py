"""Did-you-mean: the one helper every "unknown X" message uses to name the likely intended one."""

from __future__ import annotations

import difflib


def close_matches(word: object, choices, n: int = 3) -> list[str]:
    """The known names closest to `word` (difflib's ratio, at least 0.6), best first."""
    known = [str(choice) for choice in choices]
    return difflib.get_close_matches(str(word), known, n=n, cutoff=0.6)


def did_you_mean(word: object, choices, n: int = 3) -> str:
    """' (did you mean 'x'?)' or ' (did you mean 'x' or 'y'?)', or '' when nothing is close."""
    found = close_matches(word, choices, n)
    if not found:
        return ""
    names = [repr(name) for name in found]
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
    return f" (did you mean {listed}?)"
