"""Benchmark: openalice.core.schema against jsonschema (Draft202012Validator) and fastjsonschema.

    python bench/bench_schema.py [--repeats N] [--seed S]

Inputs: every spec/*.schema.json with its examples in spec/examples/<stem>/*.json,
plus the two schemas in bench/data/schema/ with ~1,000 generated valid and invalid
instances each.  Both validators are built once; the script first checks that they
agree on every instance (valid or not), then times is_valid and full error collection
(errors() vs list(iter_errors())) and prints the ratio of medians (CPU time,
the validators taking turns).  fastjsonschema (code generation, draft 4/6/7 only,
no "all errors" mode) is the fastest peer for is_valid: it is timed on every
input set where its verdicts equal jsonschema's on every instance, and the sets
where they differ (2020-12 keywords it does not know) are listed, not timed.
Goals: is_valid ≥ 2× faster than jsonschema on every set, and faster than
fastjsonschema on the median comparable set.  The peers are benchmark peers only; the project never imports them.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from openalice.core.schema import Validator

sys.path.insert(0, str(ROOT / "bench"))
from _common import goal

try:
    from jsonschema import Draft202012Validator
except ImportError:  # pragma: no cover - a bench peer, not a dependency
    sys.exit("jsonschema is not installed: pip install jsonschema")

GOAL = 2.0


# -- generated instances -------------------------------------------------------

def _slug(rng, lo=3, hi=12):
    first = rng.choice("abcdefghijklmnopqrstuvwxyz")
    return first + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789-") for _ in range(rng.randint(lo - 1, hi - 1)))


def _timestamp(rng):
    zone = rng.choice(["Z", "+02:00", "-05:30"])
    return f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00{zone}"


def _model(rng):
    name = rng.choice(["claude-sonnet-4", "gpt-5-codex", "qwen3:32b", "llama-3.3-70b", "openai/gpt-oss-120b",
                       "gemini-2.5-pro", "deepseek-r1@latest"]) + f"-{rng.randint(1, 999)}"
    if rng.random() < 0.25:
        return {"id": name, "aliases": [name.split("-")[0] + str(rng.randint(1, 9))],
                "contextWindow": rng.choice([8192, 32768, 200000]), "effort": ["low", "high"]}
    return name


def _adapter(rng, index):
    models = list({json.dumps(m, sort_keys=True): m for m in (_model(rng) for _ in range(rng.randint(1, 6)))}.values())
    adapter = {
        "id": f"{_slug(rng)}-{index}",
        "kind": rng.choice(["claude", "codex", "opencode", "pi", "custom_cli"]),
        "label": "Adapter " + str(index),
        "wrapper": f"bin/{_slug(rng)}.sh",
        "headless": rng.random() < 0.8,
        "models": models,
        "env": [rng.choice(["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY", "HOME_DIR_1"])],
        "health": {"probe": rng.choice(["none", "version", "models"]), "timeoutSeconds": rng.choice([2, 5.5, 30]),
                   "cacheSeconds": rng.choice([0, 30, 60])},
        "config": {"maxTurns": rng.randint(1, 50), "sandbox": rng.choice(["workspace", "off", None]),
                   "verbose": rng.random() < 0.5},
        "platforms": rng.sample(["linux", "darwin", "win32"], rng.randint(1, 3)),
    }
    if "linux" not in adapter["platforms"]:
        adapter["platforms"].append("linux")
    if rng.random() < 0.5:
        plain = [m if isinstance(m, str) else m["id"] for m in models]
        adapter["modelAllow"] = plain[:2]
        adapter["defaultModel"] = plain[0]
    return adapter


def _catalog(rng):
    return {"version": "adapters/v1", "updated": _timestamp(rng), "defaults": {"probe": "version", "timeoutSeconds": 10},
            "adapters": [_adapter(rng, i) for i in range(rng.randint(1, 4))]}


def _break_catalog(rng, doc):
    adapter = rng.choice(doc["adapters"])
    mutation = rng.randrange(16)
    if mutation == 0:
        del adapter[rng.choice(["id", "kind", "wrapper", "models"])]
    elif mutation == 1:
        adapter["extra"] = True
    elif mutation == 2:
        adapter["id"] = "Bad_Id"
    elif mutation == 3:
        adapter["models"].append(copy.deepcopy(adapter["models"][0]))
    elif mutation == 4:
        adapter["models"][0] = ""
    elif mutation == 5:
        adapter["env"].append("lower_case")
    elif mutation == 6:
        adapter["health"]["timeoutSeconds"] = 0
    elif mutation == 7:
        adapter["health"]["cacheSeconds"] = 7
    elif mutation == 8:
        doc["version"] = "adapters/v2"
    elif mutation == 9:
        adapter["config"]["Bad-Key"] = 1
    elif mutation == 10:
        adapter["config"]["nested"] = {"a": 1}
    elif mutation == 11:
        adapter["platforms"] = ["darwin"]
    elif mutation == 12:
        adapter["modelAllow"] = ["x"]
        adapter.pop("defaultModel", None)
    elif mutation == 13:
        adapter["headless"] = "yes"
    elif mutation == 14:
        adapter["models"] = [{"id": "m", "contextWindow": True}]  # bool is not an integer
    else:
        doc["adapters"] = []
    return doc


def _issue(rng, index):
    status = rng.choice(["backlog", "todo", "in_progress", "done", "canceled"])
    doc = {"id": f"{_slug(rng, 2, 20)}-{index}", "title": f"Issue number {index}", "status": status,
           "priority": rng.choice(["urgent", "high", "medium", "low", "none"]),
           "assignee": rng.choice(["@resume", "@new-each-run", "@unassigned", "@alice"]),
           "agent": rng.choice(["claude", "codex", "opencode"]), "model": rng.choice([None, "gpt-5-codex"]),
           "effort": rng.choice(["low", "high", None]), "timeout": rng.choice(["30m", "1h", "2h15m30s"]),
           "labels": rng.sample(["ops", "daily", "report", "infra", "docs"], rng.randint(0, 3)),
           "createdAt": _timestamp(rng)}
    if status == "done":
        doc["completedAt"] = _timestamp(rng)
    kind = rng.randrange(4)
    if kind == 0:
        doc["when"] = {"kind": "at", "at": _timestamp(rng)}
    elif kind == 1:
        doc["when"] = {"kind": "every", "every": rng.choice(["1h", "30m", "2h15m30s", "45s"])}
    elif kind == 2:
        doc["when"] = {"kind": "cron", "cron": rng.choice(["0 9 * * 1-5", "*/15 * * * *", "5 4 * * sun"]),
                       "timezone": rng.choice(["local", "Europe/Berlin"]), "catchUp": rng.random() < 0.5}
    return doc


def _break_issue(rng, doc):
    mutation = rng.randrange(13)
    if mutation == 0:
        del doc[rng.choice(["id", "title", "status"])]
    elif mutation == 1:
        doc["status"] = "open"
    elif mutation == 2:
        doc["id"] = "-leading-dash"
    elif mutation == 3:
        doc["when"] = {"kind": "every", "every": "1d"}
    elif mutation == 4:
        doc["when"] = {"kind": "cron", "cron": "* * *"}
    elif mutation == 5:
        doc["when"] = {"kind": "at", "at": _timestamp(rng), "every": "1h"}
    elif mutation == 6:
        doc["status"] = "done"
        doc.pop("completedAt", None)
    elif mutation == 7:
        doc["status"] = "todo"
        doc["completedAt"] = _timestamp(rng)
    elif mutation == 8:
        doc["when"] = {"kind": "every", "every": "5m"}
        doc["assignee"] = "@human"
    elif mutation == 9:
        doc["labels"] = ["a", "a"]
    elif mutation == 10:
        doc["title"] = ""
    elif mutation == 11:
        doc["priority"] = 1
    else:
        doc["unknownField"] = 1
    return doc


def generated_cases(count, seed):
    """(name, schema, instances) for the two bench schemas; about half of the instances are broken."""
    rng = random.Random(seed)
    data = ROOT / "bench" / "data" / "schema"
    catalog_schema = json.loads((data / "adapter-catalog.schema.json").read_text())
    issue_schema = json.loads((data / "issue-record.schema.json").read_text())
    catalogs, issues = [], []
    for index in range(count):
        catalog, issue = _catalog(rng), _issue(rng, index)
        if index % 2:
            catalog, issue = _break_catalog(rng, catalog), _break_issue(rng, issue)
        catalogs.append(catalog)
        issues.append(issue)
    return [("adapter-catalog (generated)", catalog_schema, catalogs),
            ("issue-record (generated)", issue_schema, issues)]


def spec_cases():
    """(name, schema, instances) for every spec/*.schema.json that has examples."""
    cases = []
    for path in sorted((ROOT / "spec").glob("*.schema.json")):
        stem = path.name[: -len(".schema.json")]
        examples = [json.loads(p.read_text()) for p in sorted((ROOT / "spec" / "examples" / stem).glob("*.json"))]
        if examples:
            cases.append((f"spec/{path.name}", json.loads(path.read_text()), examples))
    return cases


# -- timing ----------------------------------------------------------------------

def median_seconds(runs: dict, repeats, rounds) -> dict:
    """CPU time per call of each function, the functions taking turns in every repeat."""
    samples = {name: [] for name in runs}
    names = list(runs)
    for repeat in range(repeats):
        shift = repeat % len(names)
        for name in names[shift:] + names[:shift]:
            start = time.process_time()
            for _ in range(rounds):
                runs[name]()
            samples[name].append((time.process_time() - start) / rounds)
    return {name: statistics.median(v) for name, v in samples.items()}


def fast_validator(schema):
    """fastjsonschema's is_valid for ``schema``, or None when it cannot compile it."""
    try:
        import fastjsonschema
    except ImportError:
        return None
    try:
        check = fastjsonschema.compile(schema)
    except Exception:
        return None

    def is_valid(doc):
        try:
            check(doc)
        except fastjsonschema.JsonSchemaException:
            return False
        return True

    return is_valid


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--count", type=int, default=1000, help="generated instances per bench schema")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)

    cases = spec_cases()
    if not cases:
        print("spec/: no *.schema.json with examples yet; using the bench schemas only")
    cases += generated_cases(args.count, args.seed)

    failures = 0
    rows = []
    fast_skipped: list[str] = []
    for name, schema, instances in cases:
        ours = Validator(schema, source=name)
        theirs = Draft202012Validator(schema)
        disagree = [i for i, doc in enumerate(instances)
                    if ours.is_valid(doc) != theirs.is_valid(doc)
                    or bool(ours.errors(doc)) != bool(next(theirs.iter_errors(doc), None))
                    or ours.is_valid(doc) == bool(ours.errors(doc))]
        valid = sum(map(ours.is_valid, instances))
        if disagree:
            failures += 1
            print(f"DISAGREE {name}: {len(disagree)} instance(s), first #{disagree[0]}: {ours.errors(instances[disagree[0]])}")
            continue
        fast = fast_validator(schema)
        if fast is not None and any(fast(d) != theirs.is_valid(d) for d in instances):
            fast_skipped.append(name)
            fast = None
        elif fast is None:
            fast_skipped.append(name)
        # As many rounds as make the slowest contender take about 50 ms per
        # repeat (at most 2000): enough for a steady figure, and make bench
        # does not spend minutes on jsonschema's largest schemas.
        began = time.process_time()
        list(theirs.iter_errors(instances[0]))
        slowest = max(time.process_time() - began, 1e-6) * len(instances)
        rounds = max(1, min(2000 // len(instances), int(0.05 / slowest)))
        runs = {"ours": lambda: [ours.is_valid(d) for d in instances],
                "theirs": lambda: [theirs.is_valid(d) for d in instances],
                "ours_errors": lambda: [ours.errors(d) for d in instances],
                "theirs_errors": lambda: [list(theirs.iter_errors(d)) for d in instances]}
        if fast is not None:
            runs["fast"] = lambda: [fast(d) for d in instances]
        t = median_seconds(runs, args.repeats, rounds)
        rows.append((name, len(instances), valid, t["ours"], t["theirs"], t["ours_errors"],
                     t["theirs_errors"], t.get("fast")))

    print(f"{'input':32} {'docs':>5} {'valid':>5}  {'is_valid ours/jsonschema (ms)':>30} {'ratio':>6}"
          f"  {'errors ours/jsonschema (ms)':>28} {'ratio':>6}  {'fastjsonschema (ms)':>19} {'ratio':>6}")
    worst = None
    fast_ratios = []
    for name, n, valid, ov, tv, oe, te, fv in rows:
        ratio_valid, ratio_errors = tv / ov, te / oe
        worst = ratio_valid if worst is None else min(worst, ratio_valid)
        fast_text = f"{fv * 1e3:19.2f} {fv / ov:5.1f}x" if fv else f"{'(not comparable)':>19}"
        if fv:
            fast_ratios.append(fv / ov)
        print(f"{name:32} {n:5d} {valid:5d}  {ov * 1e3:13.2f} / {tv * 1e3:13.2f} {ratio_valid:5.1f}x"
              f"  {oe * 1e3:12.2f} / {te * 1e3:12.2f} {ratio_errors:5.1f}x  {fast_text}")
    if fast_skipped:
        print(f"fastjsonschema not compared on {len(fast_skipped)} set(s) (cannot compile, or its "
              f"verdicts differ from jsonschema's): {', '.join(fast_skipped)}")
    if failures:
        print(f"FAIL: the validators disagree on {failures} input set(s)")
        return 1
    print(f"checked: ours and jsonschema agree on every instance of {len(rows)} set(s)")
    goal("schema", "is_valid vs jsonschema, slowest set", f"{worst:.1f}× faster", worst >= GOAL,
         f"≥ {GOAL:.0f}×")
    if fast_ratios:
        fast_ratios.sort()
        median = fast_ratios[len(fast_ratios) // 2]
        goal("schema", "is_valid vs fastjsonschema (generated code), median set",
             f"{median:.2f}× faster (range {fast_ratios[0]:.2f}-{fast_ratios[-1]:.2f}×)",
             median >= 1.0, "faster than the fastest peer")
    return 0


if __name__ == "__main__":
    sys.exit(main())
