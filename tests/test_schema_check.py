"""rules/schema_check.surely_valid says yes only when jsonschema finds no error (step 107: a load
with no disk cache no longer imports or runs jsonschema for the rules files, all valid; a document
with an error is still checked, and reported, by jsonschema). Differential: every rules, params,
preset and overlay file, and thousands of mutations of them (values of other types, keys
removed, unknown keys, items copied), against jsonschema's Draft 2020-12 validator."""

import copy
import random
from pathlib import Path

import jsonschema
import pytest

from baloot_spec.rules import loader
from baloot_spec.rules.schema_check import surely_valid
from baloot_spec.rules.yamlpos import load_yaml_text

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rules"


def _documents():
    """(name, document, schema) as the loader checks them."""
    rules = loader._schema("rules.schema.json")
    variants = loader._schema("variants.schema.json")
    out = []
    for path in sorted(RULES.glob("*.yaml")):
        kind = "params" if path.name == "params.yaml" else "rules"
        schema = rules if kind == "rules" else {"$ref": "#/$defs/params", **variants}
        out.append((path.name, load_yaml_text(path.read_text(encoding="utf-8"), path.name), schema))
    for folder, kind in (("presets", "preset"), ("overlays", "overlay")):
        for path in sorted((RULES / folder).glob("*.yaml")):
            out.append((path.name, load_yaml_text(path.read_text(encoding="utf-8"), path.name),
                        {"$ref": f"#/$defs/{kind}", **variants}))
    return out


def _jsonschema_valid(document, schema) -> bool:
    return not any(jsonschema.Draft202012Validator(schema).iter_errors(document))


def test_every_shipped_rules_file_is_surely_valid():
    for name, document, schema in _documents():
        assert surely_valid(document, schema), name


_VALUES = [None, True, False, 0, 1, -1, 2.5, 1.0, "", "x", "Bad Name", "a_b", [], ["x"], [1, 2], ["x", "x"],
           {}, {"x": 1}, {"id": "x"}]


