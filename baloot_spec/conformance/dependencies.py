"""Which knobs each case's expectation depends on (conformance/dependencies.json).

A case depends on a knob when giving that knob another value, on top of the case's own variant,
changes the reference engine's answer or makes the case unanswerable (its setup refused). Every
value of every choice and bool knob is tried; an integer knob (match_target) is tried at a few
telling values and its own value plus and minus one. A combination that the `constraints:` of
rules/params.yaml refuse is not tried.

Single-knob perturbations can miss an interaction (two knobs that change the answer only
together), so the perturbation step is followed by a closure over the presets: every case that
the dependencies declare applicable to a preset is run under that preset, and where its
expectation does not hold there, the knobs on which the preset differs from the case's own
variant and whose reversal restores it are added (all of them if no single one does). So, for
every preset, every case declared applicable is verified to hold under it.
"""

from __future__ import annotations

import hashlib
import json
import time

from ..resources import rules_dir
from ..errors import BalootError
from ..rules.constraints import check_constraints
from ..rules.loader import load_constraints, load_params, load_presets
from .corpus import Case, corpus_digest
from .retarget import answer_status, forget_rules, own_knobs, reference_answer, resolved, spec_of, try_resolved, variant_spec
from .runner import PASS

FORMAT = "baloot-dependencies/1"
COMMAND = "python tools/case_dependencies.py"
INT_PROBES = (1, 50, 100, 101, 151, 152, 300, 1000)


def rules_digest() -> str:
    """sha256 (16 hex digits) of every rules file but the documentation (*.md)."""
    root = rules_dir()
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and p.suffix != ".md" and "__pycache__" not in p.parts):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def probe_values(knob, own) -> list:
    """The values a knob is tried at, other than `own`."""
    if knob.type == "int":
        values = set(INT_PROBES) | {own - 1, own + 1}
        return sorted(v for v in values if knob.minimum <= v <= knob.maximum and v != own)
    return [v for v in knob.values if v != own]


def canonical_variant(knobs: dict, overlays: tuple = ()) -> dict:
    """The one variant spec used for a full knob assignment (every spec resolving to the same
    knobs and overlays has the same rules: compiled once, whichever case asks)."""
    params = load_params()
    return variant_spec("default", {k: v for k, v in knobs.items() if v != params[k].default}, list(overlays))


def refused(knobs: dict) -> bool:
    """Whether the constraints of rules/params.yaml refuse this combination of knob values."""
    try:
        check_constraints(knobs, load_constraints(), "a perturbed variant")
    except BalootError:
        return True
    return False


def perturbations(knobs: dict) -> list[tuple[str, object, dict]]:
    """(knob, value, knob values) for every single-knob change the constraints accept."""
    out = []
    for name, knob in load_params().items():
        for value in probe_values(knob, knobs[name]):
            moved = dict(knobs, **{name: value})
            if not refused(moved):
                out.append((name, value, moved))
    return out


def preset_variants() -> dict[str, dict]:
    return {name: variant_spec(name) for name in sorted(load_presets())}


def single_knob_dependencies(cases: list[Case], on_probe=None) -> dict[str, set]:
    """case id -> knobs whose single change (from the case's own variant) changes its answer.
    on_probe(case, knob, value, variant, status, answer) is called for every run (the oracle check).
    The runs are grouped by the resulting knob assignment, so each variant is compiled once."""
    work: dict[str, tuple[dict, list]] = {}
    found: dict[str, set] = {case.id: set() for case in cases}
    probes: dict[str, list] = {}
    for case in cases:
        own = try_resolved(case.data["variant"])
        if own is None:
            continue          # the case's own variant does not load: the corpus test reports it
        knobs, overlays = own
        own_key = json.dumps(sorted(knobs.items()), default=str)
        if own_key not in probes:
            probes[own_key] = perturbations(knobs)
        for knob, value, moved in probes[own_key]:
            key = json.dumps([sorted(moved.items()), list(overlays)], default=str)
            work.setdefault(key, (canonical_variant(moved, overlays), []))[1].append((case, knob, value))
    for number, (variant, items) in enumerate(work.values(), 1):
        for case, knob, value in items:
            status, answer, _why = reference_answer(case, variant)
            if status != PASS:
                found[case.id].add(knob)
            if on_probe:
                on_probe(case, knob, value, variant, status, answer)
        if number % 50 == 0:
            forget_rules()    # thousands of variants: keep the memory bounded
    forget_rules()
    return found


