"""The failing rule of a fused function named from the line that failed, not from a counter.

A fused function (rules/module.py `guarded`) runs several rules; it used to set `i = k` before
each (two bytecodes a rule, run or not) so that its handler could name the rule that failed,
`_RuleRuntimeError(ids[i], exc)`. Python's `try` costs nothing until something raises, and the
traceback then says which line of this frame was running (for an exception raised in a called
function, the line of the call). So the counters are dropped and the handler maps that line,
relative to the `def` line, to the rule the counter would have named there: a table made here,
from the statements' places in the text `ast.unparse` writes (one line each, compound
statements as below).

Exact or not at all: where the counter's value at some statement is not one value whatever ran
before (a statement after an `if` whose branches set different counters, a loop or a nested
`try` holding counters), the function is left as it is. Where the text has more lines than the
layout counts (a docstring written over lines), the caller keeps the function as it was."""

from __future__ import annotations

import ast
from bisect import bisect_right

COUNTER = "i"


def rule_at(ids: tuple, starts: tuple, rules: tuple, exc: BaseException) -> str:
    """The id of the rule running at the line of the generated function where `exc` went by:
    from line `starts[n]` on (counted from the `def` line), the rule `ids[rules[n]]`."""
    frame = exc.__traceback__
    return ids[rules[bisect_right(starts, frame.tb_lineno - frame.tb_frame.f_code.co_firstlineno) - 1]]


def without_counters(function: ast.FunctionDef) -> tuple[ast.FunctionDef, int] | None:
    """A copy of `function` (a guarded function) without its `i = k` statements, its handler
    naming the rule by line; with the number of lines its text should have. None: left as it is
    (not a guarded function, no exact table, or a statement whose lines are not known)."""
    found = _handler(function)
    if found is None:
        return None
    main, raise_ = found
    layout = _Layout(main)
    body = layout.block(function.body, 0)
    if body is None or layout.unknown:
        return None
    ids, error = raise_.exc.args[0].value, raise_.exc.args[1]
    starts, rules = [0], [0]
    for line in sorted(layout.rows):
        if layout.rows[line] != rules[-1]:
            starts.append(line)
            rules.append(layout.rows[line])
    used = {layout.rows[line] for line in layout.tried if line in layout.rows}
    if not used or max(used) >= len(ids.elts):   # (no rule: left as it is)
        return None
    named = (ast.Constant(ids.elts[used.pop()].value) if len(used) == 1 else
             ast.Call(func=ast.Name(id="_rule_at", ctx=ast.Load()),
                      args=[ids, ast.Constant(tuple(starts)), ast.Constant(tuple(rules)), error], keywords=[]))
    new_raise = _copy(raise_, exc=ast.Call(func=raise_.exc.func, args=[named, error], keywords=[]))
    for statement in body:   # (the handler's raise, copied: the original function is kept)
        if isinstance(statement, ast.Try):
            for handler in statement.handlers:
                handler.body = [new_raise if inner is raise_ else inner for inner in handler.body]
    return ast.FunctionDef(name=function.name, args=function.args, body=body, decorator_list=[], returns=None), layout.line


def _is_counter(statement) -> bool:
    return (isinstance(statement, ast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name) and statement.targets[0].id == COUNTER
            and isinstance(statement.value, ast.Constant) and type(statement.value.value) is int)


def _handler(function: ast.FunctionDef):
    """(the top-level `try`, its `raise _RuleRuntimeError(ids[i], exc)`), or None."""
    for statement in function.body:
        if isinstance(statement, ast.Try):
            for handler in statement.handlers:
                for inner in handler.body:
                    call = inner.exc if isinstance(inner, ast.Raise) else None
                    if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "_RuleRuntimeError"
                            and len(call.args) == 2 and isinstance(call.args[0], ast.Subscript)
                            and isinstance(call.args[0].slice, ast.Name) and call.args[0].slice.id == COUNTER
                            and isinstance(call.args[0].value, ast.Tuple)):
                        return statement, inner
    return None


