"""The compiler's searches over generated `ast` (which lazy locals a loop assigns, whether a test
reads the candidate, whether a body is cheap, ...) use expr/astutil.walk, a plain stack over each
node's fields, not `ast.walk` (a generator per node through iter_child_nodes and iter_fields,
about twice the cost): settled._assigned alone walked ~70,000 nodes to load a variant and
specialise three contracts (step 104). The answers are sets and any/all: the order of the nodes
does not matter, and the generated code is the same (tools/dump_generated.py)."""

import ast
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_SCRIPT = """
import ast, os, sys
os.environ["BALOOT_NO_CACHE"] = "1"
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, os.path.join(sys.argv[1], "tools"))
from dump_generated import generated_sources
import baloot_spec.rules.compile   # (the compiler's modules imported before ast.walk is refused)
def refused(node):
    raise AssertionError("ast.walk called while compiling")
ast.walk = refused
sources = generated_sources(("default",), (("sun", None), ("hokum", "H")))
print(len(sources))
"""


def test_compiling_a_variant_and_specialising_its_phases_never_calls_ast_walk():
    done = subprocess.run([sys.executable, "-c", _SCRIPT, ROOT], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout.split()[-1]) >= 5   # the generic module and 2 phases x 2 contracts


def test_astutil_walk_finds_what_ast_walk_finds_but_the_markers():
    """Every node `ast.walk` finds, less the markers (contexts, operators: no fields), which
    every search reads through the node holding them (step 126)."""
    from baloot_spec.expr.astutil import _BARE, walk
    tree = ast.parse("def f(S):\n    for x in S.a:\n        if (y := x) > 1 and not -x < 2 + x:\n"
                     "            t = [z for z in y]\n            del t[0]\n    return t")
    markers = [node for node in ast.walk(tree) if not node._fields]
    assert {type(node) for node in markers} == {ast.Load, ast.Store, ast.Del, ast.Gt, ast.And, ast.Not, ast.USub,
                                               ast.Lt, ast.Add}
    assert all(type(node) in _BARE for node in markers)
    assert sorted(map(id, walk(tree))) == sorted(id(node) for node in ast.walk(tree) if node._fields)


_FULL_WALK = """
import ast, hashlib, os, sys
os.environ["BALOOT_NO_CACHE"] = "1"
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, os.path.join(sys.argv[1], "tools"))
from dump_generated import generated_sources
import baloot_spec.rules.compile, baloot_spec.rules.specialize   # (every module that imports walk)
def full_walk(root):   # (every node, the markers too: the walk before step 126)
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        for value in node.__dict__.values():
            if isinstance(value, ast.AST):
                stack.append(value)
            elif type(value) is list:
                stack.extend(item for item in value if isinstance(item, ast.AST))
patched = 0
if sys.argv[2] == "full":
    from baloot_spec.expr import astutil
    walk = astutil.walk
    for module in list(sys.modules.values()):
        if getattr(module, "walk", None) is walk and module.__name__.startswith("baloot_spec"):
            module.walk = full_walk
            patched += 1
sources = generated_sources(("default", "riyadh"), (("sun", None), ("hokum", "H")))
print(patched, len(sources), hashlib.sha256(repr(sources).encode()).hexdigest())
"""


def test_the_markers_left_out_of_walk_change_no_generated_code():
    """Every module's searches given a walk that hands out the markers too make the same
    generated code, byte for byte, as with `walk` (two presets, a Sun and a Hokum)."""
    runs = [subprocess.run([sys.executable, "-c", _FULL_WALK, ROOT, how], capture_output=True, text=True, timeout=300)
            for how in ("full", "walk")]
    assert all(run.returncode == 0 for run in runs), [run.stderr[-2000:] for run in runs]
    full, walked = (run.stdout.split() for run in runs)
    assert int(full[0]) >= 15 and int(full[1]) >= 10
    assert full[1:] == walked[1:]
