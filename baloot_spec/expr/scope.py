"""What an expression may name where it is written (`Scope`), and the error for a name or shape
problem at a node (`CompileError`): shared by the resolver (resolve.py), the emitter (emit.py)
and the rules compiler (rules/compile.py), which builds one scope per place in the rules."""

from __future__ import annotations

from dataclasses import dataclass, field

AGGREGATES = {"any", "all", "sum", "count", "max", "min", "first", "map"}
# The generated module's knob values (knob -> value), where knobs are read at run time
# (Scope.knobs_as_data): written by rules/compiled.py `instantiate`, read by expr/emit.py.
KNOBS = "_K"


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
    # Declared state fields' types where known (rules/passes/state_types.py); others `unknown`.
    state_types: dict = field(default_factory=dict)
    # A finished trick's lists that hold one item per seat (engine/state.py PER_SEAT_LISTS).
    per_seat_lists: frozenset = frozenset()
    # Rule functions whose body is substituted at the call site (name -> (params, tree, scope)):
    # filled by the rules compiler as each function is checked, shared by every scope.
    inline: dict = field(default_factory=dict)
    indexable: frozenset = frozenset()    # constant lists with a precomputed position table k__ix_name
    seats: int = 0                        # seats at the table (k__after[steps][seat] is their geometry)
    # Zero-argument rule functions (derived values), name -> (tree, scope): their bodies are
    # inlined into code specialised on fixed state (see `fixed` below), like `inline`.
    derived: dict = field(default_factory=dict)
    # Derived values whose whole body the knobs fold to a literal (name -> its value), filled as
    # the functions are written (rules/compile.py): read as that literal, not through a call.
    literal_derived: dict = field(default_factory=dict)
    const_values: dict = field(default_factory=dict)   # constant -> its value (its type, for expr/resolve.py)
    # State names that are the engine's own fields wherever they are read (typed by
    # expr/types.py ENGINE_FIELD_TYPES); a name a fact or step reuses (`tricks`) is not.
    engine_fields: frozenset = frozenset()
    # Knobs read at run time from the generated module's `_K` (knob -> value) instead of folded
    # in as literals: one compilation then serves every knob assignment (rules/open_variants.py).
    knobs_as_data: bool = False


class CompileError(Exception):
    """A name or shape problem at a node of the expression tree."""

    def __init__(self, message: str, line: int, column: int, length: int = 1):
        super().__init__(message)
        self.message, self.line, self.column, self.length = message, line, column, length
