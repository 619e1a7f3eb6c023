"""The generated module of one variant (or of one specialised phase), built as `ast`.

Collects the generated functions as `ast.FunctionDef`s, each made from emitted expressions
(no source text is assembled). `source()` writes the comprehensions out as loops
(expr/lower.py), function by function, and unparses it (each function memoised by its tree): that text is what is
compiled, kept in the disk cache and printed by `baloot rules check --show-code`.
"""

from __future__ import annotations

import ast
import pickle

from ..expr.astutil import clone
from ..expr.emit import LAZY_LOCAL
from ..expr.lower import lower_function
from .collector import collector_paused
from .passes.field_reads import field_reads
from .passes.fused_loops import fuse_loops
from .passes.hoisted_counts import hoisted_counts
from .passes.keyed_reads import keyed_lookups, keyed_reads
from .passes.record_stores import record_stores
from .passes.rule_lines import without_counters
from .passes.scalar_records import scalar_records
from .passes.settled import settle
from .passes.state_reads import state_reads
from .pyast import assign, attr, call, const, function, if_, index, lazy_locals, name, not_, store, strings


class ModuleBuilder:
    """Generated functions, numbered in the order they are added (`g1`, `narrow2`, ...)."""

    def __init__(self):
        self.functions: list[ast.FunctionDef] = []
        self.count = 0
        self.bodies: dict[str, ast.expr] = {}   # function name -> the expression it returns
        self.statements: list[ast.stmt] = []    # run when the module loads, after the functions

    def next_name(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def add(self, args: str, body: ast.expr, prefix: str = "g") -> str:
        """A function returning `body`; its name."""
        fn_name = self.next_name(prefix)
        self.add_named(fn_name, args, body)
        return fn_name

    def add_named(self, fn_name: str, args: str, body: ast.expr) -> None:
        self.bodies[fn_name] = body
        self.functions.append(function(fn_name, args, [*lazy_locals(body), ast.Return(value=body)]))

    def add_memoized(self, fn_name: str, key: str, body: ast.expr) -> None:
        """f(S) computing `body` once per position: kept in S._memo under `key` (memoized_function)."""
        self.bodies[fn_name] = body
        self.functions.append(memoized_function(fn_name, key, body))

    def guarded(self, prefix: str, args: str, ids: list, body: list, result: ast.expr,
                unless: ast.expr | None = None, on_error=()) -> str:
        """A fused function: `body` runs the rules in order, setting `i` to the index of the one
        running, so that a failing expression is still reported with its own rule id (in the
        text compiled, the rule is named from the failing line instead where that is exact:
        passes/rule_lines.py). With `unless`, a test that returns `result` at once when false
        (passes/guards.py). `on_error`: statements run before anything raised goes on."""
        fn_name = self.next_name(prefix)
        if not ids:   # (no rule: nothing to run, nothing to name)
            self.functions.append(function(fn_name, args, [ast.Return(value=result)]))
            return fn_name
        statements = []
        if unless is not None:   # a guard that fails only falls through to the full run, which names the rule
            statements.append(ast.Try(body=[if_(not_(unless), [ast.Return(value=result)])],
                                      handlers=[ast.ExceptHandler(type=name("_Exception"), name=None, body=[ast.Pass()])],
                                      orelse=[], finalbody=[]))
        failed = call("_RuleRuntimeError", index(strings(ids), name("i")), name("exc"))
        statements += [assign("i", const(0)), ast.Try(
            body=body or [ast.Pass()],
            handlers=[ast.ExceptHandler(type=name("_BalootError"), name=None, body=[*on_error, ast.Raise()]),
                      ast.ExceptHandler(type=name("_Exception"), name="exc",
                                        body=[*on_error, ast.Raise(exc=failed, cause=name("exc"))])],
            orelse=[], finalbody=[]), ast.Return(value=result)]
        self.functions.append(function(fn_name, args, statements))
        return fn_name

    def source(self) -> str:
        """The module's text: what is compiled, cached and printed. Each function is lowered
        (comprehensions written out as loops, expr/lower.py) and unparsed on its own, joined as
        `ast.unparse` joins a module's functions, so that its text can be memoised."""
        lookups = keyed_lookups(self.functions)   # (the keyed derived values' table reads: passes/keyed_reads.py)
        keyed = (lookups, pickle.dumps(sorted((n, ast.dump(v)) for n, v in lookups.items())),) if lookups else ()
        with collector_paused():   # (a specialised phase's code is made here: rules/collector.py)
            texts = [function_text(fn, *keyed) for fn in self.functions]
        for statement in self.statements:   # (the per-card tables: passes/card_tables.py)
            if isinstance(statement, ast.FunctionDef):
                texts.append(function_text(statement, *keyed))
            else:
                _number([statement])
                texts.append(ast.unparse(statement))
        return "\n\n".join(texts) + "\n"


# Lowered function text by the pickle of the function before lowering. Variants share most
# generated functions (a corpus run or a test module compiles dozens of variants, and every
# specialised phase repeats its variant's functions), and lowering then unparsing costs about
# four times the pickle (`ast.dump`, the same tree as text, costs twice the pickle). The pickle
# is the whole tree, every field of every node: an exact key (the lowering reads nothing else;
# two equal trees pickled differently only miss). Cleared past _MEMO_LIMIT (memory stays bounded).
_TEXTS: dict[bytes, str] = {}
_MEMO_LIMIT = 20_000
# The pickle spells every identifier out (UTF-8), so a function whose pickle never holds the
# lazy locals' prefix has none: settling it (passes/settled.py) would leave it as it is, and is
# skipped (312 of 381 functions for a load and 3 contracts; a quarter of settle's time).
_LAZY = LAZY_LOCAL.encode()
_LOOPS, _FOR = b"comprehension", b"For"   # (no comprehension and no loop: no loop item, field_reads skipped)
_COUNT = b"b_len"   # (a count compiles to `b_len([1 for ...])`: a function without it has none to hoist)
_GUARDED = b"_RuleRuntimeError"   # (a function naming its rule by line: no keyed read written in, keyed_reads.py)


def function_text(function: ast.FunctionDef, lookups: dict | None = None, pickled: bytes = b"") -> str:
    """The source of one generated function, its comprehensions written out as loops (the
    function's body is replaced when lowered; the expressions it holds are not changed).
    `lookups`: the module's keyed derived values' table reads, `pickled` their pickle
    (passes/keyed_reads.py)."""
    key = pickle.dumps(function, pickle.HIGHEST_PROTOCOL)
    if lookups and _LAZY in key and _GUARDED not in key:   # (a settled local, no rule named by line)
        key += pickled   # (the text then depends on them: the memo's key too)
    else:
        lookups = None
    text = _TEXTS.get(key)
    if text is None:
        # (copied before settling: the lowered body still holds expressions other functions share;
        # then loops over the same iterable fused, records filled by item: passes/fused_loops.py,
        # passes/record_stores.py; their values read back as locals: passes/scalar_records.py, a loop
        # item's field read once: passes/field_reads.py; counts
        # in a loop of one list's attribute: passes/hoisted_counts.py; a state field read once:
        # passes/state_reads.py)
        lowered = clone(lower_function(function))
        if _LAZY in key:
            lowered = settle(lowered)
        if lookups is not None:   # (a keyed derived value settled into a local read from its table)
            lowered = keyed_reads(lowered, lookups)
        lowered = scalar_records(record_stores(fuse_loops(lowered)))
        if _LOOPS in key or _FOR in key:
            lowered = field_reads(lowered)
        if _COUNT in key:
            lowered = hoisted_counts(lowered)
        lowered = state_reads(lowered)   # (last: a state field read twice read once, passes/state_reads.py)
        _number([lowered])   # (only statements get a line number, which `ast.unparse` reads)
        text = _by_lines(lowered)
        if len(_TEXTS) >= _MEMO_LIMIT:
            _TEXTS.clear()
        _TEXTS[key] = text
    return text


def _by_lines(function: ast.FunctionDef) -> str:
    """The text of a lowered function; a guarded one without its rule counters, its handler
    naming the rule from the failing line (passes/rule_lines.py) where the text has the lines
    that pass laid out (else the function as it was, counters and all)."""
    laid = without_counters(function)
    if laid is not None:
        new, lines = laid
        _number([new])
        text = ast.unparse(new)
        if text.count("\n") == lines:
            return text
    return ast.unparse(function)


def _number(statements: list) -> None:
    for statement in statements:
        statement.lineno = 1
        for field in ("body", "orelse", "finalbody"):
            _number(getattr(statement, field, ()))
        for handler in getattr(statement, "handlers", ()):
            _number(handler.body)


def memoized_function(fn_name: str, key: str, body: ast.expr, memo: str = "_memo") -> ast.FunctionDef:
    """f(S) computing `body` once while the state's memo `memo` (S._memo: one position; S._kept:
    passes/kept.py) is not replaced, kept in it under `key`. No exception on either path: a miss
    is as common as a hit. A context without the memo (scoring facts, a lazy map's frozen
    fields) works the value out each time."""
    local = memo.lstrip("_")
    missing = ast.Compare(left=name("value"), ops=[ast.Is()], comparators=[name("_MISSING")])
    slot = ast.Subscript(value=name(local), slice=const(key), ctx=ast.Store())
    return function(fn_name, "S", [
        *lazy_locals(body),
        ast.Try(body=[assign(local, attr("S", memo))],
                handlers=[ast.ExceptHandler(type=name("_AttributeError"), name=None, body=[ast.Return(value=body)])],
                orelse=[], finalbody=[]),
        assign("value", call(attr(local, "get"), const(key), name("_MISSING"))),
        if_(missing, [ast.Assign(targets=[store("value"), slot], value=body)]),
        ast.Return(value=name("value"))])
