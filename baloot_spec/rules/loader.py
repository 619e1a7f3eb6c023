"""Load the rules, the knobs, the presets and the overlays, and resolve one variant.

A variant is: the base rules (every `rules/*.yaml` but params.yaml), a preset's knob values (a
preset may extend another), `--set` overrides, and overlays that replace, add or remove items
by id. Everything is checked here (schemas, unique ids, known knobs with allowed values, overlay
ids that exist) and every problem is a RulesError with file and line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ..errors import Location, RulesError
from ..resources import rules_dir
from ..suggest import did_you_mean
from .identity import identity_hash, overlay_content, read_version
from .yamlpos import LocDict, load_yaml_file, load_yaml_text, read_text_file

LIST_SECTIONS = ("functions", "phases", "rules", "effects", "facts", "scoring", "match")
SINGLE_SECTIONS = ("table", "deck", "deal")
OPTIONAL_SINGLE_SECTIONS = ("position",)   # (rules without it have no positions: engine/position.py)
MAP_SECTIONS = ("constants", "state")
NOT_RULE_FILES = {"params.yaml"}


@lru_cache(maxsize=None)
def _schema(name: str) -> dict:
    return _schema_from_text(_schema_text(name), name)


def _schema_text(name: str) -> str:
    """A schema file of the rules folder (BALOOT_RULES_DIR may point at a copy someone edited)."""
    return read_text_file(rules_dir() / "schema" / name, f"rules/schema/{name}")


def _schema_from_text(text: str, name: str) -> dict:
    from ..limits import InputLimitError, loads
    try:
        schema = loads(text, check_depth=False)
    except InputLimitError as exc:
        raise RulesError(exc.message, Location(f"rules/schema/{name}", exc.line, exc.column)) from None
    if not isinstance(schema, dict):
        raise RulesError("a JSON Schema is a JSON object", Location(f"rules/schema/{name}", 1, 1))
    return schema


_CHECKED: dict = {}   # (file name, schema, the file's text, the schema's text) -> the checked document


def _checked_yaml(path: Path, display: str, schema_ref: str, what: str, mapping: bool = False):
    """A YAML file read, parsed and checked against `schema_ref` ("rules", or a $defs name of
    the variants schema), kept by its text and the schema's: resolving a variant reads every
    rules, params, preset and overlay file, and a corpus run resolves dozens of variants. The
    documents are shared, so nothing may change them in place (overlays make copies). With
    `mapping`, an empty file is None (skipped) and anything else but a mapping is an error."""
    text = read_text_file(path, display)
    schema_file = "rules.schema.json" if schema_ref == "rules" else "variants.schema.json"
    schema_text = _schema_text(schema_file)
    key = (display, schema_ref, what, text, schema_text)
    if key in _CHECKED:
        return _CHECKED[key]
    document = load_yaml_text(text, display)
    if mapping and document is None:
        return None
    if mapping and not isinstance(document, dict):
        raise RulesError("a rules file is a mapping of sections", Location(display, 1, 1))
    schema = _schema_from_text(schema_text, schema_file)
    validate(document, schema if schema_ref == "rules" else {"$ref": f"#/$defs/{schema_ref}", **schema}, display, what)
    _CHECKED[key] = document
    return document


def _locate(document, path) -> Location | None:
    """The location of the value at a JSON path inside a LocDict/LocList document."""
    node, location = document, getattr(document, "location", lambda: None)()
    for key in path:
        try:
            child = node[key]
        except (KeyError, IndexError, TypeError):
            break
        if isinstance(node, LocDict) and key in node.key_lines:
            location = node.key_location(key)
        node = child
        if hasattr(node, "location"):
            location = node.location()
    return location


def validate(document, schema: dict, file: str, what: str) -> None:
    """Check a loaded YAML document against a JSON Schema; the first error, located."""
    from .schema_check import surely_valid   # (a process whose rules come from the cache needs neither)
    if surely_valid(document, schema):   # (without importing jsonschema: rules/schema_check.py)
        return
    import jsonschema  # imported here: only a document with an error (or that check unsure of) needs it
    validator = jsonschema.Draft202012Validator(schema)
    try:
        errors = sorted(validator.iter_errors(document), key=lambda e: (len(list(e.absolute_path)), list(map(str, e.absolute_path))))
    except RecursionError:
        raise RulesError(f"{what} is nested too deeply to check", Location(file)) from None
    except Exception as exc:   # a schema file someone edited (BALOOT_RULES_DIR) that is not a usable schema
        raise RulesError(f"the schema cannot check the {what}: {type(exc).__name__}: {str(exc)[:200]}",
                         Location(file)) from None
    if not errors:
        return
    error = jsonschema.exceptions.best_match(errors)
    path = list(error.absolute_path)
    where = "/".join(str(p) for p in path) or "(top level)"
    item_id = None
    if len(path) >= 2 and isinstance(path[0], str) and isinstance(path[1], int):
        try:
            item_id = document[path[0]][path[1]].get("id")
        except (AttributeError, KeyError, IndexError, TypeError):
            item_id = None
    raise RulesError(f"{what} does not match its schema at {where}: {error.message}",
                     _locate(document, path) or Location(file), item_id)


@dataclass
class RuleSet:
    """The merged definitions of all rule files (before or after overlays)."""

    single: dict = field(default_factory=dict)
    maps: dict = field(default_factory=lambda: {name: {} for name in MAP_SECTIONS})
    lists: dict = field(default_factory=lambda: {name: [] for name in LIST_SECTIONS})
    files: list = field(default_factory=list)

    def items(self):
        for section in LIST_SECTIONS:
            for item in self.lists[section]:
                yield section, item

    def find(self, item_id: str):
        for section, item in self.items():
            if item["id"] == item_id:
                return section, item
        return None, None


def load_rule_files(directory: Path | None = None) -> RuleSet:
    """Read and merge every rules file in `directory` (default: the packaged rules/)."""
    directory = directory or rules_dir()
    merged = RuleSet()
    seen_ids: dict[str, Location] = {}
    seen_names: dict[tuple, Location] = {}
    for path in sorted(directory.glob("*.yaml")):
        if path.name in NOT_RULE_FILES:
            continue
        display = f"rules/{path.name}"
        document = _checked_yaml(path, display, "rules", "rules file", mapping=True)
        if document is None:
            continue
        merged.files.append(display)
        for section in SINGLE_SECTIONS + OPTIONAL_SINGLE_SECTIONS:
            if section in document:
                if section in merged.single:
                    raise RulesError(f"section {section!r} is defined twice", document.key_location(section))
                merged.single[section] = document[section]
        for section in MAP_SECTIONS:
            for name, value in document.get(section, {}).items():
                if name in merged.maps[section]:
                    raise RulesError(f"{section} {name!r} is defined twice", document[section].key_location(name))
                merged.maps[section][name] = value
        for section in LIST_SECTIONS:
            for item in document.get(section, []):
                _register(item, section, seen_ids, seen_names)
                merged.lists[section].append(item)
    for section in SINGLE_SECTIONS:
        if section not in merged.single:
            raise RulesError(f"no rules file defines the {section!r} section", Location("rules/"))
    return merged


def _register(item, section, seen_ids, seen_names) -> None:
    location = item.location() if hasattr(item, "location") else Location()
    item_id = item["id"]
    if item_id in seen_ids:
        raise RulesError(f"duplicate id {item_id!r} (first defined at {seen_ids[item_id]})", location, item_id)
    seen_ids[item_id] = location
    if "name" in item and section in ("functions", "phases", "facts", "scoring", "match"):
        key = (section, item["name"])
        if key in seen_names:
            raise RulesError(f"{section[:-1] if section.endswith('s') else section} name {item['name']!r} is defined twice (first at {seen_names[key]})", location, item_id)
        seen_names[key] = location


# ---- knobs --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Knob:
    name: str
    type: str
    default: object
    values: dict            # value -> {doc, source}; empty for int knobs
    doc: str
    source: object
    minimum: int | None = None
    maximum: int | None = None

    def check(self, value, location: Location | None = None, context: str = "") -> object:
        """The value if allowed for this knob; RulesError otherwise."""
        where = f" ({context})" if context else ""
        if self.type == "bool":
            if not isinstance(value, bool):
                raise RulesError(f"knob {self.name!r} is a bool (true or false), not {value!r}{where}", location)
            return value
        if self.type == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise RulesError(f"knob {self.name!r} is an integer, not {value!r}{where}", location)
            if not self.minimum <= value <= self.maximum:
                raise RulesError(f"knob {self.name!r} must be from {self.minimum} to {self.maximum}, not {value}{where}", location)
            return value
        if not isinstance(value, str) or value not in self.values:
            allowed = ", ".join(map(str, self.values))
            raise RulesError(f"knob {self.name!r} takes one of: {allowed}; not {value!r}{where}{did_you_mean(value, self.values)}", location)
        return str(value)

    def parse_text(self, text: str, location: Location | None = None) -> object:
        """A value given as text on the command line."""
        if self.type == "bool":
            lowered = text.strip().lower()
            if lowered not in ("true", "false"):
                raise RulesError(f"knob {self.name!r} is a bool (true or false), not {text!r}{did_you_mean(lowered, ['true', 'false'])}", location)
            return lowered == "true"
        if self.type == "int":
            try:
                return self.check(int(text), location)
            except ValueError:
                raise RulesError(f"knob {self.name!r} is an integer, not {text!r}", location) from None
        return self.check(text.strip(), location)


def _params_document(directory: Path | None = None):
    """rules/params.yaml, read and checked against its schema."""
    display = "rules/params.yaml"
    return _checked_yaml((directory or rules_dir()) / "params.yaml", display, "params", "params file")


def load_constraints(directory: Path | None = None, document=None) -> list:
    document = document if document is not None else _params_document(directory)
    return list(document.get("constraints") or [])


def load_params(directory: Path | None = None, document=None) -> dict[str, Knob]:
    document = document if document is not None else _params_document(directory)
    knobs = {}
    for name, spec in document["knobs"].items():
        values = {}
        for value, doc in spec.get("values", {}).items():
            values[value] = doc
        knob = Knob(name, spec["type"], spec["default"], values, spec.get("doc", ""), spec.get("source"),
                    spec.get("min"), spec.get("max"))
        if knob.type == "bool" and set(values) != {True, False}:
            raise RulesError(f"bool knob {name!r} must document the values true and false", document["knobs"].key_location(name))
        knob.check(knob.default, document["knobs"].key_location(name), "its default")
        knobs[name] = knob
    return knobs


# ---- presets and overlays -----------------------------------------------------------------------

def _documents(directory: Path, kind: str) -> dict[str, tuple[LocDict, str]]:
    found = {}
    if not directory.is_dir():
        return found
    for path in sorted(directory.glob("*.yaml")):
        display = f"rules/{directory.name}/{path.name}" if directory.parent == rules_dir() else str(path)
        document = _checked_yaml(path, display, kind, f"{kind} file")
        name = document[kind]
        if name != path.stem:
            raise RulesError(f"{kind} {name!r} must be in a file named {name}.yaml", document.key_location(kind))
        found[name] = (document, display)
    return found


def load_presets(extra_dirs: tuple = ()) -> dict[str, tuple[LocDict, str]]:
    presets = _documents(rules_dir() / "presets", "preset")
    for directory in extra_dirs:
        presets.update(_documents(Path(directory), "preset"))
    return presets


def load_overlay_file(path: Path) -> tuple[LocDict, str]:
    display = str(path)
    return _checked_yaml(path, display, "overlay", "overlay file"), display


def load_overlays() -> dict[str, tuple[LocDict, str]]:
    return _documents(rules_dir() / "overlays", "overlay")


# ---- resolution ---------------------------------------------------------------------------------

@dataclass
class Variant:
    """One fully resolved set of rules: knob values, overlays applied, and a stable hash."""

    preset: str
    knobs: dict
    overlays: list
    sets: dict
    ruleset: RuleSet
    params: dict
    sources: list
    overlay_contents: list = field(default_factory=list)   # what each overlay says (identity.py)
    rules_version: int = 1                                  # rules/version.json

    @property
    def hash(self) -> str:
        changed = {name: value for name, value in self.knobs.items() if value != self.params[name].default}
        return variant_hash(changed, self.overlay_contents, self.rules_version)

    def describe(self) -> dict:
        return {"preset": self.preset, "params": dict(sorted(self.knobs.items())), "set": dict(self.sets),
                "overlays": list(self.overlays), "rules_version": self.rules_version, "hash": self.hash}


def variant_hash(knobs: dict, overlays: list, rules_version: int | None = None) -> str:
    """sha256 of the canonical JSON {"rules_version": N, "knobs": {...}, "overlays": [contents]},
    first 16 hex digits, where knobs are those whose value differs from the default (so a new
    knob, added with its default, leaves every existing variant's hash as it was) and overlays
    are what each overlay says, not its name (identity.py).

    Two implementations that agree on this hash agree on the rules they claim to play.
    Without `rules_version`, the one of rules/version.json."""
    if rules_version is None:
        rules_version = read_version()["rules_version"]
    return identity_hash(knobs, overlays, rules_version)


def _preset_chain(name: str, presets: dict, location: Location | None) -> list:
    chain, seen = [], set()
    while name is not None:
        if name in seen:
            raise RulesError(f"preset {name!r} extends itself (through {' -> '.join(chain)})", location)
        if name not in presets:
            known = ", ".join(sorted(presets))
            raise RulesError(f"unknown preset {name!r}{did_you_mean(name, presets)} (known: {known})", location)
        seen.add(name)
        document, display = presets[name]
        chain.append(name)
        location = document.key_location("extends") if "extends" in document else document.location()
        name = document.get("extends")
    return list(reversed(chain))


def resolve_variant(preset: str = "default", sets: dict | None = None, overlays: list | None = None,
                    preset_dirs: tuple = ()) -> Variant:
    """Resolve a preset plus `--set` values (name -> value or text) and overlay names/paths."""
    params_document = _params_document()
    params = load_params(document=params_document)
    presets = load_presets(preset_dirs)
    chain = _preset_chain(preset, presets, Location("--preset"))
    values = {name: knob.default for name, knob in params.items()}
    overlay_names: list = []
    sources: list = []
    for name in chain:
        document, display = presets[name]
        sources.extend(document["sources"])
        for knob_name, value in document.get("set", {}).items():
            location = document["set"].key_location(knob_name)
            if knob_name not in params:
                raise RulesError(f"unknown knob {knob_name!r} in preset {name!r}{did_you_mean(knob_name, params)}", location)
            values[knob_name] = params[knob_name].check(value, location, f"preset {name}")
        overlay_names.extend(document.get("overlays", []))
    applied_sets = {}
    for knob_name, value in (sets or {}).items():
        if knob_name not in params:
            raise RulesError(f"unknown knob {knob_name!r}{did_you_mean(knob_name, params)} (see rules/params.yaml or `baloot rules check --json`)", Location("--set"))
        knob = params[knob_name]
        value = knob.parse_text(value, Location("--set")) if isinstance(value, str) and knob.type != "choice" else knob.check(value, Location("--set"))
        values[knob_name] = value
        applied_sets[knob_name] = value
    overlay_names.extend(overlays or [])
    from .constraints import check_constraints   # (the expression parser, only when a variant resolves)
    check_constraints(values, load_constraints(document=params_document), f"preset {chain[-1]}" + (f" with --set {', '.join(applied_sets)}" if applied_sets else ""))
    ruleset = load_rule_files()
    known_overlays = load_overlays()
    applied, contents = [], []
    for entry in overlay_names:
        path = Path(entry)
        if entry in known_overlays:
            document, display = known_overlays[entry]
        elif path.suffix in (".yaml", ".yml") and path.is_file():
            document, display = load_overlay_file(path)
        else:
            raise RulesError(f"unknown overlay {entry!r}{did_you_mean(entry, known_overlays)} (known: {', '.join(sorted(known_overlays)) or 'none'}; or give a .yaml path)", Location("overlays"))
        ruleset = apply_overlay(ruleset, document, display)
        applied.append(document["overlay"])
        contents.append(overlay_content(document))
    version = read_version()["rules_version"]
    return Variant(chain[-1], values, applied, applied_sets, ruleset, params, sources, contents, version)


def apply_overlay(ruleset: RuleSet, overlay: LocDict, display: str) -> RuleSet:
    """A copy of `ruleset` with the overlay's replacements, removals and additions."""
    result = RuleSet(dict(ruleset.single), {k: dict(v) for k, v in ruleset.maps.items()},
                     {k: list(v) for k, v in ruleset.lists.items()}, list(ruleset.files) + [display])
    schema = _schema("rules.schema.json")
    for item in overlay.get("replace", []):
        section, existing = result.find(item["id"])
        if existing is None:
            hint = did_you_mean(item["id"], [known["id"] for _, known in result.items()])
            raise RulesError(f"overlay replaces {item['id']!r}, which no rules file defines{hint}", item.location(), item["id"])
        validate({section: [item]}, schema, display, "overlay item")
        position = result.lists[section].index(existing)
        result.lists[section][position] = item
    for item_id in overlay.get("remove", []):
        section, existing = result.find(item_id)
        if existing is None:
            location = item_id.location() if hasattr(item_id, "location") else Location(display)
            hint = did_you_mean(item_id, [known["id"] for _, known in result.items()])
            raise RulesError(f"overlay removes {item_id!r}, which no rules file defines{hint}", location, str(item_id))
        result.lists[section].remove(existing)
    ids = {item["id"] for _, item in result.items()}
    for section, items in overlay.get("add", {}).items():
        if section not in LIST_SECTIONS:
            raise RulesError(f"overlay adds to unknown section {section!r}{did_you_mean(section, LIST_SECTIONS)} (one of: {', '.join(LIST_SECTIONS)})", overlay["add"].key_location(section))
        for item in items:
            validate({section: [item]}, schema, display, "overlay item")
            if item["id"] in ids:
                raise RulesError(f"overlay adds {item['id']!r}, which already exists (use replace)", item.location(), item["id"])
            ids.add(item["id"])
            result.lists[section].append(item)
    return result
