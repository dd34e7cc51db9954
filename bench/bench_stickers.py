"""Sticker packs: enable and switch a 100-image pack against copying the same bytes.

Two imported packs of 100 images each (64-256 KiB of incompressible bytes
behind a PNG signature, about 16 MiB a pack).  Timed, in process, median of
several calls:

* the baseline: ``shutil.copyfile`` of the pack's 100 images from the library
  into the workspace's ``sticker/`` (the issue's yardstick), and the same with
  an ``fsync`` per file (what a crash-safe copy pays);
* **enable** on a workspace without stickers: library read and validation
  (manifest, magic bytes, every image hashed for the revision), the plan, the
  journal, 102 atomic writes (the images, the skill and its mirror), the
  ownership file;
* **switch** from one pack to the other: the same, plus reading the 100 owned
  images (fingerprints, and their bytes for the journal's ``before`` side) and
  writing them into the journal.

Goal (issue 12): ≤ 1.5× the copy.  Exits 1 if a result is wrong (not if the goal
is missed: the figures go to docs/benchmarks.md either way).
"""

from __future__ import annotations

import os
import random
import shutil
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from _common import REPO, median_call, report

sys.path.insert(0, str(REPO))

from openalice import stickers, workspaces
from openalice.stickers import library, projection

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)
IMAGES = 100
REPEATS = 9


def make_source(root: Path, pack_id: str, seed: int) -> Path:
    rng = random.Random(seed)
    root.mkdir(parents=True)
    entries = []
    for n in range(IMAGES):
        name = f"s{n:03}.png"
        size = rng.randint(64 * 1024, 256 * 1024)
        (root / name).write_bytes(b"\x89PNG\r\n\x1a\n" + rng.randbytes(size - 8))
        entries.append(f'{{"file": "{name}", "description": "sticker {n}"}}')
    (root / "pack.json").write_text('{"schemaVersion": 1, "id": "%s", "name": "Bench %s", "version": "1.0.0", '
                                    '"stickers": [%s]}' % (pack_id, pack_id, ", ".join(entries)))
    return root


def copy_pack(pack_id: str, target: Path, durable: bool) -> None:
    source = library.revision_dir(pack_id, library.read_current(pack_id)["revision"])
    target.mkdir(parents=True, exist_ok=True)
    for sticker in sorted(source.glob("*.png")):
        dest = target / sticker.name
        shutil.copyfile(sticker, dest)
        if durable:
            fd = os.open(dest, os.O_RDONLY)
            os.fsync(fd)
            os.close(fd)


def reset(root: Path) -> None:
    for rel in ("sticker", ".agents/skills/alice-stickers", ".claude/skills/alice-stickers"):
        shutil.rmtree(root / rel, ignore_errors=True)
    (root / projection.STATE_FILE).unlink(missing_ok=True)


def main() -> int:
    base = Path(tempfile.mkdtemp(prefix="bench-stickers-"))
    os.environ["OPENALICE_HOME"] = str(base / "home")
    os.environ["HARNESS_HOME"] = str(base / "harness")
    ok = True
    try:
        a = stickers.import_pack(make_source(base / "src-a", "bench-a", 1), now=NOW)
        b = stickers.import_pack(make_source(base / "src-b", "bench-b", 2), now=NOW)
        ws, _ = workspaces.init(base / "ws", template="blank", now=NOW)
        root = Path(ws.path)

        def copy(pack_id, durable):
            target = base / "copy"
            shutil.rmtree(target, ignore_errors=True)
            start = time.perf_counter()
            copy_pack(pack_id, target, durable)
            return time.perf_counter() - start

        def timed(fn, before=None):
            samples = []
            for _ in range(REPEATS):
                if before:
                    before()
                start = time.perf_counter()
                fn()
                samples.append(time.perf_counter() - start)
            return sorted(samples)[len(samples) // 2]

        copy_plain = sorted(copy("bench-a", False) for _ in range(REPEATS))[REPEATS // 2]
        copy_synced = sorted(copy("bench-a", True) for _ in range(REPEATS))[REPEATS // 2]
        load = median_call(lambda: stickers.get_pack("bench-a"), repeats=REPEATS)

        enable = timed(lambda: stickers.apply(ws, action="enable", pack_id="bench-a", now=NOW),
                       before=lambda: reset(root))
        state = stickers.read_state(root)
        ok &= state["revision"] == a["revision"] and len(state["files"]) == IMAGES + 2

        def to_a():
            if stickers.read_state(root)["packId"] != "bench-a":
                stickers.apply(ws, action="enable", pack_id="bench-a", now=NOW)

        switch = timed(lambda: stickers.apply(ws, action="enable", pack_id="bench-b", now=NOW), before=to_a)
        state = stickers.read_state(root)
        ok &= state["revision"] == b["revision"] and len(state["files"]) == IMAGES + 2
        ok &= sorted(p.name for p in (root / "sticker").iterdir()) == [f"s{n:03}.png" for n in range(IMAGES)]
        preview = median_call(lambda: stickers.preview(ws, action="enable", pack_id="bench-a", now=NOW),
                              repeats=REPEATS)
        megabytes = a["bytes"] / 1024 / 1024
        rows = [
            ("pack", f"{IMAGES} images, {megabytes:.1f} MiB (bench-a), {b['bytes'] / 1024 / 1024:.1f} MiB (bench-b)"),
            ("`shutil.copyfile` of the 100 images into the workspace", f"{copy_plain * 1000:.1f} ms"),
            ("the same with an fsync per file", f"{copy_synced * 1000:.1f} ms = {copy_synced / copy_plain:.2f}× copy"),
            ("reading and validating the pack (`stickers.get_pack`: manifest, magic bytes, sha256 of every image)",
             f"{load * 1000:.1f} ms = {load / copy_plain:.2f}× copy"),
            ("preview of a switch (pack read, 102 owned files fingerprinted, plan, digest)",
             f"{preview * 1000:.1f} ms = {preview / copy_plain:.2f}× copy"),
            ("**enable** on a workspace without stickers",
             f"{enable * 1000:.1f} ms = {enable / copy_plain:.2f}× copy, {enable / copy_synced:.2f}× fsynced copy "
             f"(goal ≤ 1.5× copy: {'met' if enable <= 1.5 * copy_plain else 'MISSED'})"),
            ("**switch** to the other pack (100 images replaced)",
             f"{switch * 1000:.1f} ms = {switch / copy_plain:.2f}× copy, {switch / copy_synced:.2f}× fsynced copy "
             f"(goal ≤ 1.5× copy: {'met' if switch <= 1.5 * copy_plain else 'MISSED'})"),
        ]
        report("sticker packs: enable and switch a 100-image pack", rows)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
