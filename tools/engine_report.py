"""Published conformance reports of real engines (conformance/reports/<engine>.json and .md).

    python tools/engine_report.py build ENGINE --source DIR [--commit SHA] [--build-dir DIR]
    python tools/engine_report.py build ENGINE --run-json FILE [--fingerprint-json FILE]
                                                                     (reuse a run, no build)
    python tools/engine_report.py matrix [--write]                   (the README's matrix)

`build` builds the adapter in conformance/engines/ENGINE/ from a checkout of the engine
(its build.sh), runs `baloot conformance run --engine ...` on it, and joins every case that did
not pass with the adapter's classification.json: each failure, error and skip gets its cause
(`departure` of the engine, with the rule and the rulebook quote; `ours`, a bug of
baloot-spec; `protocol`, a limit of baloot-protocol/1 and what would lift it; `skipped`, a
notion the engine lacks). A case the classification does not explain is listed as
`unclassified` and the exit status is 1: a published report explains every failure.
When baloot_spec.conformance.fingerprint can be imported, `build --source` also fingerprints the
engine (which variant of ours it plays) and the report carries it (JSON `fingerprint`, Markdown
"Which Baloot it plays"); else the report says why it has none.
`matrix` prints (or with --write puts into conformance/README.md, between its markers) the
engines x features table made from the published reports.

Exit status: 0 written, 1 unclassified cases, 2 usage or unreadable input, 130 interrupted.
No test needs an engine's source: the reports are data (tests/test_engine_reports.py).
"""

from __future__ import annotations

import argparse
import datetime
import fnmatch
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # this checkout's baloot_spec (the fingerprint), not an installed one
    sys.path.insert(0, str(ROOT))
ENGINES = ROOT / "conformance" / "engines"
REPORTS = ROOT / "conformance" / "reports"
README = ROOT / "conformance" / "README.md"
FORMAT = "baloot-engine-report/1"
CAUSES = ("departure", "ours", "protocol", "skipped")
NOT_PASSING = ("fail", "error", "skipped")
MATRIX_BEGIN = "<!-- engine-matrix:begin (tools/engine_report.py matrix --write) -->"
MATRIX_END = "<!-- engine-matrix:end -->"


class ReportError(Exception):
    """Bad input: a message for the user, exit status 2."""


def read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ReportError(f"{path}: cannot read JSON: {err}") from None


def engine_files(name: str) -> tuple[dict, dict]:
    """The adapter's engine.json (repository, commit, command) and classification.json."""
    folder = ENGINES / name
    if not (folder / "engine.json").is_file():
        known = sorted(p.parent.name for p in ENGINES.glob("*/engine.json"))
        raise ReportError(f"no engine {name!r} in {ENGINES} (known: {', '.join(known)})")
    manifest = read_json(folder / "engine.json")
    classification = read_json(folder / "classification.json")
    for number, entry in enumerate(classification.get("entries", [])):
        if entry.get("cause") not in CAUSES:
            raise ReportError(f"{folder / 'classification.json'}: entries[{number}]: cause must be one of {CAUSES}")
        if not entry.get("cases") and not entry.get("message_contains"):
            raise ReportError(f"{folder / 'classification.json'}: entries[{number}]: needs cases or message_contains")
    return manifest, classification


def statuses_explained(entry: dict) -> tuple:
    """The outcomes an entry by case id explains: a departure or a bug of ours a failure (a case
    that errs or is skipped fails for another reason), a skip a skip, a protocol limit any."""
    if entry.get("status"):
        return (entry["status"],)
    return {"departure": ("fail",), "ours": ("fail",), "skipped": ("skipped",)}.get(entry["cause"], NOT_PASSING)


def classify(outcome: dict, entries: list) -> dict | None:
    """The classification entry that explains this case's outcome (None: unexplained)."""
    for entry in entries:
        if entry.get("message_contains"):
            wanted = entry.get("status", "skipped")
            if outcome["status"] == wanted and entry["message_contains"] in outcome.get("message", ""):
                return entry
            continue
        if any(fnmatch.fnmatchcase(outcome["id"], pattern) for pattern in entry["cases"]):
            if outcome["status"] in statuses_explained(entry):
                return entry
    return None


