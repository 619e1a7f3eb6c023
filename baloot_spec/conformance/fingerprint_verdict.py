"""A knob's verdict at the variant a fingerprint found (fingerprint.py, module docstring step
3): matched, none of them, or not testable, decided by the knob's telling witnesses only, and
never on cases that two knobs changed together explain as well (_joint_explanation). `ref` is
the fingerprint's Reference (its answers under a variant, memoised)."""

from __future__ import annotations

import json

from .corpus import Case
from .fingerprint_ask import Asked
from .fingerprint_report import MATCHED, NONE_OF_THEM, NOT_TESTABLE, show_value as _show


def verdict(name: str, knobs: dict, group: list[Case], listed: list[Case], asked: Asked, ref,
             witnesses: dict | None = None) -> dict:
    """One knob's verdict at the final variant (module docstring, step 3)."""
    current = knobs[name]
    tried = {}
    for value in ref.values(name, current):
        trial = dict(knobs, **{name: value})
        if value == current or not ref.refused(trial):
            tried[json.dumps(value)] = trial
    answers = {c.id: {text: ref.answer(c, t, *asked.how(c)) for text, t in tried.items()} for c in group}
    # a moot answer (the position given is not one of that variant's) neither tells nor rules out
    informative = [c for c in group
                   if len({asked.answers[c.id].seen(a) for a in answers[c.id].values() if not asked.answers[c.id].neutral(a)}) > 1]
    if not informative:
        if not listed:
            reason = "no case of the corpus depends on it"
        elif not group:
            reason = f"the engine answered none of its {len(listed)} witnesses ({why_unanswered(listed, asked)})"
        else:
            reason = f"none of the {len(group)} witnesses the engine answered tells its values apart under this variant"
            moot = sorted({_show(json.loads(text)) for c in group for text, a in answers[c.id].items() if a.moot})
            if moot:
                reason += (f" (under {name} = {', '.join(moot)} the positions the engine was given are not that "
                           "variant's: a position fixes what they would show)")
        return {"status": NOT_TESTABLE, "value_assumed": current, "reason": reason, "witnesses": []}
    # each witness is judged on the keys the knob's values change (another departure may spoil the rest)
    telling = {c.id: asked.answers[c.id].telling_keys([a for a in answers[c.id].values() if not asked.answers[c.id].neutral(a)])
               for c in informative}

    def fits(case: Case, text: str) -> bool:
        return _fits(asked.answers[case.id], answers[case.id][text], telling[case.id])

    agree = {text: all(fits(c, text) for c in informative) for text in tried}
    consistent = [json.loads(text) for text, ok in agree.items() if ok]
    if not consistent:
        departures = [c.id for c in informative if not fits(c, json.dumps(current))]
        return {"status": NONE_OF_THEM, "closest": current, "departures": departures,
                "reason": f"no value of {name} agrees with all of its {len(informative)} telling witnesses; "
                          f"closest {_show(current)}, which {len(departures)} of them contradict",
                "witnesses": [c.id for c in informative]}
    if len(consistent) > 1:
        return {"status": NOT_TESTABLE, "value_assumed": current if current in consistent else consistent[0],
                "candidates": consistent, "reason": f"its witnesses agree with each of {', '.join(map(_show, consistent))}",
                "witnesses": [c.id for c in informative]}
    value = consistent[0]       # (the current value, unless a search cut short by its limits left it elsewhere)
    mine = json.dumps(value)
    other = _joint_explanation(name, value, knobs, informative, telling, asked, ref, witnesses or {})
    if other is not None:
        return {"status": NOT_TESTABLE, "value_assumed": value, "candidates": [value, other[0]],
                "reason": f"its witnesses agree with {name} = {_show(other[0])} as well, with "
                          f"{other[1]} = {_show(other[2])} (knobs acting together: these cases cannot tell)",
                "witnesses": [c.id for c in informative]}
    rules_out = {text: [c.id for c in informative if not fits(c, text)] for text in tried if text != mine}
    return {"status": MATCHED, "value": value, "witnesses": sorted({i for ids in rules_out.values() for i in ids}),
            "rules_out": rules_out}


def _joint_explanation(name: str, value, knobs: dict, informative: list[Case], telling: dict, asked: Asked, ref,
                       witnesses: dict):
    """Another value u of the knob that its witnesses agree with once a second knob L, one they
    depend on, changes too (to w), losing no agreement among L's own witnesses: then these cases
    do not tell the knob's value (issue 23: no value reported on a case another knob's value could
    explain). -> (u, L, w), or None when every other value stays ruled out."""
    related = [k for k in ref.names if k != name and any(k in (c.depends_on or ()) for c in informative)]
    for u in ref.values(name, value):
        if u == value:
            continue
        for other in related:
            for w in ref.values(other, knobs[other]):
                trial = dict(knobs, **{name: u, other: w})
                if w == knobs[other] or ref.refused(trial):
                    continue
                if not all(_fits(asked.answers[c.id], ref.answer(c, trial, *asked.how(c)), telling[c.id])
                           for c in informative):
                    continue
                if all(not asked.answers[c.id].agrees(ref.answer(c, knobs, *asked.how(c)))
                       or asked.answers[c.id].agrees(ref.answer(c, trial, *asked.how(c)))
                       for c in witnesses.get(other, ())):
                    return u, other, w
    return None


def _fits(engine_answer, answer, keys) -> bool:
    return engine_answer.neutral(answer) or engine_answer.agrees(answer, keys)


def why_unanswered(listed: list[Case], asked: Asked) -> str:
    reasons = [asked.not_answered.get(c.id, "not asked") for c in listed]
    first = max(sorted(set(reasons)), key=reasons.count)   # (sorted: the same reason on every run)
    return first if len(first) <= 160 else first[:first.rfind(" ", 0, 159)] + " ..."

