"""Compile checked rule expressions into Python source, and that source into callables, once.

The compiler walks the Lark tree and emits Python expression text from a closed set of
constructs; every name is resolved here (a rule can only reach state fields, action fields,
functions declared in rules/, documented builtins, knobs and constants), so an unknown name is a
load error, and rule text itself is never handed to eval or exec. Knob values are folded in as
literals: a compiled variant is specialised to its settings.
"""

from __future__ import annotations

import ast
import itertools
import operator
import re
from dataclasses import dataclass, field

import lark

from ..suggest import did_you_mean
from .parser import ExprSource, ExprSyntaxError, locate_in_yaml, parse_expression

AGGREGATES = {"any", "all", "sum", "count", "max", "min", "first", "map"}


@dataclass
class Scope:
    """The names an expression may use, and what each compiles to."""

    state: frozenset = frozenset()        # fields of the state view  -> S.name
    action: frozenset = frozenset()       # fields of the action being judged -> A.name
    functions: dict = field(default_factory=dict)   # rule-defined function -> number of parameters
    builtins: dict = field(default_factory=dict)    # builtin name -> (min args, max args)
    params: dict = field(default_factory=dict)      # knob -> value (folded in as a literal)
    consts: frozenset = frozenset()       # constant tables -> k_name
    attributes: frozenset = frozenset()   # every attribute name a value may have
    # Attributes only a record can have (no card, play, trick or Python value has one by that
    # name): `x.f` can then succeed only on a record, where it is `x['f']`, read without
    # the record's Python __getattribute__ (68 against 15 ns).
    record_fields: frozenset = frozenset()
    engine_lists: frozenset = frozenset()   # state fields that are always lists (engine/state.py ENGINE_LISTS)
    locals: frozenset = frozenset()       # function parameters -> v_name
    # Rule functions whose body is substituted at the call site (name -> (params, tree, scope)):
    # filled by the rules compiler as each function is checked, shared by every scope.
    inline: dict = field(default_factory=dict)
    indexable: frozenset = frozenset()    # constant lists with a precomputed position table k__ix_name
    seats: int = 0                        # seats at the table (k__after[steps][seat] is their geometry)
    # Zero-argument rule functions (derived values), name -> (tree, scope): their bodies are
    # inlined into code specialised on fixed state (see `fixed` below), like `inline`.
    derived: dict = field(default_factory=dict)
    const_values: dict = field(default_factory=dict)   # constant -> its value (its type, for expr/resolve.py)
    # State names that are the engine's own fields wherever they are read (typed by
    # expr/types.py ENGINE_FIELD_TYPES); a name a fact or step reuses (`tricks`) is not.
    engine_fields: frozenset = frozenset()


class CompileError(Exception):
    """A name or shape problem at a node of the expression tree."""

    def __init__(self, message: str, line: int, column: int, length: int = 1):
        super().__init__(message)
        self.message, self.line, self.column, self.length = message, line, column, length


def _pos(node) -> tuple[int, int, int]:
    if isinstance(node, lark.Token):
        return node.line or 1, node.column or 1, len(str(node))
    meta = getattr(node, "meta", None)
    if meta is not None and not meta.empty:
        length = (meta.end_column - meta.column) if meta.end_line == meta.line else 1
        return meta.line, meta.column, max(length, 1)
    return 1, 1, 1


# The prefix of the local that holds a derived value (a zero-argument rule function) within
# one generated function: `...` (Ellipsis, which no rule value can be) until first needed. Every
# generated function that uses one starts with `<prefix><name> = ...` (lazy_locals_prelude).
LAZY_LOCAL = "_h_"
_LAZY_NAME = re.compile(r"\b_h_([A-Za-z_0-9]+)\b")


def lazy_locals_prelude(body: str) -> list[str]:
    """The statements that a generated function whose body is `body` must start with."""
    return [f"{LAZY_LOCAL}{name} = ..." for name in sorted(set(_LAZY_NAME.findall(body)))]


_SIMPLE = re.compile(r"^(?:[A-Za-z_][A-Za-z_0-9]*(?:\.[A-Za-z_][A-Za-z_0-9]*|\[\d+\])*|-?\d+|'[^'\\]*')$")
# A derived value held in a lazy local (then attributes or constant subscripts of it): as cheap to
# repeat as a name once fetched.
_LAZY_SIMPLE = re.compile(r"^\(*(_h_\w+) if \1 is not \.\.\. else \(\1 := f_\w+\(S\)\)\)+(?:\.[A-Za-z_]\w*|\[\d+\])*$")
_INLINE_DEPTH = 8
_INLINE_COUNTER = itertools.count(1)