def make_report(run: dict, manifest: dict, classification: dict, date: str,
                fingerprint: dict | None = None, fingerprint_note: str = "") -> dict:
    """The published report: the run's totals and features, and every non-passing case explained."""
    entries = classification.get("entries", [])
    cases, unclassified = [], []
    for outcome in run["cases"]:
        if outcome["status"] not in NOT_PASSING:
            continue
        entry = classify(outcome, entries)
        row = {"id": outcome["id"], "status": outcome["status"], "message": outcome.get("message", "")}
        if outcome.get("keys"):  # per expected key: pass, fail or unsupported (not produced)
            row["keys"] = outcome["keys"]
        if entry is None:
            unclassified.append(row)
            continue
        cases.append(_explained(row, entry))
    fp_cases, fp_unclassified = explain_fingerprint(fingerprint, entries)
    totals = run["totals"]
    by_cause = {cause: sum(1 for c in cases if c["cause"] == cause) for cause in CAUSES}
    return {
        "format": FORMAT,
        "engine": {key: manifest[key] for key in ("name", "repository", "commit", "language")},
        "date": date,
        "corpus": run.get("corpus"),
        "harness": run.get("tool"),
        "claims": run["engine"].get("claims", {}),
        "summary": summary_line(manifest["name"], manifest["commit"], totals),
        "totals": {key: totals[key] for key in ("pass", "fail", "error", "skipped", "unsupported", "total")},
        "keys": totals.get("keys", {}),
        "by_cause": by_cause,
        "features": {name: {k: v for k, v in counts.items() if k in ("pass", "fail", "error", "skipped", "unsupported")}
                     for name, counts in run.get("features", {}).items()},
        "cases": cases,
        "unclassified": unclassified,
        "fingerprint": fingerprint,
        "fingerprint_note": "" if fingerprint else (fingerprint_note or "no fingerprint was made"),
        # the cases that still differ under the variant the fingerprint found, each explained
        "fingerprint_cases": fp_cases,
        "fingerprint_unclassified": fp_unclassified,
    }


def explain_fingerprint(fingerprint: dict | None, entries: list) -> tuple[list, list]:
    """Every case that differs under the fingerprint's variant (what no known variant explains)
    joined with the classification, as a failure of the run is: (explained rows, unexplained)."""
    rows, unclassified = [], []
    for failure in ((fingerprint or {}).get("run") or {}).get("failures", []):
        engine = failure.get("engine", "")
        # an engine that refused the setup or erred never answered: a run calls that an error
        status = "error" if engine.startswith(("the setup refused", "error (")) else "fail"
        row = {"id": failure["id"], "status": status,
               "message": f"the engine: {engine}; the variant: {failure.get('expected', '')}"}
        entry = classify(row, entries)
        if entry is None:
            unclassified.append(row)
            continue
        rows.append(_explained(row, entry))
    return rows, unclassified


def _explained(row: dict, entry: dict) -> dict:
    """A report row with its classification: the cause, the rules, and the knob, quote and
    explanation where the entry gives them."""
    row.update({"cause": entry["cause"], "rules": entry.get("rules", [])})
    for key in ("knob", "quote", "explanation"):
        if entry.get(key):
            row[key] = entry[key]
    return row


def summary_line(name: str, commit: str, totals: dict) -> str:
    return (f"conformance: {totals['pass']} passed, {totals['fail']} failed, {totals['error']} errors, "
            f"{totals['skipped']} skipped, {totals['unsupported']} unsupported of {totals['total']} cases "
            f"({name} {commit})")


