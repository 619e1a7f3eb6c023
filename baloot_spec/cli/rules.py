"""`baloot rules check|diff|names|doc` and `baloot variants`: the rules of a variant, shown."""

from __future__ import annotations

import json
import sys

from ..text import show
from .options import EXIT_FOUND, EXIT_OK, Parser, Usage, parse_sets, variant_options


def register(commands) -> None:
    """Add `rules` (check, diff, names, doc) and `variants` to the top-level subcommands."""
    rules = commands.add_parser("rules", help="check and show the rules")
    rules.set_defaults(help_of=rules)   # `baloot rules` alone: this help, not the top-level one
    rules_commands = rules.add_subparsers(dest="rules_command", metavar="SUBCOMMAND", parser_class=Parser)
    check = rules_commands.add_parser("check", help="load, validate and compile the rules of a variant; print it",
                                      description="Load every rules file, check it against its schema, resolve the "
                                                  "variant and compile every expression. Prints the resolved variant "
                                                  "(preset, knob values, overlays, hash).")
    variant_options(check)
    check.add_argument("--json", action="store_true", help="print the resolved variant as JSON")
    check.add_argument("--show-code", metavar="PHASE", help="print the Python generated for the rules of PHASE (for review)")
    check.set_defaults(handler=_rules_check)
    diff = rules_commands.add_parser(
        "diff", help="every knob and rule that differs between two variants",
        description="List every knob value and every rule item (by id) that differs between two variants, with the "
                    "source of each. A variant is a preset name or 'preset=P,set=KNOB=VALUE,overlay=NAME|FILE' (set "
                    "and overlay repeatable). --preset/--set/--overlay give one side, your own variant: B when A is "
                    "given, A when only --against is, else B against default.",
        epilog="Examples: baloot rules diff default riyadh; baloot rules diff default --against "
               "'preset=riyadh,set=kawesh=true,overlay=club.yaml'; baloot rules diff --overlay club.yaml")
    diff.add_argument("preset_a", metavar="A", nargs="?", help="a variant (default: default)")
    diff.add_argument("preset_b", metavar="B", nargs="?", help="the variant compared with A")
    diff.add_argument("--against", metavar="VARIANT", help="the variant compared with A (instead of B)")
    diff.add_argument("--preset", metavar="P", help="your variant's preset")
    diff.add_argument("--set", dest="sets", action="append", default=[], metavar="KNOB=VALUE",
                      help="your variant's knob value (repeatable)")
    diff.add_argument("--overlay", dest="overlays", action="append", default=[], metavar="FILE",
                      help="your variant's overlay (a name or a .yaml path; repeatable)")
    diff.add_argument("--json", action="store_true", help="print as JSON")
    diff.set_defaults(handler=_rules_diff)
    names = rules_commands.add_parser(
        "names", help="every name an expression may use, per phase, with its type and meaning",
        description="List every name a rule expression may use in each context (a phase's rules and effects, "
                    "functions, facts, scoring steps, match steps): state, the action's fields, functions, "
                    "builtins, aggregates, constants and knobs, with its type (\"unknown\" where nothing declares "
                    "it) and meaning. Taken from the compiler's own scopes for the variant given. The language "
                    "itself: rules/LANGUAGE.md.")
    variant_options(names)
    names.add_argument("--phase", metavar="P", help="only this phase (or: functions, facts, scoring, match)")
    names.add_argument("--json", action="store_true", help="print as JSON")
    names.set_defaults(handler=_rules_names)
    doc = rules_commands.add_parser("doc", help="print rules/VARIANTS.md (the knob and preset tables)",
                                    description="Print the table of every knob (values, default, meaning, sources) "
                                                "and every preset, or write it with --out (the repository's copy: "
                                                "--out rules/VARIANTS.md).")
    doc.add_argument("--out", metavar="FILE", help="write to FILE instead of standard output ('-': standard output)")
    doc.add_argument("--check", action="store_true",
                     help="exit 1 if FILE (default: the rules' VARIANTS.md) is out of date; write nothing")
    doc.add_argument("--language", action="store_true",
                     help="the expression language reference (rules/LANGUAGE.md) instead of the knob tables")
    doc.set_defaults(handler=_rules_doc)

    variants = commands.add_parser("variants", help="list the presets and their sources")
    variants.add_argument("--json", action="store_true", help="print as JSON")
    variants.set_defaults(handler=_variants)



def _rules_check(args) -> int:
    from ..rules import load_variant
    rules = load_variant(args.preset, parse_sets(args.sets), args.overlays)
    if args.show_code:
        from ..rules.show import phase_code
        print(phase_code(rules, args.show_code), end="")
        return EXIT_OK
    described = rules.variant.describe()
    counts = {
        "files": list(rules.variant.ruleset.files),
        "rules": len(rules.rules_by_id),
        "functions": len(rules.functions),
        "phases": list(rules.phases),
    }
    if args.json:
        print(json.dumps(described | {"loaded": counts}, indent=2))
        return EXIT_OK
    print(f"rules ok: {len(counts['files'])} files, {counts['rules']} rules, {counts['functions']} functions, "
          f"phases {' -> '.join(counts['phases'])}")
    print(f"preset:   {described['preset']}")
    print(f"hash:     {described['hash']} (rules_version {described['rules_version']})")
    if described["overlays"]:
        print(f"overlays: {', '.join(described['overlays'])}")
    print("knobs:")
    defaults = {name: knob.default for name, knob in rules.variant.params.items()}
    for name, value in described["params"].items():
        mark = "" if value == defaults[name] else "   (not the default)"
        print(f"  {name} = {show(value)}{mark}")
    return EXIT_OK


