"""Passes over the generated `ast` of the rules compiler, each a function of one job with its
own tests, run by the fusing stage (rules/fuse.py) and compile_variant:

- cards.py       `on_cards`: a trick phase's filters over the cards themselves, not plays;
- card_tables.py `CardTables`: in a specialised phase, a rule function of one card that reads
                 only constants, knobs and the contract becomes a lookup in a table of the deck,
                 keyed too by the derived values it reads that have a few known values
                 (domains.py `key_domain`: the led suit);
- keyed.py       `key_fields`, `read_only`: a derived value reading only state fields of a few
                 values (seats, compared literals, a map's keys) becomes a table keyed by them,
                 filled as positions ask, with the memoised body behind it;
- candidates.py  `per_candidate`: a calls phase's filter written out per candidate, its fields
                 folded in (`fold`);
- dispatch.py    `dispatch_field`, `dispatched`: a calls phase's action effects written out per
                 value of one action field, their `when`s folded;
- hoist.py       `hoisted`: derived values read before the loop over the candidates;
- guards.py      `action_guard` / `any_guard`: the test of the action alone that rules a rule out;
- lazy_maps.py   `lazy_maps`: an enter effect's maps made LazyMaps, and `held_containers`;
- flow.py        `following`: which phases can follow each one (from the emitted `next`);
- settled.py     `settle`: in a lowered function, a lazy local's test whose answer is known
                 where it stands replaced by the branch that runs (module.py, per function);
- fused_loops.py `fuse_loops`: then accumulating loops over the same iterable written as one
                 (the originals run again, in place, if it raises);
- fused_reads.py `held_names`: in a fused loop (exact by that replay), module names read into
                 locals before it;
- record_stores.py `record_stores`: then a record display or literal that is a statement's
                 value filled item by item into a new record;
- scalar_records.py `scalar_records`: then a record filled and read back by a literal key in
                 one function read from the local its value was stored from;
- field_reads.py `field_reads`: then a loop item's field read again in the loop's body read once;
- hoisted_counts.py `hoisted_counts`: then a count of a list's items whose attribute equals a
                 value, inside a loop that leaves the list alone, as `list.count` of the
                 attribute's values, read into a list at the first count;
- state_reads.py `state_reads`: last, a state field read twice in a function that cannot change
                 the state read once, at its first read that always runs, into a local;
- first_reads.py `plan_block`: where a repeated read runs and may be kept, the one walk those two
                 passes share.
- rule_lines.py  `without_counters`, `rule_at`: a fused function's failing rule named from the
                 line that failed, not from a counter set before each rule;
- kept.py        `keep_derived`, `fresh_kept`: derived values kept across events (`S._kept`)
                 while nothing writes a field they read;
- state_types.py `state_types`: a declared state field's type, from its initial value and the
                 effects that set it.

Knob folding, inlining, per-contract specialisation and, in a trick phase, per length of the
current trick (expr/lengths.py) happen as the tree is emitted (expr/emit.py); loops over short
constant lists are written out by expr/unroll.py and
comprehensions as loops by expr/lower.py. No pass reads generated text.
"""