def markdown(report: dict) -> str:
    """The report for people: the summary, the causes, each explained case grouped by explanation."""
    engine = report["engine"]
    lines = [f"# Conformance report: {engine['name']}", "",
             f"- Engine: [{engine['repository']}]({engine['repository']}) at commit `{engine['commit']}` ({engine['language']})",
             f"- Date: {report['date']}; corpus {report['corpus'].get('version')} ({report['corpus'].get('cases')} cases, "
             f"hash {report['corpus'].get('hash')})",
             f"- Claims: presets {', '.join(report['claims'].get('presets', []))}; setups "
             f"{', '.join(report['claims'].get('setups', ['events']))}; commands {', '.join(report['claims'].get('commands', []))}",
             "", "```", report["summary"], "```", "",
             "| cause | cases |", "| --- | --- |"]
    lines += [f"| {cause} | {count} |" for cause, count in report["by_cause"].items()]
    if report["unclassified"]:
        lines += ["", f"**{len(report['unclassified'])} cases are not explained yet:** "
                  + ", ".join(c["id"] for c in report["unclassified"])]
    lines += explained_sections(report["cases"], "##")
    lines += ["", "## Which Baloot it plays", ""]
    if report.get("fingerprint"):  # its headings one level under this section's
        lines += ["#" + line if line.startswith("#") else line
                  for line in fingerprint_markdown(report["fingerprint"]).rstrip("\n").split("\n")]
        rows, unexplained = report.get("fingerprint_cases", []), report.get("fingerprint_unclassified", [])
        lines += ["", "### Why each case differs under that variant", ""]
        if unexplained:
            lines.append(f"**{len(unexplained)} cases are not explained yet:** " + ", ".join(c["id"] for c in unexplained))
        counts = {cause: sum(1 for r in rows if r["cause"] == cause) for cause in CAUSES}
        lines.append("By cause: " + ", ".join(f"{cause} {n}" for cause, n in counts.items() if n) if rows
                     else "No case differs under that variant.")
        lines += explained_sections(rows, "####")
    else:
        lines.append(f"No fingerprint: {report.get('fingerprint_note') or 'none was made'}.")
    lines += ["", "## Features", "", "| feature | pass | fail | error | skipped | unsupported |",
              "| --- | --- | --- | --- | --- | --- |"]
    for name, counts in report["features"].items():
        lines.append(f"| {name} | " + " | ".join(str(counts.get(k, 0)) for k in
                                                  ("pass", "fail", "error", "skipped", "unsupported")) + " |")
    return "\n".join(lines) + "\n"


def explained_sections(cases: list, heading: str) -> list:
    """The explained cases grouped by cause, then by explanation (one bullet per explanation)."""
    lines = []
    groups: dict = {}
    for case in cases:
        groups.setdefault((case["cause"], case.get("explanation", "")), []).append(case)
    for cause in CAUSES:
        chosen = [(key, rows) for key, rows in groups.items() if key[0] == cause]
        if not chosen:
            continue
        lines += ["", f"{heading} {cause} ({sum(len(r) for _, r in chosen)})"]
        for (_, explanation), rows in chosen:
            first = rows[0]
            lines += ["", f"- **{', '.join(r['id'] for r in rows)}**"]
            if first.get("rules"):
                lines.append(f"  - rules: {', '.join('`' + r + '`' for r in first['rules'])}"
                             + (f"; the engine plays `{first['knob']}`" if first.get("knob") else ""))
            if first.get("quote"):
                lines.append(f"  - source: {first['quote']}")
            lines.append(f"  - {explanation}")
            if cause != "skipped":
                lines.append(f"  - e.g. {first['id']}: {first['message']}")
    return lines


def fingerprint_module():
    """The functions `fingerprint` and `to_markdown` of baloot_spec.conformance.fingerprint (the
    latter may live in its fingerprint_report), or None while they do not exist (the report says so)."""
    try:
        from baloot_spec.conformance import fingerprint
    except ImportError:
        return None
    render = getattr(fingerprint, "to_markdown", None)
    if render is None:
        try:
            from baloot_spec.conformance.fingerprint_report import to_markdown as render
        except ImportError:
            return None
    return SimpleNamespace(fingerprint=fingerprint.fingerprint, to_markdown=render)


def fingerprint_markdown(fp: dict) -> str:
    module = fingerprint_module()
    if module is not None:
        return module.to_markdown(fp)
    return "```json\n" + json.dumps(fp, ensure_ascii=False, indent=1) + "\n```\n"


