"""``make soak``: the reliability suite, long, with its figures in docs/reliability.md.

    python -m tests.reliability.soak [--kills N] [--fuzz N] [--race N] [--write FILE]
    python -m tests.reliability.soak --only "(git)" --kills 200     # some writers' kill loops alone

Runs every part of the suite at soak size on throwaway machines under a temp
directory, prints the figures, and with ``--write`` replaces the block
between the ``soak:begin`` / ``soak:end`` markers of FILE with them.  Exit 1
when a figure whose goal is zero is not.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from .fuzz import fuzz
from .machine import WRITERS
from .suite import (
    ZERO,
    Figures,
    canary_sweep,
    cat_race,
    concurrent_inbox,
    concurrent_scans,
    kill_writer,
    secret_kill_then_remove,
)

BEGIN, END = "<!-- soak:begin -->", "<!-- soak:end -->"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.reliability.soak")
    parser.add_argument("--kills", type=int, default=300, help="SIGKILLs per writer (default 300)")
    parser.add_argument("--fuzz", type=int, default=50_000, help="fuzz inputs (default 50,000)")
    parser.add_argument("--race", type=int, default=20_000, help="in-process cats (default 20,000)")
    parser.add_argument("--race-processes", type=int, default=1_000,
                        help="cats as real processes (default 1,000)")
    parser.add_argument("--write", metavar="FILE", help="put the figures into FILE")
    parser.add_argument("--only", metavar="TEXT",
                        help="run only the kill loops of the writers whose name contains TEXT (not with --write)")
    args = parser.parse_args(argv)
    if args.only and args.write:
        parser.error("--only runs a part of the soak: its figures are not the page's")
    if args.write:
        args.write = os.path.abspath(args.write)   # the machines chdir into their workspaces
    work = Path(tempfile.mkdtemp(prefix="openalice-soak-"))
    started = time.monotonic()
    total = Figures()
    per_writer: list[tuple[str, Figures, float]] = []
    parts: list[tuple[str, Figures, float]] = []

    def part(name: str, run) -> Figures:
        t = time.monotonic()
        print(f"soak: {name} ...", file=sys.stderr, flush=True)
        figures = run()
        seconds = time.monotonic() - t
        total.merge(figures)
        print(f"soak: {name}: {dict(figures.counts)} ({seconds:.0f} s)", file=sys.stderr, flush=True)
        return figures, seconds

    try:
        for i, entry in enumerate(WRITERS):
            if args.only and args.only not in entry.name:
                continue
            figures, seconds = part(f"kill -9: {entry.name}", lambda: kill_writer(
                entry, work / f"kill-{i}", kills=args.kills, seed=1600 + i, check_every=20))
            per_writer.append((entry.name, figures, seconds))
        for name, run in () if args.only else (
            ("kill during a secret write, then remove",
             lambda: secret_kill_then_remove(work / "secret", max_kills=5000, wanted=25)),
            ("secret canaries across commands and files", lambda: canary_sweep(work / "canary")),
            ("8 scanners at once, 40 due issues, 5 rounds",
             lambda: concurrent_scans(work / "scans", scanners=8, issues=40, rounds=5)),
            ("8 inbox writers at once, 50 entries each",
             lambda: concurrent_inbox(work / "inbox", writers=8, entries=50)),
            (f"cat race ({args.race:,} in-process, {args.race_processes:,} processes)",
             lambda: cat_race(work / "race", attempts=args.race, subprocesses=args.race_processes)),
            (f"fuzz ({args.fuzz:,} inputs)", lambda: fuzz(work / "fuzz", inputs=args.fuzz, seed=16)),
        ):
            figures, seconds = part(name, run)
            parts.append((name, figures, seconds))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    elapsed = time.monotonic() - started
    report = render(total, per_writer, parts, elapsed)
    print(report)
    if args.write:
        write_into(Path(args.write), report)
    bad = total.failures(*ZERO)
    if bad:
        print(f"soak: not zero: {bad}", file=sys.stderr)
        for note in total.notes:
            print(f"  {note}", file=sys.stderr)
        return 1
    return 0


def render(total: Figures, per_writer, parts, elapsed: float) -> str:
    c = total.counts
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"Last `make soak`: {when}, {elapsed / 60:.1f} minutes on {platform.machine()} "
        f"({os.cpu_count()} CPUs shared), Python {platform.python_version()}.",
        "",
        "| figure | count | goal |",
        "| --- | ---: | --- |",
    ]
    rows = [
        ("SIGKILLs (every writer, and secret writes)", c["kills"], "as many as asked"),
        ("torn files after a kill", c["torn files"], "0"),
        ("temp files a kill left behind", c["temps left by a kill"], "(any)"),
        ("temp files left once the next writer ran (leftovers)",
         c["leftovers after the next writer"], "0"),
        ("commands run after kills", c["next commands run"], ""),
        ("commands that failed after a kill", c["next command failed"], "0"),
        ("writers that failed on their own", c["writer failed on its own"], "0"),
        ("kills that left a git lock (git workspaces)", c["kills that left a git lock"], "(any)"),
        ("wedged workspaces: a committing apply refused after a kill (git_locked, staged_changes)",
         c["wedged workspaces"], "0"),
        ("git lock files left once the next writer ran", c["git locks left at the end"], "0"),
        ("kills that left a temp copy of a key", c["kills that left a temp copy of a key"], "(any)"),
        ("leaks: a key in any file or output after remove, or outside its own files",
         c["leaks"], "0"),
        ("scans run at once / runs they fired", f"{c['scans']} / {c['runs']}", ""),
        ("duplicate runs", c["duplicate runs"], "0"),
        ("lost records (runs, inbox entries)", c["lost records"], "0"),
        ("cat runs while a parent is swapped for a link (served / refused)",
         f"{c['cat runs']} ({c['cat: served']} / {c['cat: refused']})", ""),
        ("outside bytes printed", c["outside bytes"], "0"),
        ("fuzz inputs / commands judged", f"{c['fuzz: inputs']} / {c['fuzz: commands run']}", "≥ 2,000"),
        ("fuzz: exit 0 / exit 2", f"{c['fuzz: exit 0']} / {c['fuzz: exit 2']}", ""),
        ("fuzz: exit 2 not naming the file", c["fuzz: exit 2 without the file"], "0"),
        ("fuzz: other exits", c["fuzz: unexpected exit"], "0"),
        ("tracebacks (kills, canaries, race)", c["tracebacks"], "0"),
        ("fuzz: tracebacks / internal errors",
         f"{c['fuzz: traceback']} / {c['fuzz: internal error']}", "0 / 0"),
    ]
    lines += [f"| {name} | {count} | {goal} |" for name, count, goal in rows]
    lines += ["", "Per writer (kill -9 at random moments, the next writer in a fresh process):", "",
              "| writer | kills | torn | temps left by kills | leftovers after the next writer | "
              "git locks left by kills (wedged) | commands after kills (failed) | seconds |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, f, seconds in per_writer:
        lines.append(f"| {name} | {f['kills']} | {f['torn files']} | {f['temps left by a kill']} | "
                     f"{f['leftovers after the next writer']} | {f['kills that left a git lock']} "
                     f"({f['wedged workspaces']}) | {f['next commands run']} "
                     f"({f['next command failed']}) | {seconds:.0f} |")
    lines += ["", "Other parts:", "", "| part | seconds |", "| --- | ---: |"]
    lines += [f"| {name} | {seconds:.0f} |" for name, _f, seconds in parts]
    if total.notes:
        lines += ["", "Notes (first examples of anything not zero):", ""]
        lines += [f"- {note}" for note in total.notes]
    return "\n".join(lines)


def write_into(path: Path, report: str) -> None:
    text = path.read_text()
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{path}: no {BEGIN} ... {END} block to fill")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    path.write_text(f"{head}{BEGIN}\n{report}\n{END}{tail}")


if __name__ == "__main__":
    sys.exit(main())
