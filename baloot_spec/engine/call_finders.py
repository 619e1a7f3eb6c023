"""A call event's candidate found by its parameters' values, one dict probe a parameter.

The general lookup (`by_signature`, engine/candidates.py) builds a signature per event, three
new tuples (type, values, the values' types), hashes them, types included, and compares the
equal key tuple element by element (`_Py_dict_lookup` -> `PyObject_RichCompareBool`): the calls'
largest share of mispredicted branches a hand (tools/BENCHMARKS.md, step 108). Where every
candidate of a call type has, at each parameter's place, a value of one exact type, the same
answer is one type test and one probe of a value-keyed dict a parameter: a value of another
type is no candidate (as a signature with another type is none), and within one exact type
equal values are the same key. Anything else (a parameter whose candidates' values are of
mixed types, three or more parameters) keeps the signature reader.
"""

from __future__ import annotations


def call_finder(names: tuple, defaults: tuple, candidates: list, reader, by_signature: dict):
    """event -> the candidate of this call type whose parameters it gives (a missing one is its
    default), or None: what `by_signature.get(reader(event))` answers, for an event whose values
    are hashable or not. `candidates` are (fields, action) of this type."""
    count = len(names)
    # (a candidate's fields read as the signature reads them: a parameter it leaves out is its default)
    candidates = [({name: fields.get(name, default) for name, default in zip(names, defaults)}, action)
                  for fields, action in candidates]
    kinds = [{type(fields[name]) for fields, _ in candidates} for name in names]
    if count > 2 or not candidates or any(len(k) != 1 for k in kinds):
        return lambda event: _by_signature(by_signature, reader, event)
    kinds = tuple(k.pop() for k in kinds)
    if count == 0:
        (_, only), = candidates

        def find_none(event):
            return only
        return find_none
    if count == 1:
        (name,), (default,), (kind,) = names, defaults, kinds
        index = {fields[name]: action for fields, action in candidates}

        def find_one(event):
            value = event.get(name, default)
            return index.get(value) if type(value) is kind else None
        return find_one
    (first, second), (first_default, second_default), (first_kind, second_kind) = names, defaults, kinds
    index = {}
    for fields, action in candidates:
        index.setdefault(fields[first], {})[fields[second]] = action
    empty = {}

    def find_two(event):
        one, two = event.get(first, first_default), event.get(second, second_default)
        if type(one) is first_kind and type(two) is second_kind:
            return index.get(one, empty).get(two)
        return None
    return find_two


def _by_signature(by_signature: dict, reader, event):
    """The general lookup: None for an unhashable value, as the judgement's fast path took it."""
    try:
        return by_signature.get(reader(event))
    except TypeError:
        return None