def _nodes(value, path=()):
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _nodes(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _nodes(item, path + (index,))


def _mutated(document, rng: random.Random):
    document = copy.deepcopy(document)
    nodes = list(_nodes(document))
    path, node = rng.choice(nodes)
    parent = document
    for key in path[:-1]:
        parent = parent[key]
    move = rng.randrange(6)
    if move == 0 and path:   # a value of another shape
        parent[path[-1]] = copy.deepcopy(rng.choice(_VALUES + [value for _, value in rng.sample(nodes, min(3, len(nodes)))]))
    elif move == 1 and path and isinstance(parent, dict):   # a key removed
        del parent[path[-1]]
    elif move == 2 and isinstance(node, dict):   # a key added (unknown, or copied from elsewhere)
        other = rng.choice(nodes)[0]
        key = other[-1] if other and isinstance(other[-1], str) else "unknown_key"
        node[key] = copy.deepcopy(rng.choice(_VALUES))
    elif move == 3 and isinstance(node, list) and node:   # an item copied, or removed
        if rng.random() < 0.5:
            node.append(copy.deepcopy(rng.choice(node)))
        else:
            node.pop(rng.randrange(len(node)))
    elif move == 4 and path and isinstance(parent, dict):   # a key renamed
        parent[rng.choice(["id", "name", "kind", "type", "x", 1, True, None])] = parent.pop(path[-1])
    elif move == 5 and isinstance(node, str) and path:   # a string edited
        parent[path[-1]] = rng.choice([node.upper(), node + " x", node[:1], node + "!", "1" + node])
    return document


@pytest.mark.parametrize("seed", range(4))
def test_surely_valid_never_says_yes_where_jsonschema_finds_an_error(seed):
    rng = random.Random(seed)
    documents = _documents()
    agreed = refused = 0
    for _ in range(400):
        name, document, schema = rng.choice(documents)
        mutated = _mutated(document, rng)
        for _ in range(rng.randrange(3)):
            mutated = _mutated(mutated, rng)
        sure = surely_valid(mutated, schema)
        valid = _jsonschema_valid(mutated, schema)
        assert not (sure and not valid), (name, seed)
        agreed += sure == valid
        refused += not valid
    assert refused > 100 and agreed > 350   # (the mutations do break documents; the check decides most)


@pytest.mark.parametrize("schema, value", [
    ({"type": "integer"}, 1.0), ({"type": "integer"}, True), ({"type": "number"}, False),
    ({"type": "string"}, 1), ({"type": "object"}, []), ({"type": ["string", "null"]}, None),
    ({"enum": ["a", "b"]}, "c"), ({"enum": ["a"]}, ["a"]), ({"const": "a"}, "a"),
    ({"uniqueItems": True}, [1, True]), ({"uniqueItems": True}, [1, 1]), ({"uniqueItems": True}, ["1", 1]),
    ({"uniqueItems": True}, [0, False, None]),
    ({"pattern": "^[a-z]+$"}, "abc"), ({"pattern": "b"}, "abc"), ({"pattern": "^a$"}, "a\n"), ({"pattern": "x"}, 3),
    ({"minimum": 1}, 0), ({"maximum": 1}, 1.5), ({"minimum": 0}, True), ({"minLength": 2}, "a"),
    ({"minItems": 1}, []), ({"minProperties": 1}, {}), ({"required": ["a"]}, {"b": 1}), ({"required": ["a"]}, []),
    ({"properties": {"a": {"type": "string"}}, "additionalProperties": False}, {"a": "x", "b": 1}),
    ({"additionalProperties": {"type": "integer"}}, {"a": 1, "b": "x"}),
    ({"propertyNames": {"pattern": "^[a-z]+$"}}, {"ab": 1, "Ab": 2}), ({"propertyNames": {"type": "string"}}, {1: 2}),
    ({"if": {"properties": {"k": {"const": "a"}}}, "then": {"required": ["x"]}}, {"k": "a"}),
    ({"if": {"properties": {"k": {"const": "a"}}}, "then": {"required": ["x"]}, "else": False}, {"k": "b"}),
    ({"oneOf": [{"required": ["a"]}, {"required": ["b"]}]}, {"a": 1, "b": 2}),
    ({"anyOf": [{"type": "string"}, {"type": "integer"}]}, 1), ({"allOf": [True, False]}, 1), ({"not": True}, 1),
    ({"items": {"type": "string"}}, ["a", 1]), ({"$ref": "#/$defs/n", "$defs": {"n": {"type": "string"}}}, 1),
    ({"$ref": "#/$defs/n", "$defs": {"n": {"type": "string"}}}, "x"), (True, 1), (False, 1),
])
def test_each_keyword_as_jsonschema_reads_it(schema, value):
    assert surely_valid(value, schema) == _jsonschema_valid(value, schema)


@pytest.mark.parametrize("schema, value", [
    ({"format": "email"}, "x"), ({"patternProperties": {"a": True}, "additionalProperties": False}, {"a": 1}),
    ({"$ref": "other.json#/x"}, 1), ({"type": "strng"}, 1), ({"minimum": "1"}, 2), ({"enum": [1, True]}, 1),
    ({"properties": {"a": {"$id": "x", "type": "string"}}}, {"a": "x"}), ({"pattern": "("}, "x"),
    ({"$ref": "#/$defs/missing", "$defs": {}}, 1), ({"uniqueItems": True}, [1.0, 1]), ({"items": [True]}, [1]),
])
def test_a_keyword_or_schema_it_does_not_know_is_left_to_jsonschema(schema, value):
    assert surely_valid(value, schema) is False


def test_loading_the_rules_with_no_disk_cache_does_not_import_jsonschema():
    import subprocess
    import sys
    script = ("import os, sys; os.environ['BALOOT_NO_CACHE'] = '1'\n"
              "from baloot_spec.rules import load_variant\n"
              "load_variant('riyadh', overlays=['no-gahwa'])\n"
              "print('jsonschema' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-1] == "False"