def engine_command(manifest: dict, build_dir: Path) -> str:
    """engine.json's command with {build} replaced by the folder the adapter was built into."""
    return " ".join(part.replace("{build}", str(build_dir)) for part in manifest["command"])


def make_fingerprint(command: str) -> tuple[dict | None, str]:
    """The engine's fingerprint, or None and why not (the report is still written)."""
    module = fingerprint_module()
    if module is None:
        return None, "baloot_spec.conformance.fingerprint is not importable in this checkout"
    try:
        return module.fingerprint(command), ""
    except Exception as err:  # another module's failure: say it in the report, do not lose the run
        return None, f"the fingerprint failed: {type(err).__name__}: {err}"


def build_and_run(name: str, manifest: dict, source: Path, commit: str | None, build_dir: Path) -> dict:
    """Build the adapter from the engine's checkout into build_dir, then run the corpus on it."""
    env = dict(os.environ)
    env.pop("ENGINE_COMMIT", None)
    if commit:  # else build.sh asks git for the checkout's commit
        env["ENGINE_COMMIT"] = commit
    env["BUILD_DIR"] = str(build_dir)
    build = subprocess.run(["sh", str(ROOT / manifest["build"]), str(source)], cwd=ROOT, env=env)
    if build.returncode != 0:
        raise ReportError(f"the build of {name} failed (exit {build.returncode}): {manifest['build']} {source}")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run.json"
        command = engine_command(manifest, build_dir)
        subprocess.run([sys.executable, "-m", "baloot_spec", "conformance", "run", "--engine", command,
                        "--json", str(out), "--quiet"], cwd=ROOT)
        if not out.is_file():
            raise ReportError(f"the conformance run of {name} wrote no report")
        return read_json(out)


def engines_with_reports() -> list[dict]:
    return [read_json(path) for path in sorted(REPORTS.glob("*.json"))]


