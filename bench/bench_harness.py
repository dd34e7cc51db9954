"""Harness upgrades: preview and apply over 200 managed files; diff3 against ``git merge-file``.

1. A bundle whose one skill has 100 files (2-4 KiB each) is projected into a
   workspace: 200 managed files (``.agents/skills/`` + the ``.claude/skills/``
   mirror).  Then the bundle changes 20 files, the workspace edits 10 (5 of
   them also changed upstream, on other lines: merged).  Timed, in process:
   hashing the 200 files (read + sha256: what any change detection pays), the
   engine's plan of them (``managed.make_plan``), the whole harness preview
   (bundle load and validation, config, version state, plan), and the apply
   (journal, 25 atomic writes with fsync, baseline, version state) without and
   with git.  Goal: preview ≤ 2× hashing.
2. 1,000 random edit triples (``tests/managed/triples.py``) merged by
   ``managed.merge3`` and by ``git merge-file -p`` (one process per triple, as a
   caller without our merge would do it).  Goals: the same verdict on every
   triple (clean or conflict), the same merged text on every clean merge, and
   faster than spawning git.

Exits 1 only if the merge disagrees with git anywhere (an answer check); a missed
speed goal prints MISSES and is listed in `make bench`'s summary.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from _common import REPO, goal, median_call, report

sys.path.insert(0, str(REPO))

from openalice import harness, managed, workspaces
from openalice.core import resources
from tests.managed.triples import GitMergeFile, triples

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)
FILES = 100
TRIPLES = 1000


def skill_file(n: int, rng: random.Random) -> str:
    lines = [f"# Note {n}", ""] + [f"Line {k} of note {n}: " + "x" * rng.randint(20, 60) for k in range(60)]
    return "\n".join(lines) + "\n"


def make_bundle(root: Path, version: str, files: dict[str, str]) -> Path:
    shutil.copytree(resources.data_root("default"), root)
    manifest = json.loads((root / "alice-harness.json").read_text())
    (root / "alice-harness.json").write_text(json.dumps({**manifest, "version": version}))
    big = root / "skills" / "bench-notes"
    big.mkdir()
    (big / "SKILL.md").write_text("---\nname: bench-notes\ndescription: 100 files for the benchmark\n---\n")
    for rel, text in files.items():
        (big / rel).write_text(text)
    template = root / "templates" / "chat" / "template.json"
    doc = json.loads(template.read_text())
    template.write_text(json.dumps({**doc, "bundledSkills": doc["bundledSkills"] + ["bench-notes"]}))
    return root


def replace_line(text: str, number: int, new: str) -> str:
    lines = text.split("\n")
    lines[number] = new
    return "\n".join(lines)


def setup(base: Path, use_git: bool):
    rng = random.Random(7)
    notes = {f"note-{n:03}.md": skill_file(n, rng) for n in range(FILES - 1)}
    v1 = make_bundle(base / "v1", "1.0.0", notes)
    changed = dict(notes)
    for n in range(20):
        rel = f"note-{n:03}.md"
        changed[rel] = replace_line(notes[rel], 50, f"Changed upstream in 1.1.0 ({n}).")
    v2 = make_bundle(base / "v2", "1.1.0", changed)
    root = base / "ws"
    root.mkdir()
    if use_git:
        subprocess.run(["git", "init", "-q", str(root)], check=True)
    os.environ["ALICE_HARNESS_BUNDLE"] = str(v1)
    ws, _ = workspaces.init(root, template="chat", now=NOW)
    del os.environ["ALICE_HARNESS_BUNDLE"]
    if use_git:
        env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "b",
               "GIT_COMMITTER_EMAIL": "b@x"}
        subprocess.run(["git", "-C", str(root), "add", "-A"], check=True, env=env)
        subprocess.run(["git", "-C", str(root), "commit", "-q", "-m", "ws"], check=True, env=env)
    primary = root / ".agents" / "skills" / "bench-notes"
    for n in range(15, 25):             # 15-19 also changed upstream (other lines): merged
        path = primary / f"note-{n:03}.md"
        path.write_text(replace_line(path.read_text(), 5, f"Edited in the workspace ({n})."))
    return ws, root, v2


def managed_paths(root: Path) -> list[Path]:
    return sorted(p for tree in (".agents/skills/bench-notes", ".claude/skills/bench-notes")
                  for p in (root / tree).iterdir())


def hash_files(paths: list[Path]) -> None:
    for path in paths:
        hashlib.sha256(path.read_bytes()).hexdigest()


def bench_preview_apply(base: Path, use_git: bool) -> dict:
    ws, root, v2 = setup(base, use_git)
    paths = managed_paths(root)
    assert len(paths) == 2 * FILES, len(paths)
    bundle = harness.load_bundle(v2)
    store = managed.Store(root, ".alice/alice-harness-upgrade")
    baseline = store.baseline()
    trees = [".agents/skills/bench-notes/", ".claude/skills/bench-notes/"]
    targets = {f".agents/skills/bench-notes/{rel}": data for rel, data in bundle.skills["bench-notes"].files.items()}

    def engine_plan():
        return managed.make_plan(root, targets=targets, baseline=baseline, scope=trees, walk_trees=trees,
                                 mirrors=[(".agents/skills/", ".claude/skills/")])

    p = engine_plan()
    summary = p.summary()
    assert summary == {"ready": 15, "merged": 5, "preserved": 5, "conflicts": 0, "unchanged": 75}, summary
    hashing = median_call(lambda: hash_files(paths), repeats=31)
    # Everything a whole preview reads: the managed files, the bundle's files, the baseline, state files.
    read_by_preview = paths + sorted(p for p in v2.rglob("*") if p.is_file()) + [
        store.baseline_path, root / ".alice/alice-harness-version.json"]
    hashing_all = median_call(lambda: hash_files(read_by_preview), repeats=31)
    planning = median_call(engine_plan, repeats=31)
    preview = median_call(lambda: harness.preview(ws, scope=harness.scope_for(), bundle_dir=v2, now=NOW),
                          repeats=15)
    start = time.perf_counter()
    result, applied = harness.apply(ws, scope=harness.scope_for(), bundle_dir=v2, now=NOW)
    apply_time = time.perf_counter() - start
    assert len(applied.changed) == 2 * (15 + 5) + 5, applied.changed   # + the mirrors of the 5 kept edits
    return {"hash": hashing, "hash_all": hashing_all, "read_all": len(read_by_preview), "plan": planning,
            "preview": preview, "apply": apply_time,
            "written": len(applied.changed), "commit": applied.commit}


def bench_merge() -> dict:
    cases = triples(1130, TRIPLES)
    oracle = GitMergeFile()
    try:
        start = time.perf_counter()
        ours = [managed.merge3(*case) for case in cases]
        ours_time = time.perf_counter() - start
        start = time.perf_counter()
        theirs = [oracle.merge(*case) for case in cases]
        git_time = time.perf_counter() - start
    finally:
        oracle.close()
    git_clean = [count == 0 for count, _ in theirs]
    decisions = sum(r.clean == clean for r, clean in zip(ours, git_clean))
    clean_cases = [(r, text) for r, (count, text) in zip(ours, theirs) if count == 0]
    clean_same = sum(r.clean and r.text == text for r, text in clean_cases)
    conflict_cases = [(r, count, text) for r, (count, text) in zip(ours, theirs) if count > 0]
    conflict_same = sum(r.conflicts == count and r.text == text for r, count, text in conflict_cases)
    return {"decisions": decisions, "clean": len(clean_cases), "clean_same": clean_same,
            "conflicts": len(conflict_cases), "conflict_same": conflict_same, "ours": ours_time, "git": git_time}


def main() -> int:
    base = Path(tempfile.mkdtemp(prefix="bench-harness-"))
    os.environ["OPENALICE_HOME"] = str(base / "home")
    os.environ["HARNESS_HOME"] = str(base / "harness")
    ok = True
    try:
        plain = bench_preview_apply(base / "plain", use_git=False)
        with_git = bench_preview_apply(base / "git", use_git=True) if shutil.which("git") else None
        ratio_plan = plain["plan"] / plain["hash"]
        ratio_preview = plain["preview"] / plain["hash_all"]
        goal("harness", "engine plan of 200 managed files vs hashing them", f"{ratio_plan:.2f}×",
             ratio_plan <= 2.0, "≤ 2×")
        rows = [
            ("hashing the 200 managed files (read + sha256)", f"{plain['hash'] * 1000:.1f} ms"),
            ("engine plan of the 200 files (fingerprints, baseline, 5 diff3 merges, digest)",
             f"{plain['plan'] * 1000:.1f} ms = {ratio_plan:.2f}× hashing (goal ≤ 2×: "
             f"{'met' if ratio_plan <= 2 else 'MISSED'})"),
            (f"hashing all {plain['read_all']} files a whole preview reads (+ the bundle's files, the "
             "baseline, the version file)", f"{plain['hash_all'] * 1000:.1f} ms"),
            ("whole `harness.preview` (bundle load and validation, baseline decompression and "
             "verification, config, version state, live runs, the plan)",
             f"{plain['preview'] * 1000:.1f} ms = {ratio_preview:.2f}× hashing what it reads"),
            ("apply, plain directory (journal, "
             f"{plain['written']} atomic fsynced writes, baseline, version)", f"{plain['apply'] * 1000:.0f} ms"),
        ]
        if with_git:
            rows.append(("apply in a git work tree (+ add and commit of the touched paths)",
                         f"{with_git['apply'] * 1000:.0f} ms"))
        report("harness preview and apply, 200 managed files", rows)
        if shutil.which("git"):
            m = bench_merge()
            agree = m["decisions"] == TRIPLES and m["clean_same"] == m["clean"]
            ok &= agree
            goal("harness", "diff3 vs one git merge-file per triple", f"{m['git'] / m['ours']:.1f}× faster",
                 m["ours"] < m["git"], "faster")
            report("diff3 vs git merge-file, 1,000 random edit triples", [
                ("conflict / no-conflict decisions agreeing", f"{m['decisions']}/{TRIPLES} "
                                                            f"({100 * m['decisions'] / TRIPLES:.1f}%)"),
                ("clean merges with identical text", f"{m['clean_same']}/{m['clean']} "
                                                    f"({100 * m['clean_same'] / max(m['clean'], 1):.1f}%)"),
                ("conflicts with identical conflict count and marker text",
                 f"{m['conflict_same']}/{m['conflicts']}"),
                ("managed.merge3, all 1,000", f"{m['ours'] * 1000:.0f} ms ({m['ours'] / TRIPLES * 1e6:.0f} µs each)"),
                ("git merge-file, one process each", f"{m['git'] * 1000:.0f} ms ({m['git'] / TRIPLES * 1e3:.2f} ms each)"),
                ("speed-up", f"{m['git'] / m['ours']:.1f}×"),
            ])
        else:
            print("git not found: the merge comparison needs it")
            ok = False
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