class _Layout:
    """Lines of the text `ast.unparse` writes for a function's body, each statement on its own
    line(s); `rows`: line (counted from the `def` line, 0) -> the counter's value there."""

    def __init__(self, main: ast.Try):
        self.main = main     # the function's own try: its handlers are not under a rule
        self.line = 0        # the last line written
        self.rows: dict = {}
        self.tried: list = []   # the lines of the main try's body
        self.unknown = False

    def block(self, statements: list, counter) -> list | None:
        """The statements without counters (a `pass` for an empty block), laid out from the next
        line; sets self.after to the counter's value after them (None: not one value)."""
        kept = []
        for statement in statements:
            if _is_counter(statement):
                counter = statement.value.value
                continue
            laid = self.statement(statement, counter)
            if laid is None:
                return None
            new, counter = laid
            kept.append(new)
        if not kept:
            kept = [ast.Pass()]
            self.line += 1
            self.rows[self.line] = counter if counter is not None else 0
        self.after = counter
        return kept

    def _here(self, counter) -> bool:
        self.line += 1
        if counter is None:
            self.unknown = True
            return False
        self.rows[self.line] = counter
        return True

    def statement(self, statement, counter):
        kind = type(statement)
        if kind in _SIMPLE:
            self._here(counter)
            return statement, counter
        if kind is ast.If:
            return self._if(statement, counter)
        if kind is ast.Try:
            return self._try(statement, counter)
        if kind in (ast.For, ast.While):
            self._here(counter)
            body = self.block(statement.body, counter)
            if body is None or self.after != counter:   # (the header runs again after the body)
                return None
            orelse = None
            if statement.orelse:
                self._here(counter)
                orelse = self.block(statement.orelse, counter)
                if orelse is None:
                    return None
                counter = self.after
            new = _copy(statement, body=body, orelse=orelse or [])
            return new, counter
        return None   # (a statement whose lines are not known here)

    def _if(self, statement, counter):
        self._here(counter)
        body = self.block(statement.body, counter)
        if body is None:
            return None
        ends = [self.after]
        orelse = statement.orelse
        if len(orelse) == 1 and type(orelse[0]) is ast.If:   # (written `elif`: the same layout)
            laid = self._if(orelse[0], counter)
            if laid is None:
                return None
            new_orelse, after = [laid[0]], laid[1]
        elif orelse:
            self.line += 1   # (`else:`)
            new_orelse = self.block(orelse, counter)
            if new_orelse is None:
                return None
            after = self.after
        else:
            new_orelse, after = [], counter
        ends.append(after)
        return _copy(statement, body=body, orelse=new_orelse), (ends[0] if ends[0] == ends[1] else None)

    def _try(self, statement, counter):
        self.line += 1   # (`try:`)
        first = self.line + 1
        body = self.block(statement.body, counter)
        if body is None:
            return None
        if statement is self.main:
            self.tried = range(first, self.line + 1)
            handlers = []
            for handler in statement.handlers:
                self._here(0)
                inner = self.block(handler.body, 0)
                if inner is None or statement.orelse or statement.finalbody:
                    return None
                handlers.append(_copy(handler, body=list(inner)))
            return _copy(statement, body=body, handlers=handlers), 0   # (after it: outside every rule)
        if self.after != counter and (statement.handlers or statement.finalbody or statement.orelse):
            return None   # (where the body failed is not one counter: the outer handler's table is per line)
        handlers = []
        for handler in statement.handlers:
            self._here(counter)
            inner = self.block(handler.body, counter)
            if inner is None or self.after != counter:
                return None
            handlers.append(_copy(handler, body=inner))
        orelse = finalbody = []
        if statement.orelse:
            self.line += 1
            orelse = self.block(statement.orelse, counter)
            if orelse is None or self.after != counter:
                return None
        if statement.finalbody:
            self.line += 1
            finalbody = self.block(statement.finalbody, counter)
            if finalbody is None or self.after != counter:
                return None
        return _copy(statement, body=body, handlers=handlers, orelse=orelse, finalbody=finalbody), counter


_SIMPLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return, ast.Raise, ast.Pass, ast.Break, ast.Continue,
           ast.Delete, ast.Global, ast.Nonlocal, ast.Assert)


def _copy(node, **fields):
    new = type(node).__new__(type(node))
    new.__dict__.update(node.__dict__)
    new.__dict__.update(fields)
    return new
