"""Step 107: the compiler's own work when the rules are loaded with no disk cache made cheaper,
the generated code unchanged (tools/dump_generated.py: the same 55 sources as before)."""

import ast
import pickle

import pytest

from baloot_spec.expr.astutil import clone


def _e(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


# ---- clone: the node's own fields, no defaults written in ------------------------------------------
def test_clone_holds_what_the_node_holds_and_nothing_more():
    node = ast.Call(func=ast.Name(id="f", ctx=ast.Load()), args=[_e("[x for x in S.xs if x]"), ast.Constant(1)],
                    keywords=[])
    copy = clone(node)
    assert ast.dump(copy, include_attributes=True) == ast.dump(node, include_attributes=True)
    pairs = list(zip(ast.walk(copy), ast.walk(node)))
    assert all(a is not b for a, b in pairs if a._fields)
    assert all(a is b for a, b in pairs if not a._fields)   # (the markers shared: step 126)
    assert sum(not a._fields for a, _ in pairs) == 6   # (Load x 5, and the comprehension's Store)
    # (a field never set reads its class's default in both; the copy does not set it: about a
    # third of the old copy's cost went to writing those defaults into every node)
    assert all(list(a.__dict__) == list(b.__dict__) for a, b in pairs)
    assert copy.args[1].kind is None and "kind" not in copy.args[1].__dict__


def test_clone_of_a_list_and_of_plain_values():
    statements = ast.parse("x = 1\nreturn x").body
    copies = clone(statements)
    assert [ast.dump(s) for s in copies] == [ast.dump(s) for s in statements]
    assert all(a is not b for a, b in zip(copies, statements))
    assert clone("text") == "text" and clone(None) is None and clone([1, None]) == [1, None]


# ---- the cyclic collector paused while rules are compiled (rules/collector.py) ---------------------
class _Stop(Exception):
    pass


def test_the_collector_is_paused_while_a_variant_is_compiled_and_resumed_after(monkeypatch):
    import gc

    import baloot_spec.rules as R
    seen = []

    def resolve(*args, **kwargs):
        seen.append(gc.isenabled())
        raise _Stop   # (an error in the rules: the collector is resumed all the same)
    monkeypatch.setattr(R, "resolve_variant", resolve)
    monkeypatch.setattr(R.disk_cache, "load", lambda *a, **k: None)
    assert gc.isenabled()
    with pytest.raises(_Stop):
        R.load_variant("default", {"__step107_probe": "1"})
    assert seen == [False] and gc.isenabled()
    gc.disable()   # (a caller that disabled it keeps it disabled)
    try:
        with pytest.raises(_Stop):
            R.load_variant("default", {"__step107_probe": "2"})
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_collector_is_paused_while_a_module_s_code_is_made(monkeypatch):
    import gc

    from baloot_spec.rules import module
    from baloot_spec.rules.pyast import function
    seen = []
    real = module.function_text
    monkeypatch.setattr(module, "function_text", lambda f: seen.append(gc.isenabled()) or real(f))
    out = module.ModuleBuilder()   # (what a specialised phase's code is made by)
    out.functions.append(function("g_step107_probe", "S", [ast.Return(value=_e("S.a"))]))
    assert "def g_step107_probe(S)" in out.source()
    assert seen == [False] and gc.isenabled()


def test_the_collector_is_paused_over_all_of_a_phase_s_specialising_not_over_its_cache_lookup(monkeypatch):
    """Step 109: paused over the whole of specialized_code (the rules re-emitted, the facts and
    steps fused, the module made and compiled), not only where the module's functions are
    lowered; a phase whose code comes from the disk cache is read with the collector on."""
    import gc

    from baloot_spec.rules import specialize
    from baloot_spec.rules.compile import _VariantCompiler
    from baloot_spec.rules.compiled import instantiate
    from baloot_spec.rules.loader import resolve_variant
    compiler = _VariantCompiler(resolve_variant("default"))
    for stage in (compiler.state_types, compiler.functions, compiler.phases, compiler.rules, compiler.effects,
                  compiler.scoring, compiler.keyed, compiler.fuse):
        stage()
    rules, namespace = instantiate(compiler.variant, compiler.plan())
    seen = []
    for name in ("rule_parts", "fact_parts"):
        real = getattr(compiler, name)
        monkeypatch.setattr(compiler, name, lambda *a, real=real, **k: seen.append(gc.isenabled()) or real(*a, **k))
    assert gc.isenabled()
    names, code = compiler.specialized_code("score", ("sun", None))
    assert names["facts_all"] and code is not None
    assert seen and not any(seen) and gc.isenabled()

    monkeypatch.setattr(specialize, "cached_phase", lambda *a: seen.append(("cached", gc.isenabled())) or "found")
    assert compiler.specializer(rules, namespace, "")("score", ("sun", None)) == "found"
    assert seen[-1] == ("cached", True)


def test_the_collector_is_not_paused_where_the_rules_come_from_the_disk_cache(monkeypatch):
    import gc

    import baloot_spec.rules as R
    seen = []

    def from_plan(variant, key, rebuild):
        seen.append(gc.isenabled())
        raise _Stop
    monkeypatch.setattr(R, "from_plan", from_plan)
    monkeypatch.setattr(R, "_CACHE", {})   # (the variant compiled by an earlier test: not looked at)
    monkeypatch.setattr(R.disk_cache, "load", lambda *a, **k: R.resolve_variant("default"))
    with pytest.raises(_Stop):
        R.load_variant("default", {"__step107_probe": "3"})
    # (a process whose rules come from the cache keeps its collections where they were)
    assert seen == [True]


# ---- settling skipped where a function has no lazy local (rules/module.py) -------------------------
def _lowered_functions():
    """Every generated function of the default variant as the passes receive it (lowered, copied),
    with the pickle function_text keys it by."""
    import os
    import pickle
    import subprocess
    import sys
    script = ("import os, pickle, sys; os.environ['BALOOT_NO_CACHE'] = '1'\n"
              "import baloot_spec.rules.module as M\n"
              "from baloot_spec.expr.astutil import clone\n"
              "got = []\n"
              "lower = M.lower_function\n"
              "def keep(function):\n"
              "    key = pickle.dumps(function, pickle.HIGHEST_PROTOCOL)\n"
              "    lowered = lower(function)\n"
              "    got.append((key, clone(lowered)))\n"
              "    return lowered\n"
              "M.lower_function = keep\n"
              "from baloot_spec.rules import load_variant\n"
              "load_variant()\n"
              "sys.stdout.buffer.write(pickle.dumps(got))\n")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, cwd=root, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return pickle.loads(done.stdout)


def test_settling_a_function_without_lazy_locals_changes_nothing():
    from baloot_spec.expr.emit import LAZY_LOCAL
    from baloot_spec.rules.passes.settled import settle
    functions = _lowered_functions()
    without = [(key, f) for key, f in functions if LAZY_LOCAL.encode() not in key]
    assert len(without) > 200 and len(without) < len(functions)
    for _key, function in without:
        assert not any(isinstance(n, ast.Name) and n.id.startswith(LAZY_LOCAL) for n in ast.walk(function))
        assert ast.dump(settle(clone(function))) == ast.dump(function)


def test_function_text_settles_only_a_function_with_lazy_locals(monkeypatch):
    from baloot_spec.rules import module
    from baloot_spec.rules.pyast import function
    settled = []
    real = module.settle
    monkeypatch.setattr(module, "settle", lambda f: settled.append(f.name) or real(f))
    plain = function("g_step107_plain", "S", [ast.Return(value=_e("S.a + 1"))])
    lazy = function("g_step107_lazy", "S", [ast.Assign(targets=[ast.Name(id="_h_x", ctx=ast.Store())],
                                                       value=ast.Constant(...)),
                                            ast.Return(value=_e("(_h_x if _h_x is not ... else (_h_x := S.a))"))])
    assert module.function_text(plain) == "def g_step107_plain(S):\n    return S.a + 1"
    assert "_h_x" not in module.function_text(lazy)   # (settled: the one read computes the value)
    assert settled == ["g_step107_lazy"]


# ---- the comprehension finder reads each node's __dict__ (expr/astutil.py) --------------------------
@pytest.mark.parametrize("text", ["a + f(b)", "a + f([x for x in y])", "{k: [v for v in w] for k in z}",
                                  "next((c for c in S.cards if c.x), None) if t else u", "g(*[1, 2], k=3)",
                                  "{1: 2, **d}", "x if (y := [z for z in w]) else 0"])
def test_the_comprehension_finder_without_iter_child_nodes(monkeypatch, text):
    import types

    from baloot_spec.expr import astutil
    from baloot_spec.expr.astutil import COMPREHENSIONS, ComprehensionFinder
    node = _e(text)
    expected = {id(n): any(isinstance(m, COMPREHENSIONS) for m in ast.walk(n)) for n in ast.walk(node)}

    def refused(node):
        raise AssertionError("ast.iter_child_nodes called")
    monkeypatch.setattr(astutil, "ast", types.SimpleNamespace(**{**vars(ast), "iter_child_nodes": refused}))
    finder = ComprehensionFinder()
    assert {id(n): finder(n) for n in ast.walk(node)} == expected


# ---- the YAML reader moves over a run without a line break at once (rules/yamlpos.py) ---------------
_TRICKY = ["a: 1\r\nb: [x,\r y]\r\n", "\ufeffa: 'x\u2028y'\nb: \"p\x85q\"\n", "k: |\n  one\r\n  two\n",
           "- 'a\ufeffb'\n- {c: d}\n", "x:\n  - 1\n  -   'long   string   with   spaces'\n", "a: b\nc: [d, e, \n f]"]


def _positions(value):
    if isinstance(value, dict):
        return ("d", value.line, value.column, sorted(value.key_lines.items(), key=repr),
                [(_positions(k), _positions(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("l", value.line, value.column, [_positions(v) for v in value])
    if isinstance(value, str):
        return ("s", str(value), getattr(value, "line", None), getattr(value, "column", None))
    return value


def _read_all(texts):
    from baloot_spec.errors import RulesError
    from baloot_spec.rules.yamlpos import load_yaml_text
    out = []
    for name, text in texts:
        try:
            out.append(_positions(load_yaml_text(text, name)))
        except RulesError as exc:
            out.append(("error", str(exc), repr(sorted(vars(exc).items(), key=repr))))
    return out


def test_the_yaml_reader_gives_every_position_as_pyyaml_reads_it(monkeypatch):
    from pathlib import Path

    from baloot_spec.rules import yamlpos
    monkeypatch.setattr(yamlpos, "USE_LIBYAML", False)   # (the pure-Python reader's forward: libyaml's path is step 109's)
    root = Path(__file__).resolve().parent.parent / "rules"
    texts = [(p.name, p.read_text(encoding="utf-8")) for p in sorted(root.rglob("*.yaml"))]
    texts += [(f"tricky{i}", text) for i, text in enumerate(_TRICKY)]
    texts += [(f"broken{i}", text[: len(text) * (j + 1) // 4]) for i, (_, text) in enumerate(texts[:6]) for j in range(3)]
    fast = _read_all(texts)
    assert "forward" in yamlpos._loader_class().__dict__
    plain = type("Plain", (yamlpos._loader_class(),), {"forward": __import__("yaml").reader.Reader.forward})
    monkeypatch.setattr(yamlpos, "_LOADER", [plain])
    assert _read_all(texts) == fast


# ---- the markers shared (step 126) -----------------------------------------------------------------
def test_the_generated_code_shares_one_load_and_one_store(monkeypatch):
    """`Load()` and `Store()` made once for the emitted code (nothing changes a marker): the memo
    key's pickle writes each once a function; the text is the one a tree with a marker per use gives."""
    from baloot_spec.rules import module
    from baloot_spec.rules.pyast import assign, attr, call, index, name
    body = call(attr("S", "get"), index(name("k_x"), name("A")), name("v_y"))
    assert len({id(n) for n in ast.walk(body) if type(n) is ast.Load}) == 1
    function = ast.FunctionDef(name="g_step126", args=ast.arguments(posonlyargs=[], args=[ast.arg(arg="S")],
                                                                     kwonlyargs=[], kw_defaults=[], defaults=[]),
                               body=[assign("t", body), ast.Return(value=name("t"))], decorator_list=[], returns=None)
    fresh = clone(function)
    for node in ast.walk(fresh):
        if hasattr(node, "ctx"):
            node.ctx = type(node.ctx)()
    assert len({id(n) for n in ast.walk(fresh) if type(n) is ast.Load}) == 7
    monkeypatch.setattr(module, "_TEXTS", {})
    assert module.function_text(function) == module.function_text(fresh) == "def g_step126(S):\n    t = S.get(k_x[A], v_y)\n    return t"
    assert len(pickle.dumps(function, pickle.HIGHEST_PROTOCOL)) < len(pickle.dumps(fresh, pickle.HIGHEST_PROTOCOL))