def reset_inline_names() -> None:
    """Number inlined bodies' loop variables from 1 again. Names need only be unique within one
    generated module; starting each module afresh makes its source depend on the rules alone
    (so that it can be found again in the disk cache)."""
    global _INLINE_COUNTER
    _INLINE_COUNTER = itertools.count(1)
_COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def _literal(text: str):
    """(True, value) if `text` is a Python literal the emitter produced, else (False, None)."""
    if not text or not (text[0] in "'-0123456789" or text in ("True", "False", "None")):
        return False, None
    try:
        return True, ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return False, None


class _Emitter:
    """Turns one checked tree into Python expression text.

    Two optimisations keep the generated code close to hand-written: comparisons and boolean
    operators over literals (knob values are literals) are folded, and a call of a rule
    function with simple arguments is replaced by the function's body (`inline`)."""

    def __init__(self, scope: Scope, suffix: str = "", stack: frozenset = frozenset(), fixed: dict | None = None):
        self.scope = scope
        self.fixed = fixed            # state name -> value folded in as a literal (a specialised phase)
        self.suffix = suffix          # renames loop variables of an inlined body apart
        self.stack = stack            # functions being inlined around this body
        self.names_used: set[str] = set()
        self.in_iterable = 0          # inside a comprehension's iterable (no := allowed there)

    def emit(self, node, bound: dict) -> str:
        kind = node.data if isinstance(node, lark.Tree) else None
        method = getattr(self, f"_{kind}", None)
        if method is None:  # a parenthesised expression is inlined by the grammar
            raise CompileError(f"unsupported construct {kind!r}", *_pos(node))
        return method(node, bound)

    # literals -----------------------------------------------------------------------------
    def _number(self, node, bound):
        return str(int(node.children[0]))

    def _string(self, node, bound):
        return repr(str(node.children[0])[1:-1])

    def _true(self, node, bound):
        return "True"

    def _false(self, node, bound):
        return "False"

    def _none(self, node, bound):
        return "None"

    def _list_(self, node, bound):
        args = node.children[0]
        items = [] if args is None else [self.emit(c, bound) for c in args.children]
        return "[" + ", ".join(items) + "]"

    def _record(self, node, bound):
        parts = []
        for fld in node.children:
            if fld is None:
                continue
            key, value = fld.children
            if str(key) not in self.scope.attributes:
                raise CompileError(f"record field {str(key)!r} is not a declared attribute", *_pos(key))
            parts.append(f"{key}={self.emit(value, bound)}")
        return "_R(" + ", ".join(parts) + ")"

    # names --------------------------------------------------------------------------------
    def _name(self, node, bound):
        token = node.children[0]
        name = str(token)
        if name in bound:
            return bound[name]
        if name in self.scope.locals:
            return f"v_{name}"
        if name in self.scope.action:
            return f"A.{name}"
        if name in self.scope.state:
            if self.fixed and name in self.fixed and _is_plain(self.fixed[name]):
                return repr(self.fixed[name])
            return f"S.{name}"
        if name in self.scope.functions:
            if self.scope.functions[name] != 0:
                raise CompileError(f"function {name!r} takes {self.scope.functions[name]} argument(s); call it as {name}(...)", *_pos(token))
            self.names_used.add(name)
            if self.in_iterable:
                return f"f_{name}(S)"
            body = self._derived_body(name)
            if body is not None:   # specialised code: the derived value's own body, folded too
                if _literal(body[1:-1])[0]:   # folded to a constant (`side_suit_led` in a Sun)
                    return body[1:-1]
                return f"({LAZY_LOCAL}{name} if {LAZY_LOCAL}{name} is not ... else ({LAZY_LOCAL}{name} := {body}))"
            # A derived value is fetched once per generated function and kept in a local
            # (see LAZY_LOCAL): the memo lookup is a call, a local is a load.
            return f"({LAZY_LOCAL}{name} if {LAZY_LOCAL}{name} is not ... else ({LAZY_LOCAL}{name} := f_{name}(S)))"
        if name in ("param", "const"):
            raise CompileError(f"{name!r} is a namespace: write {name}.<name>", *_pos(token))
        raise CompileError(f"unknown name {name!r}{did_you_mean(name, self._visible_names(bound))}", *_pos(token))

    def _attr(self, node, bound):
        target, attr = node.children
        attr_name = str(attr)
        if isinstance(target, lark.Tree) and target.data == "name" and str(target.children[0]) not in bound:
            space = str(target.children[0])
            if space == "param":
                if attr_name not in self.scope.params:
                    hint = did_you_mean("param." + attr_name, ["param." + k for k in self.scope.params]) or " (declare it in rules/params.yaml)"
                    raise CompileError(f"unknown knob 'param.{attr_name}'{hint}", *_pos(attr))
                return repr(self.scope.params[attr_name])
            if space == "const":
                if attr_name not in self.scope.consts:
                    hint = did_you_mean("const." + attr_name, ["const." + k for k in self.scope.consts])
                    raise CompileError(f"unknown constant 'const.{attr_name}'{hint}", *_pos(attr))
                return f"k_{attr_name}"
        if attr_name not in self.scope.attributes:
            raise CompileError(f"unknown attribute {attr_name!r}{did_you_mean(attr_name, self.scope.attributes)}", *_pos(attr))
        if attr_name in self.scope.record_fields:
            return f"{self.emit(target, bound)}[{attr_name!r}]"
        return f"{self.emit(target, bound)}.{attr_name}"

    def _index(self, node, bound):
        target, key = node.children
        return f"{self.emit(target, bound)}[{self.emit(key, bound)}]"

    def _call(self, node, bound):
        name_token, args = node.children
        name = str(name_token)
        argv = [] if args is None else [self.emit(c, bound) for c in args.children]
        if name in self.scope.functions:
            want = self.scope.functions[name]
            if want != len(argv):
                raise CompileError(f"function {name!r} takes {want} argument(s), given {len(argv)}", *_pos(name_token))
            self.names_used.add(name)
            inlined = self._inlined(name, argv)
            if inlined is not None:
                return inlined
            return f"f_{name}(S" + "".join(", " + a for a in argv) + ")"
        if name == "seat_after" and len(argv) == 2 and self.scope.seats:   # a table of the seat geometry
            if re.fullmatch(r"-?\d+", argv[1]):
                return f"k__after[{int(argv[1]) % self.scope.seats}][{argv[0]}]"
            return f"k__after[({argv[1]}) % {self.scope.seats}][{argv[0]}]"
        if name == "index" and len(argv) == 2 and argv[0].startswith("k_") and argv[0][2:] in self.scope.indexable:
            return f"k__ix_{argv[0][2:]}.get({argv[1]}, -1)"
        if name in self.scope.builtins:
            low, high = self.scope.builtins[name]
            if not low <= len(argv) <= high:
                want = str(low) if low == high else f"{low} to {high}"
                raise CompileError(f"builtin {name!r} takes {want} argument(s), given {len(argv)}", *_pos(name_token))
            return f"b_{name}(" + ", ".join(argv) + ")"
        if name in AGGREGATES:
            raise CompileError(f"{name!r} is an aggregate: write {name}(<expr> for <x> in <list>)", *_pos(name_token))
        callable_names = [*self.scope.functions, *self.scope.builtins, *AGGREGATES]
        raise CompileError(f"unknown function {name!r}{did_you_mean(name, callable_names)}", *_pos(name_token))

    def _visible_names(self, bound: dict) -> list[str]:
        """Every bare name this expression could have meant (for did-you-mean)."""
        return [*bound, *self.scope.locals, *self.scope.action, *self.scope.state, *self.scope.functions, "param", "const"]

    def _derived_body(self, name: str):
        """The body of derived value `name` for specialised code, or None (not specialising,
        recursion, too deep)."""
        entry = self.scope.derived.get(name)
        if not self.fixed or entry is None or name in self.stack or len(self.stack) >= _INLINE_DEPTH:
            return None
        tree, callee_scope = entry
        emitter = _Emitter(callee_scope, f"_{next(_INLINE_COUNTER)}", self.stack | {name}, self.fixed)
        text = emitter.emit(tree, {})
        self.names_used |= emitter.names_used
        return f"({text})"

    def _inlined(self, name: str, argv: list[str]):
        """The body of rule function `name` with `argv` substituted, or None if it is not
        inlined (no checked body yet, recursion, too deep, or an argument that is neither a
        plain name, attribute or literal nor read exactly once, unconditionally, by the body;
        see _used_once)."""
        entry = self.scope.inline.get(name)
        if entry is None or name in self.stack or len(self.stack) >= _INLINE_DEPTH:
            return None
        params, tree, callee_scope = entry
        for param, arg in zip(params, argv):
            if not (_SIMPLE.match(arg) or _LAZY_SIMPLE.match(arg) or _used_once(tree, param, ":=" in arg)):
                return None
        emitter = _Emitter(callee_scope, f"_{next(_INLINE_COUNTER)}", self.stack | {name}, self.fixed)
        emitter.in_iterable = self.in_iterable
        text = emitter.emit(tree, dict(zip(params, argv)))
        self.names_used |= emitter.names_used
        return text if _literal(text)[0] else f"({text})"

    def _comprehension_parts(self, node, bound, offset):
        elem, var, iterable, cond = node.children[offset:offset + 4]
        var_name = str(var)
        if var_name in self.scope.state or var_name in self.scope.functions or var_name in ("param", "const"):
            raise CompileError(f"loop variable {var_name!r} hides a rule name; choose another", *_pos(var))
        var_text = f"v_{var_name}{self.suffix}"
        inner = {**bound, var_name: var_text}
        self.in_iterable += 1
        try:
            it = self.emit(iterable, bound)
        finally:
            self.in_iterable -= 1
        el = self.emit(elem, inner)
        cond_text = self.emit(cond, inner) if cond is not None else None
        return el, var_text, it, cond_text

    def _aggregate(self, node, bound):
        name_token = node.children[0]
        name = str(name_token)
        if name not in AGGREGATES:
            raise CompileError(f"unknown aggregate {name!r} (one of: {', '.join(sorted(AGGREGATES))})", *_pos(name_token))
        elem, var_token, iterable, cond_node = node.children[1:5]
        if (name in ("max", "min", "sum") and cond_node is None and isinstance(elem, lark.Tree)
                and elem.data == "name" and str(elem.children[0]) == str(var_token)):
            # max(x for x in xs): the list itself, with no comprehension (nor its frame), and
            # read in the enclosing scope, where a derived value can be held in a local.
            self._comprehension_parts(node, bound, 1)   # (the same checks of the loop variable)
            it = self.emit(iterable, bound)
            return f"{name}([*{it}] or [None])" if name != "sum" else f"sum({it})"
        el, var, it, cond = self._comprehension_parts(node, bound, 1)
        if cond is not None and _literal(cond) == (True, False) and it.startswith("S.") and it[2:] in self.scope.engine_lists:
            # Nothing passes the condition (a Hokum test in a Sun's specialised code): the
            # aggregate's value over no items. Only over a list the engine keeps, so that the
            # folded code fails exactly where the unfolded would (nowhere).
            empty = _EMPTY_AGGREGATE.get(name)
            if empty is not None:
                return empty
        loop = f" for {var} in {it}"
        filt = f" if {cond}" if cond else ""
        # In Python 3.11 a generator is resumed for every item it yields, a list comprehension
        # runs in one go: what reads every item takes a list; any/all/first use a generator
        # that yields only the item that decides (same items evaluated, in the same order).
        if name == "count":
            test = f"({cond}) and ({el})" if cond else f"({el})"
            return f"b_len([1{loop} if {test}])"
        if name in ("max", "min"):
            # (`or [None]`, not `default=None`: a builtin called with a keyword takes CPython's
            # slow path, 0.25 against 0.11 us; `[*xs]` still refuses what is not iterable)
            return f"{name}([{el}{loop}{filt}] or [None])"
        if name == "first":
            return f"next(({el}{loop}{filt}), None)"
        if name == "any":
            test = f"({cond}) and ({el})" if cond else f"({el})"
            return f"next((True{loop} if {test}), False)"
        if name == "all":
            test = f"({cond}) and not ({el})" if cond else f"not ({el})"
            return f"next((False{loop} if {test}), True)"
        if name == "map":
            return f"_R({{{var}: {el}{loop}{filt}}})"
        return f"{name}([{el}{loop}{filt}])"

    def _listcomp(self, node, bound):
        el, var, it, cond = self._comprehension_parts(node, bound, 0)
        filt = f" if {cond}" if cond else ""
        return f"[{el} for {var} in {it}{filt}]"

    # operators ----------------------------------------------------------------------------
    # Folding only where the result is exactly what Python would compute at run time.
    def _ifexp(self, node, bound):
        then, cond, other = node.children
        then_text, cond_text, other_text = self.emit(then, bound), self.emit(cond, bound), self.emit(other, bound)
        known, value = _literal(cond_text)
        if known:
            return then_text if value else other_text
        return f"({then_text} if {cond_text} else {other_text})"

    def _or_(self, node, bound):
        return self._boolean(node, bound, "or")

    def _and_(self, node, bound):
        return self._boolean(node, bound, "and")

    def _boolean(self, node, bound, op: str) -> str:
        """`a or b` / `a and b`; with a literal `a`, Python's own answer: the operand that
        decides (a truthy `a` decides `or`, a falsy one decides `and`), else `b`."""
        left, right = self.emit(node.children[0], bound), self.emit(node.children[1], bound)
        known, value = _literal(left)
        if known:
            return left if bool(value) == (op == "or") else right
        return f"({left} {op} {right})"

    def _not_(self, node, bound):
        inner = self.emit(node.children[0], bound)
        known, value = _literal(inner)
        if known:
            return repr(not value)
        return f"(not {inner})"

    def _compare(self, node, bound):
        left, op, right = node.children
        left_text, right_text = self.emit(left, bound), self.emit(right, bound)
        (known_left, a), (known_right, b) = _literal(left_text), _literal(right_text)
        if known_left and known_right and str(op) in _COMPARE:
            try:
                return repr(bool(_COMPARE[str(op)](a, b)))
            except TypeError:
                pass  # e.g. 1 < 'x': left to fail at run time, where it is reported
        return f"({left_text} {op} {right_text})"

    def _in_(self, node, bound):
        return f"({self.emit(node.children[0], bound)} in {self.emit(node.children[1], bound)})"

    def _not_in(self, node, bound):
        return f"({self.emit(node.children[0], bound)} not in {self.emit(node.children[1], bound)})"

    def _binop(self, node, bound):
        left, op, right = node.children
        return f"({self.emit(left, bound)} {op} {self.emit(right, bound)})"

    def _neg(self, node, bound):
        return f"(-{self.emit(node.children[0], bound)})"


