"""windows, flatten and index, the list builtins, against their plain definitions.

The builtins take fast paths (a list is not copied, a window as long as the list needs no
comprehension); what they answer, and what they refuse, must stay the plain definitions'.
"""

import random

import pytest

from baloot_spec.expr.builtins import _flatten, _index, _windows


def plain_windows(xs, n):
    xs = list(xs)
    return [xs[i:i + n] for i in range(len(xs) - n + 1)] if n > 0 else []


def plain_flatten(xss):
    return [x for xs in xss for x in xs]


def plain_index(xs, x):
    try:
        return list(xs).index(x)
    except ValueError:
        return -1


@pytest.mark.parametrize("seed", range(4))
def test_the_same_answers_as_the_plain_definitions(seed):
    rng = random.Random(seed)
    for _ in range(2000):
        items = [rng.randrange(6) for _ in range(rng.randrange(9))]
        kind = rng.choice(["list", "tuple", "text", "map"])
        xs = {"list": items, "tuple": tuple(items), "text": "".join(map(str, items)),
              "map": dict.fromkeys(items, 1)}[kind]
        n = rng.randrange(-2, 10)
        assert _windows(xs, n) == plain_windows(xs, n)
        x = str(rng.randrange(7)) if kind == "text" else rng.randrange(7)
        assert _index(xs, x) == plain_index(xs, x)
        xss = [items[:k] for k in range(rng.randrange(5))]
        assert _flatten(xss) == plain_flatten(xss)


def test_a_window_is_never_the_list_itself():
    xs = [1, 2, 3]
    (whole,) = _windows(xs, 3)
    assert whole == xs and whole is not xs
    whole.append(4)
    assert xs == [1, 2, 3]


@pytest.mark.parametrize("call", [lambda: _windows(None, 2), lambda: _windows(3, 1), lambda: _flatten([None]),
                                  lambda: _flatten(None), lambda: _index(None, 1), lambda: _windows([1], "2")])
def test_what_is_not_a_list_is_still_refused(call):
    with pytest.raises(TypeError):
        call()
