"""Benchmark: openalice.core.cron.next_fire_after against cronsim and croniter.

    python bench/bench_cron.py [--count N] [--repeats R] [--seed S]

Builds N deterministic (expression, zone, start) triples, times ours,
cronsim (`next(CronSim(expr, start_local_aware))`, the fastest peer) and
croniter (`croniter(expr, start_local_aware).get_next(datetime)`) over all of
them (CPU time, the functions taking turns in every round, median of R
rounds), prints the ratios, then checks ours against the brute-force oracle in
tests/core/cron_oracle.py on EVERY triple (exit 1 on any disagreement) and
reports where each peer disagrees with it (the DST cases where cronsim is
wrong are kept as fixed cases in tests/core/test_cron.py).  Goals: ≥ 3× faster
than croniter, and faster than the fastest peer (cronsim), parsing on every
call as they do.  The peers are benchmark peers only; the package never
imports them.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import statistics
import sys
import time
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from openalice.core.cron import CronExpr, next_fire_after

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import goal

from tests.core.cron_oracle import oracle_next

UTC = timezone.utc
ZONES = ["America/New_York", "Europe/London", "Europe/Dublin", "Australia/Lord_Howe",
         "Asia/Kolkata", "Pacific/Chatham"]
# A realistic mix: frequent stepped jobs, daily and weekday fixed times (some
# inside DST gaps or repeats), monthly/quarterly/yearly ones, lists, ranges, names.
EXPRESSIONS = [
    "*/5 * * * *", "*/15 * * * *", "0 * * * *", "*/30 2 * * *", "0 */6 * * *",
    "*/10 9-17 * * 1-5", "30 8 * * 1-5", "0 9 * * mon-fri", "15 2 * * *", "30 2 * * *",
    "30 1 * * *", "0 9,12,18 * * *", "45 23 * * *", "5 4 * * sun", "0 22 * * 1-5",
    "0 0 1 * *", "0 12 15 * *", "0 0 1 jan,apr,jul,oct *", "0 0 1 1 *", "0 9 1 * 5",
    "20 14 1-7 * 1", "0 3 * * 6", "0,30 8-18 * * *", "45 2 * * *", "0 0 * * *",
]
# DST seasons: starts a few hours around these dates in every zone.
SEASONS = ["2024-03-10", "2024-03-31", "2024-04-06", "2024-09-28", "2024-10-05", "2024-10-27",
           "2024-11-03", "2025-03-09", "2025-03-30", "2025-04-05", "2025-09-27", "2025-10-04",
           "2025-10-26", "2025-11-02"]


def build_triples(count: int, seed: int) -> list[tuple[str, ZoneInfo, datetime]]:
    rng = random.Random(seed)
    zones = [ZoneInfo(name) for name in ZONES]
    triples = []
    for _ in range(count):
        text = rng.choice(EXPRESSIONS)
        zone = rng.choice(zones)
        if rng.random() < 0.4:
            day = datetime.fromisoformat(rng.choice(SEASONS)).replace(tzinfo=UTC)
            start = day + timedelta(minutes=rng.randint(-24 * 60, 48 * 60))
        else:
            start = datetime(2024, 1, 1, tzinfo=UTC) + timedelta(minutes=rng.randint(0, 3 * 366 * 1440))
        start += timedelta(seconds=rng.choice([0, 0, 0, 17]))
        triples.append((text, zone, start))
    return triples


def run_ours(triples) -> list[datetime | None]:
    return [next_fire_after(text, start, zone) for text, zone, start in triples]


def run_ours_cold(triples) -> list[datetime | None]:
    # No parse cache: every call parses, as croniter does in its constructor.
    return [next_fire_after(CronExpr._build(text), start, zone) for text, zone, start in triples]


def run_croniter(triples) -> list[datetime | None]:
    from croniter import croniter
    out = []
    for text, zone, start in triples:
        try:
            out.append(croniter(text, start.astimezone(zone)).get_next(datetime).astimezone(UTC))
        except Exception:  # croniter gives up on some DST edges; count it as a disagreement
            out.append(None)
    return out


def run_cronsim(triples) -> list[datetime | None]:
    from cronsim import CronSim
    out = []
    for text, zone, start in triples:
        try:
            out.append(next(CronSim(text, start.astimezone(zone))).astimezone(UTC))
        except Exception:  # count a refusal or a failure as a disagreement
            out.append(None)
    return out


def timed_rounds(functions: dict, triples, repeats: int) -> tuple[dict, dict]:
    """Run every function once per round, interleaved (the order rotating), so
    that load from other processes hits all of them alike; per-function
    medians of CPU time."""
    samples = {name: [] for name in functions}
    results = {}
    names = list(functions)
    for round_ in range(repeats):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            began = time.process_time()
            results[name] = functions[name](triples)
            samples[name].append(time.process_time() - began)
    return {name: statistics.median(times) for name, times in samples.items()}, results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=20240310)
    args = parser.parse_args(argv)

    triples = build_triples(args.count, args.seed)
    print(f"{len(triples)} triples, {len(EXPRESSIONS)} expressions x {len(ZONES)} zones, "
          f"seed {args.seed}, median of {args.repeats}")

    functions = {"ours": run_ours, "cold": run_ours_cold}
    for peer_name, runner in (("cronsim", run_cronsim), ("croniter", run_croniter)):
        if importlib.util.find_spec(peer_name) is None:
            print(f"  {peer_name} not installed (pip install {peer_name}): no ratio")
        else:
            functions[peer_name] = runner
    medians, results = timed_rounds(functions, triples, args.repeats)
    ours = results["ours"]
    assert results["cold"] == ours
    per_call = {name: value / len(triples) * 1e6 for name, value in medians.items()}
    print(f"  ours (parse cached)    {medians['ours'] * 1e3:8.1f} ms  {per_call['ours']:6.2f} us/call (CPU)")
    print(f"  ours (parse each call) {medians['cold'] * 1e3:8.1f} ms  {per_call['cold']:6.2f} us/call")
    for peer_name in ("cronsim", "croniter"):
        if peer_name in medians:
            print(f"  {peer_name:22} {medians[peer_name] * 1e3:8.1f} ms  {per_call[peer_name]:6.2f} us/call"
                  f"   ours is {medians[peer_name] / medians['cold']:.2f}x faster (parse each call), "
                  f"{medians[peer_name] / medians['ours']:.1f}x (parse cached)")
    if "croniter" in medians:
        ratio = medians["croniter"] / medians["cold"]
        goal("cron", "next fire vs croniter, parsing each call", f"{ratio:.1f}× faster",
             ratio >= 3.0, "≥ 3×")
    if "cronsim" in medians:
        ratio = medians["cronsim"] / medians["cold"]
        goal("cron", "next fire vs cronsim (the fastest peer), parsing each call",
             f"{ratio:.2f}× faster", ratio > 1.0, "faster than the fastest peer")

    began = time.perf_counter()
    disagreements = []
    for (text, zone, start), fire in zip(triples, ours):
        horizon = start + timedelta(days=800)
        expected = oracle_next(text, start, zone, horizon)
        if fire != expected and not (expected is None and fire is not None and fire > horizon):
            disagreements.append((text, zone.key, start, fire, expected))
    print(f"  oracle: ours agrees on {len(triples) - len(disagreements)}/{len(triples)} "
          f"({time.perf_counter() - began:.1f} s)")
    for row in disagreements[:10]:
        print("    DISAGREE", *row)

    for peer_name in ("cronsim", "croniter"):
        peer = results.get(peer_name)
        if peer is None:
            continue
        peer_wrong = [(t, z.key, s, p, o) for (t, z, s), p, o in zip(triples, peer, ours) if p != o]
        print(f"  {peer_name} disagrees with the oracle on {len(peer_wrong)}/{len(triples)}"
              + (" (ours == oracle there)" if not disagreements else ""))
        for text, zone, start, theirs, right in peer_wrong[:8]:
            print(f"    e.g. {text!r} {zone} after {start:%Y-%m-%dT%H:%M:%SZ}: "
                  f"{peer_name} {theirs and f'{theirs:%Y-%m-%dT%H:%MZ}'}, oracle {right and f'{right:%Y-%m-%dT%H:%MZ}'}")
    print(f"  checked: ours agrees with the oracle on every triple: {'yes' if not disagreements else 'NO'}")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