# What an aggregate over no items is (those whose value is a literal).
_EMPTY_AGGREGATE = {"count": "0", "sum": "0", "max": "None", "min": "None", "first": "None", "any": "False", "all": "True"}


def _used_once(tree, param: str, walrus: bool) -> bool:
    """Whether `param` is read exactly once in a function body `tree`, where the body always
    evaluates it exactly once: not in a branch of `if`/`else`, not right of `and`/`or`, not in
    a comprehension's element or condition (and, if its argument holds an assignment
    expression, not in a comprehension's iterable, where Python forbids one). An argument of
    any shape can then be written in its place: expressions have no side effects, so the value
    is the same; only which of two failing expressions fails first could differ."""
    uses = []

    def walk(node, once: bool, iterable: bool, hidden: bool) -> None:
        if not isinstance(node, lark.Tree):
            return
        kind, kids = node.data, node.children
        if kind == "name":
            if not hidden and str(kids[0]) == param:
                uses.append(once and not (walrus and iterable))
            return
        if kind in ("aggregate", "listcomp"):
            elem, var, iterable_node, cond = kids[1:5] if kind == "aggregate" else kids[0:4]
            walk(iterable_node, once, True, hidden)
            inner_hidden = hidden or str(var) == param
            walk(elem, False, iterable, inner_hidden)
            walk(cond, False, iterable, inner_hidden)
            return
        if kind == "ifexp":
            walk(kids[1], once, iterable, hidden)
            walk(kids[0], False, iterable, hidden)
            walk(kids[2], False, iterable, hidden)
            return
        if kind in ("and_", "or_"):
            walk(kids[0], once, iterable, hidden)
            walk(kids[1], False, iterable, hidden)
            return
        if kind == "record":   # field names are tokens; their values are read in order
            for fld in kids:
                if fld is not None:
                    walk(fld.children[1], once, iterable, hidden)
            return
        for kid in kids:
            walk(kid, once, iterable, hidden)

    walk(tree, True, False, False)
    return uses == [True]


def _is_plain(value) -> bool:
    return value is None or isinstance(value, (str, int, bool))


def to_python(text: str, scope: Scope, where: ExprSource | None = None, rule_id: str | None = None,
              fixed: dict | None = None) -> str:
    """Check one expression against `scope` and return equivalent Python expression text.
    With `fixed` (state name -> value), those state values are folded in as literals.

    Raises RulesError located in the YAML file (file:line:col, rule id, caret)."""
    where = where or ExprSource()
    text = str(text)
    try:
        tree = parse_expression(text)
        return _Emitter(scope, fixed=fixed).emit(tree, {})
    except ExprSyntaxError as exc:
        raise locate_in_yaml(text, where, exc.line, exc.column, exc.length, "syntax error: " + exc.message, rule_id) from None
    except CompileError as exc:
        raise locate_in_yaml(text, where, exc.line, exc.column, exc.length, exc.message, rule_id) from None
    except RecursionError:   # (a backstop: the parser refuses expressions nested too deeply)
        raise locate_in_yaml(text, where, 1, 1, 1, "the expression is nested too deeply to compile", rule_id) from None
