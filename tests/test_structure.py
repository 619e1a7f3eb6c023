"""The package's shape: no import cycles, no oversized modules, no module importing another's
private names. Read from the source (each module's `import` statements, anywhere in the file,
relative imports resolved), so a cycle hidden in a function-level import counts too."""

import ast
import tomllib
from pathlib import Path

import baloot_spec

PACKAGE = Path(baloot_spec.__file__).resolve().parent
NAME = PACKAGE.name
MAX_LINES = 500

# Modules allowed over MAX_LINES for now, each while another branch reshapes it (the lead
# removes an entry once that branch is merged and the module is split):
OVERSIZED_FOR_NOW: set = set()   # none since the compiler and engine/hand.py splits (issue 28)

# Private names imported across modules today (a name with a leading underscore is its module's
# own business); new ones fail the test:
PRIVATE_IMPORTS_FOR_NOW: set = set()   # (the last two went public in the fifteenth session)


def _modules() -> dict:
    """{dotted module name: path} of every module of the package."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _imports(module: str, path: Path, modules: dict):
    """(imported module of the package, names taken from it) for every import statement of a module."""
    base = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield _resolve(alias.name, modules), ()
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                prefix = base[: len(base) - (node.level - 1)]
                target = ".".join(prefix + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            names = [alias.name for alias in node.names]
            yield _resolve(target, modules), tuple(n for n in names if f"{target}.{n}" not in modules)
            for name in names:                      # `from . import x`: x is a module
                if f"{target}.{name}" in modules:
                    yield f"{target}.{name}", ()


def _resolve(name: str, modules: dict):
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _graph() -> dict:
    """{module: the modules of the package it imports}; a module importing its own package (an
    ancestor's __init__, which Python has loaded first anyway) is no edge."""
    modules = _modules()
    graph = {m: set() for m in modules}
    for module, path in modules.items():
        for target, _names in _imports(module, path, modules):
            if target and target != module and target != NAME and not module.startswith(target + "."):
                graph[module].add(target)
    return graph


def _cycles(graph: dict) -> list:
    """The strongly connected components of more than one module (iterative Tarjan)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_a_cycle():
    # a -> b -> c -> a is one cycle; d -> a is not part of it; e alone is none
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_function_level_and_relative_imports():
    graph = _graph()
    # cli/main.py imports its command families at the top; rules/loader.py imports the
    # constraints module inside a function
    assert f"{NAME}.cli.rules" in graph[f"{NAME}.cli.main"]
    assert f"{NAME}.rules.constraints" in graph[f"{NAME}.rules.loader"]


def test_no_import_cycles():
    cycles = _cycles(_graph())
    assert not cycles, "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_no_module_over_500_lines_but_those_being_split():
    sizes = {path.relative_to(PACKAGE).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
             for path in PACKAGE.rglob("*.py")}
    oversized = {name: n for name, n in sizes.items() if n > MAX_LINES and name not in OVERSIZED_FOR_NOW}
    assert not oversized, f"modules over {MAX_LINES} lines (split them along a seam): {oversized}"
    stale = {name for name in OVERSIZED_FOR_NOW if sizes.get(name, 0) <= MAX_LINES}
    assert not stale, f"no longer over {MAX_LINES} lines (or gone): remove from OVERSIZED_FOR_NOW: {stale}"


def test_no_module_imports_another_modules_private_names():
    modules = _modules()
    found = set()
    for module, path in modules.items():
        for target, names in _imports(module, path, modules):
            if target and target != module:
                found |= {(module.removeprefix(NAME + "."), target.removeprefix(NAME + "."), n)
                          for n in names if n.startswith("_") and not n.startswith("__")}
    assert found <= PRIVATE_IMPORTS_FOR_NOW, f"private names imported from another module: {sorted(found - PRIVATE_IMPORTS_FOR_NOW)}"
    stale = PRIVATE_IMPORTS_FOR_NOW - found
    assert not stale, f"no longer imported: remove from PRIVATE_IMPORTS_FOR_NOW: {sorted(stale)}"


def test_every_subpackage_is_installed():
    # pyproject.toml lists the packages by hand: a new folder of modules must be listed, or the
    # installed `baloot` command cannot import it
    listed = set(tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    folders = {".".join(path.parent.relative_to(PACKAGE.parent).parts) for path in PACKAGE.rglob("__init__.py")}
    assert folders - listed == set(), f"not in pyproject.toml [tool.setuptools] packages: {sorted(folders - listed)}"