def matrix(reports: list[dict]) -> str:
    """Engines x features: pass/fail (error, skipped) per feature; '—' where nothing was run."""
    names = [r["engine"]["name"] for r in reports]
    features = list(json.loads((ROOT / "conformance" / "features.json").read_text())["features"])
    lines = ["| feature | " + " | ".join(names) + " |", "| --- |" + " --- |" * len(names)]
    for feature in features:
        cells = []
        for report in reports:
            counts = report["features"].get(feature, {})
            run = sum(counts.get(k, 0) for k in ("pass", "fail", "error", "skipped"))
            if not run:
                cells.append("—")
                continue
            cell = f"{counts.get('pass', 0)}/{run}"
            extra = [f"{counts[k]} {k}" for k in ("fail", "error", "skipped") if counts.get(k)]
            cells.append(cell + (f" ({', '.join(extra)})" if extra else ""))
        lines.append(f"| {feature} | " + " | ".join(cells) + " |")
    lines += ["", "| engine | commit | language | summary | departures | ours | protocol | skipped | plays (fingerprint) |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for report in reports:
        e, c = report["engine"], report["by_cause"]
        lines.append(f"| [{e['name']}](reports/{e['name']}.md) | `{e['commit'][:12]}` | {e['language']} | "
                     f"{report['totals']['pass']} passed, {report['totals']['fail']} failed, "
                     f"{report['totals']['error']} errors of {report['totals']['total']} | "
                     f"{c['departure']} | {c['ours']} | {c['protocol']} | {c['skipped']} | {fingerprint_cell(report)} |")
    return "\n".join(lines) + "\n"


def fingerprint_cell(report: dict) -> str:
    """The variant line the engine's fingerprint found (`--preset P --set K=V ...`), or '—'."""
    line = ((report.get("fingerprint") or {}).get("variant") or {}).get("line")
    if not line:
        return "—"
    rows = report.get("fingerprint_cases", []) + report.get("fingerprint_unclassified", [])
    causes = {cause: sum(1 for r in rows if r.get("cause") == cause) for cause in CAUSES}
    said = ", ".join(f"{n} {cause}" for cause, n in causes.items() if n)
    return f"`{line}`; under it {len(rows)} cases differ" + (f" ({said})" if said else "")


def write_matrix(text: str) -> None:
    readme = README.read_text(encoding="utf-8")
    if MATRIX_BEGIN not in readme or MATRIX_END not in readme:
        raise ReportError(f"{README}: the matrix markers are missing ({MATRIX_BEGIN} ... {MATRIX_END})")
    head, rest = readme.split(MATRIX_BEGIN, 1)
    _, tail = rest.split(MATRIX_END, 1)
    README.write_text(head + MATRIX_BEGIN + "\n" + text + MATRIX_END + tail, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="engine_report.py", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="build, run and write conformance/reports/ENGINE.json and .md")
    b.add_argument("engine", help="an adapter folder name in conformance/engines (with engine.json)")
    b.add_argument("--source", type=Path, help="a checkout of the engine at its pinned commit")
    b.add_argument("--commit", help="the checkout's commit, when it is not a git checkout (default: engine.json's)")
    b.add_argument("--build-dir", type=Path, help="where build.sh writes the adapter (default "
                   "conformance/engines/ENGINE/build; keep builds outside the repository, e.g. /work/engines/build/ENGINE)")
    b.add_argument("--run-json", type=Path, help="use this `conformance run --json` report instead of building and running")
    b.add_argument("--fingerprint-json", type=Path, help="with --run-json: the engine's `conformance fingerprint --json` "
                   "to embed (default: none)")
    b.add_argument("--out", type=Path, default=REPORTS, help="the folder of the reports (default conformance/reports)")
    b.add_argument("--date", help="the report's date (default today, UTC)")
    m = sub.add_parser("matrix", help="print the engines x features matrix of the published reports")
    m.add_argument("--write", action="store_true", help="put it into conformance/README.md between its markers")
    args = parser.parse_args(argv)
    try:
        if args.command == "matrix":
            text = matrix(engines_with_reports())
            if args.write:
                write_matrix(text)
            else:
                sys.stdout.write(text)
            return 0
        manifest, classification = engine_files(args.engine)
        fp, fp_note = None, "the report was made from a saved run (--run-json) without --fingerprint-json"
        if args.run_json:
            run = read_json(args.run_json)
            if args.fingerprint_json:
                fp, fp_note = read_json(args.fingerprint_json), ""
        elif args.source:
            if not args.source.is_dir():
                raise ReportError(f"--source {args.source}: not a folder")
            build_dir = (args.build_dir or ENGINES / args.engine / "build").resolve()
            run = build_and_run(args.engine, manifest, args.source, args.commit, build_dir)
            fp, fp_note = make_fingerprint(engine_command(manifest, build_dir))
        else:
            raise ReportError("build needs --source DIR (a checkout of the engine) or --run-json FILE")
        if run.get("engine", {}).get("name") != manifest["name"]:
            raise ReportError(f"the run is of engine {run.get('engine', {}).get('name')!r}, not {manifest['name']!r}")
        if run["engine"].get("version") != manifest["commit"]:
            raise ReportError(f"the engine ran at commit {run['engine'].get('version')!r}, but the adapter is pinned to "
                              f"{manifest['commit']} (engine.json): check out that commit, or give --commit for a "
                              "source tree that is not a git checkout")
        date = args.date or datetime.datetime.now(datetime.timezone.utc).date().isoformat()
        report = make_report(run, manifest, classification, date, fp, fp_note)
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / f"{args.engine}.json").write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        (args.out / f"{args.engine}.md").write_text(markdown(report), encoding="utf-8")
        print(report["summary"])
        print("by cause: " + ", ".join(f"{k} {v}" for k, v in report["by_cause"].items()))
        if report["fingerprint"]:
            print(f"fingerprint: {report['fingerprint']['variant']['line']}; under it "
                  f"{len(report['fingerprint_cases']) + len(report['fingerprint_unclassified'])} cases differ")
        unexplained = report["unclassified"] + report["fingerprint_unclassified"]
        if unexplained:
            print(f"{len(unexplained)} cases not explained by classification.json: "
                  + ", ".join(c["id"] for c in unexplained), file=sys.stderr)
            return 1
        return 0
    except ReportError as err:
        print(f"engine_report: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
