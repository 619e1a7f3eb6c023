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


def test_astutil_walk_finds_what_ast_walk_finds():
    from baloot_spec.expr.astutil import walk
    tree = ast.parse("def f(S):\n    for x in S.a:\n        if (y := x) > 1:\n            t = [z for z in y]\n    return t")
    assert sorted(map(id, walk(tree))) == sorted(map(id, ast.walk(tree)))