def _diff_sides(args):
    """Which two variants `rules diff` compares (rules/diff.py reads the variant syntax)."""
    from ..rules.diff import VariantSpec, parse_spec
    a = parse_spec(args.preset_a) if args.preset_a else None
    b = parse_spec(args.preset_b) if args.preset_b else None
    if args.against:
        if b is not None:
            raise Usage("give the second variant as B or as --against, not both")
        b = parse_spec(args.against)
    if args.preset or args.sets or args.overlays:
        own = VariantSpec(args.preset or "default", parse_sets(args.sets), list(args.overlays))
        if a is not None and b is not None:
            raise Usage("two variants are named already: --preset/--set/--overlay would be a third")
        if a is None and b is not None:
            a = own
        else:
            b = own
    return a or VariantSpec(), b or VariantSpec()


def _rules_diff(args) -> int:
    from ..rules.diff import SpecError, diff_specs
    try:
        a, b = _diff_sides(args)
    except SpecError as exc:
        raise Usage(str(exc)) from None
    diff = diff_specs(a, b)
    if args.json:
        print(json.dumps(diff, indent=2, default=str))
        return EXIT_OK
    print(f"a: {a.label} ({diff['a']['hash']})")
    print(f"b: {b.label} ({diff['b']['hash']})")
    print(f"{len(diff['knobs'])} knobs, {len(diff['rules'])} rule items differ")
    for knob in diff["knobs"]:
        print(f"  knob {knob['knob']}: {show(knob['a'])} -> {show(knob['b'])}")
        print(f"      a: {knob['source a']}")
        print(f"      b: {knob['source b']}")
    for rule in diff["rules"]:
        what = rule["difference"] + (f" ({', '.join(rule['fields'])})" if rule.get("fields") else "")
        print(f"  {rule['section'][:-1] if rule['section'].endswith('s') else rule['section']} {rule['id']}: {what}")
        if rule["difference"] == "changed":
            print(f"      a: {rule['source a']}")
            print(f"      b: {rule['source b']}")
        else:
            print(f"      {rule['source']}")
    return EXIT_OK


def _rules_names(args) -> int:
    from ..rules import load_variant
    from ..rules.names import NamesError, names_listing, names_text
    variant = load_variant(args.preset, parse_sets(args.sets), args.overlays).variant
    try:
        listing = names_listing(variant, args.phase)
    except NamesError as exc:
        raise Usage(str(exc)) from None
    print(json.dumps(listing, indent=2, default=str) if args.json else names_text(listing), end="\n" if args.json else "")
    return EXIT_OK


def _rules_doc(args) -> int:
    from ..resources import rules_dir
    from ..rules.docs import variants_markdown
    if args.language:
        from ..rules.language import language_markdown
    text = language_markdown() if args.language else variants_markdown()
    if args.check:
        default = "LANGUAGE.md" if args.language else "VARIANTS.md"
        target = args.out if args.out and args.out != "-" else str(rules_dir() / default)
        try:
            current = open(target, encoding="utf-8").read()
        except OSError:
            current = None
        if current != text:
            print(f"{target} is out of date: run `baloot rules doc{' --language' if args.language else ''} --out {target}`",
                  file=sys.stderr)
            return EXIT_FOUND
        print(f"{target} is up to date")
        return EXIT_OK
    if not args.out or args.out == "-":
        print(text, end="")
        return EXIT_OK
    from ..atomic import atomic_write
    try:
        with atomic_write(args.out) as handle:
            handle.write(text)
    except OSError as exc:
        raise Usage(f"cannot write {args.out}: {exc.strerror or exc}") from None
    print(f"wrote {args.out}", file=sys.stderr)
    return EXIT_OK


def _variants(args) -> int:
    from ..rules.loader import load_presets
    presets = load_presets()
    data = [{"preset": name, "title": doc["title"], "extends": doc.get("extends"), "sources": list(doc["sources"]),
             "set": {k: v for k, v in (doc.get("set") or {}).items()}, "overlays": list(doc.get("overlays") or [])}
            for name, (doc, _display) in sorted(presets.items())]
    if args.json:
        print(json.dumps(data, indent=2))
        return EXIT_OK
    for item in data:
        base = f" (extends {item['extends']})" if item["extends"] else ""
        print(f"{item['preset']}{base}: {item['title']}")
        for source in item["sources"]:
            print(f"    source: {source}")
        for knob, value in item["set"].items():
            print(f"    {knob} = {show(value)}")
    return EXIT_OK