def applicable(case: Case, depends: set, knobs: dict, overlays: tuple) -> bool:
    own = try_resolved(case.data["variant"])
    return own is not None and own[1] == tuple(overlays) and all(own[0][k] == knobs[k] for k in depends)


def close_over_presets(cases: list[Case], found: dict[str, set], log=None) -> dict:
    """Run every case declared applicable to each preset under it; add the knobs that explain
    each failure (see the module docstring), until a whole pass adds nothing.
    -> {preset: {"applicable": count, "added": {case id: knobs}}}."""
    presets = {name: (variant, resolved(variant)) for name, variant in preset_variants().items()}
    added: dict[str, dict] = {name: {} for name in presets}
    changed = True
    while changed:
        changed = False
        for name, (variant, (knobs, overlays)) in presets.items():
            for case in cases:
                if not applicable(case, found[case.id], knobs, overlays) or answer_status(case, variant) == PASS:
                    continue
                own = own_knobs(case)
                differing = sorted(k for k in knobs if own[k] != knobs[k])
                culprits = [k for k in differing if _restores(case, name, k, own[k])]
                new = set(culprits or differing)
                found[case.id] |= new
                added[name][case.id] = sorted(new)
                changed = True
                if log:
                    log(f"interaction: {case.id} fails under {name}; it depends also on {', '.join(sorted(new))}")
    return {name: {"applicable": sum(applicable(c, found[c.id], knobs, overlays) for c in cases), "added": added[name]}
            for name, (variant, (knobs, overlays)) in presets.items()}


def _restores(case: Case, preset: str, knob: str, value) -> bool:
    back = variant_spec(preset, {knob: value})
    return try_resolved(back) is not None and answer_status(case, back) == PASS


def compute(cases: list[Case], on_probe=None, log=None) -> dict:
    """The dependencies document for `cases` (see the module docstring), with run figures."""
    started = time.perf_counter()
    found = single_knob_dependencies(cases, on_probe)
    closure = close_over_presets(cases, found, log)
    interactions: dict[str, set] = {}
    for info in closure.values():
        for case_id, knobs in info["added"].items():
            interactions.setdefault(case_id, set()).update(knobs)
    document = {
        "format": FORMAT,
        "generated_by": COMMAND,
        "rules": rules_digest(),
        "corpus": corpus_digest(cases),
        "presets": {name: info["applicable"] for name, info in closure.items()},
        "cases": {case.id: sorted(found[case.id]) for case in cases},
        "interactions": {case_id: sorted(knobs) for case_id, knobs in sorted(interactions.items())},
    }
    figures = {"seconds": round(time.perf_counter() - started, 1),
               "interactions": {name: info["added"] for name, info in closure.items() if info["added"]}}
    return {"document": document, "figures": figures}


def dump(document: dict) -> str:
    """The document as JSON with one line per case (small diffs when a case changes)."""
    lines = ["{"]
    items = list(document.items())
    for number, (key, value) in enumerate(items):
        comma = "," if number < len(items) - 1 else ""
        if isinstance(value, dict) and value and key in ("cases", "interactions", "presets"):
            inner = [f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in value.items()]
            lines.append(f" {json.dumps(key)}: {{\n" + ",\n".join(inner) + f"\n }}{comma}")
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value)}{comma}")
    return "\n".join(lines) + "\n}\n"


def stale_reasons(document: dict, cases: list[Case]) -> list[str]:
    """Why a stored dependencies document no longer describes the rules and the corpus."""
    out = []
    if document.get("format") != FORMAT:
        out.append(f"format is {document.get('format')!r}, not {FORMAT!r}")
    if document.get("rules") != rules_digest():
        out.append("the rules changed since it was computed")
    if document.get("corpus") != corpus_digest(cases):
        out.append("the corpus changed since it was computed")
    missing = [c.id for c in cases if c.id not in document.get("cases", {})]
    if missing:
        out.append(f"{len(missing)} cases are not listed (e.g. {missing[0]})")
    return out
