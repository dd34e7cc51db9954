"""Benchmark: openalice.core.frontmatter.parse against PyYAML on issue files.

Generates 1,000 issue-like Markdown files deterministically, parses each with
``frontmatter.parse`` (the whole file: fence split + YAML) and with PyYAML's
``yaml.safe_load`` on the frontmatter text alone (pure-Python SafeLoader),
checks that every result is identical (values, types and key order), and
prints median CPU times and ratios.  CSafeLoader (libyaml) is reported too
when available, for honesty, as is ``parse`` plus the (lazily cut) entries
that writers use.

    python bench/bench_frontmatter.py [--files N] [--repeats N]

Goal: at least 10x faster than ``yaml.safe_load``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from openalice.core import frontmatter

WORDS = ("deploy nightly report inbox review backlog triage release notes metrics cache "
         "schedule budget quarterly sync calendar docs cleanup audit security token rotate "
         "database index backup restore latency dashboard alert digest summary").split()
TIMEZONES = ("UTC", "America/New_York", "Europe/Paris", "Asia/Tokyo", "local")
AGENTS = ("claude", "codex", "opencode", "pi")
MODELS = ("claude-sonnet-4-5", "gpt-5.1-codex", "opus", "gemini-2.5-pro")


def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _when(rng: random.Random) -> list[str]:
    kind = rng.choice(("cron", "cron", "every", "at"))
    flow = rng.random() < 0.5
    if kind == "cron":
        pairs = [("kind", "cron"), ("cron", f'"{rng.randint(0, 59)} {rng.randint(0, 23)} * * 1-5"'),
                 ("timezone", rng.choice(TIMEZONES))]
        if rng.random() < 0.3:
            pairs.append(("catchUp", rng.choice(("true", "false"))))
    elif kind == "every":
        pairs = [("kind", "every"), ("every", rng.choice(("30m", "2h", "1h30m", "45s")))]
    else:
        pairs = [("kind", "at"), ("at", f'"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}'
                                        f'T09:00:00Z"')]
    if flow:
        return ["when: {" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"]
    return ["when:"] + [f"  {k}: {v}" for k, v in pairs]


def make_issue(rng: random.Random) -> str:
    """One issue file in the shapes people write by hand."""
    title = _sentence(rng, rng.randint(2, 7)).capitalize()
    style = rng.random()
    if style < 0.5:
        title_line = f"title: {title}"
    elif style < 0.75:
        title_line = f'title: "{title}: part {rng.randint(1, 9)}"'
    else:
        title_line = f"title: '{title} isn''t done'"
    lines = ["# Issue " + str(rng.randint(1, 9999)), title_line]
    lines.append(f"status: {rng.choice(('backlog', 'todo', 'in_progress', 'done', 'canceled'))}"
                 + ("  # workflow state" if rng.random() < 0.3 else ""))
    lines.append(f"priority: {rng.choice(('urgent', 'high', 'medium', 'low', 'none'))}")
    scheduled = rng.random() < 0.8
    if scheduled:
        lines.append(f'assignee: "{rng.choice(("@new-then-resume", "@new-each-run"))}"')
        lines += _when(rng)
    else:
        lines.append(f'assignee: "{rng.choice(("@human", "@unassigned"))}"')
    if rng.random() < 0.7:
        lines.append(f"agent: {rng.choice(AGENTS)}")
        lines.append(f"model: {rng.choice(MODELS)}")
        lines.append(f"effort: {rng.choice(('low', 'medium', 'high', 'max'))}")
    if rng.random() < 0.5:
        lines.append(f"timeout: {rng.choice(('15m', '30m', '45m', '60m'))}")
    if rng.random() < 0.4:
        lines.append("")
        lines.append("# Prompt used when a comment arrives")
        lines.append('commentPrompt: "Reply to {comment} on {title}.\\nKeep it short."')
    if rng.random() < 0.4:
        lines.append("labels: [" + ", ".join(rng.sample(WORDS, 3)) + "]")
    if rng.random() < 0.3:
        lines.append("checklist:")
        lines += [f"  - {_sentence(rng, 3)}" for _ in range(rng.randint(1, 4))]
    if rng.random() < 0.2:
        lines.append(f"retries: {rng.randint(0, 5)}")
        lines.append(f"budget: {rng.randint(1, 99)}.{rng.randint(0, 9)}")
    if rng.random() < 0.2:
        lines.append("notes: |")
        lines += [f"  {_sentence(rng, 6)}" for _ in range(rng.randint(1, 3))]
    body = "\n\n".join(_sentence(rng, rng.randint(15, 40)).capitalize() + "."
                       for _ in range(rng.randint(2, 4)))
    if rng.random() < 0.3:
        body += "\n\n---\n\n## Context\n\n" + _sentence(rng, 12) + "."
    return "---\n" + "\n".join(lines) + "\n---\n\n" + body + "\n"


def frontmatter_text(file_text: str) -> str:
    """The YAML between the fences, as a peer parser would be given it."""
    return file_text.split("\n---\n", 1)[0][len("---\n"):] + "\n"


def _time(fn) -> float:
    # CPU time of this process: on a shared machine, time spent waiting for
    # a core is not work done by the parser.
    start = time.process_time()
    fn()
    return time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=9)
    args = ap.parse_args(argv)
    try:
        import yaml
    except ImportError:
        print("PyYAML is not installed: pip install pyyaml", file=sys.stderr)
        return 1

    rng = random.Random(20261130)
    files = [make_issue(rng) for _ in range(args.files)]
    yaml_texts = [frontmatter_text(f) for f in files]
    file_bytes = [f.encode("utf-8") for f in files]

    # Identical results for every file, before any timing.
    for n, (text, fm) in enumerate(zip(files, yaml_texts)):
        ours = frontmatter.parse(text).data
        theirs = yaml.safe_load(fm)
        if ours != theirs or repr(ours) != repr(theirs):
            print(f"MISMATCH in file {n}:\n{text}\nours:   {ours!r}\ntheirs: {theirs!r}")
            return 1
    print(f"{len(files)} files agree with yaml.safe_load "
          f"({sum(map(len, files)) / len(files):.0f} bytes per file on average)")

    parse = frontmatter.parse
    safe_load = yaml.safe_load
    csafe = getattr(yaml, "CSafeLoader", None)
    contenders = {
        "openalice parse (str)": lambda: [parse(t) for t in files],
        "openalice parse (bytes)": lambda: [parse(b) for b in file_bytes],
        # Entries are cut lazily; writers need them, so show their cost too.
        "openalice parse + entries": lambda: [parse(t).entries for t in files],
        "yaml.safe_load (pure Python)": lambda: [safe_load(t) for t in yaml_texts],
    }
    if csafe is not None:
        contenders["yaml CSafeLoader (libyaml)"] = (
            lambda: [yaml.load(t, Loader=csafe) for t in yaml_texts])
    # Rounds interleave the contenders so that load from other processes on
    # the machine hits all of them alike; ratios are taken within a round.
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(args.repeats):
        for name, fn in contenders.items():
            times[name].append(_time(fn))
    ours = times["openalice parse (str)"]
    per = 1e6 / len(files)
    ratios = {}
    for name, samples in times.items():
        ratio = statistics.median(t / o for t, o in zip(samples, ours))
        ratios[name] = ratio
        shown = "" if name.startswith("openalice") else f"   openalice is {ratio:4.1f}x faster"
        print(f"{name:30s} {statistics.median(samples) * per:8.1f} us/file CPU (median of "
              f"{len(samples)}){shown}")
    if csafe is None:
        print("yaml CSafeLoader (libyaml)     not available in this PyYAML build")
    from _common import goal

    pure = ratios["yaml.safe_load (pure Python)"]
    goal("frontmatter", "parse vs yaml.safe_load (same results)", f"{pure:.1f}× faster",
         pure >= 10, "≥ 10×")
    if csafe is not None:
        c = ratios["yaml CSafeLoader (libyaml)"]
        goal("frontmatter", "parse vs libyaml's CSafeLoader (the fastest peer)", f"{c:.1f}× faster",
             c > 1.0, "faster than the fastest peer")
    print("checked: every file parses to what yaml.safe_load gives")
    return 0


if __name__ == "__main__":
    sys.exit(main())
