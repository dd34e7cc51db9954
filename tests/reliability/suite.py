"""The reliability runs, sized by their caller: the tests run them short (CI),
``make soak`` (:mod:`tests.reliability.soak`) long, and both read the same
figures (:class:`Figures`): kills, torn files, leftovers, leaks, outside
bytes, tracebacks and the rest, each with its count."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from .machine import ADAPTER_CANARY, CANARY, REPO, WEDGED_LOG, Machine, Writer, clock, leaks, torn_files, tracebacks


@dataclass
class Figures:
    """Counts by name; ``notes`` keeps the first examples of anything that is not zero."""

    counts: Counter = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)

    def add(self, name: str, n: int = 1, note: str | None = None) -> None:
        self.counts[name] += n
        if note and n and len(self.notes) < 40:
            self.notes.append(f"{name}: {note}")

    def __getitem__(self, name: str) -> int:
        return self.counts[name]

    def merge(self, other: "Figures") -> None:
        self.counts.update(other.counts)
        self.notes.extend(other.notes[: max(0, 40 - len(self.notes))])

    def failures(self, *names: str) -> dict:
        return {name: self.counts[name] for name in names if self.counts[name]}


# Figures whose goal is zero.
ZERO = ("torn files", "leftovers after the next writer", "wedged workspaces", "git locks left at the end",
        "leaks", "outside bytes", "tracebacks", "next command failed", "writer failed on its own", "duplicate runs", "lost records",
        "fuzz: traceback", "fuzz: internal error", "fuzz: exit 2 without the file",
        "fuzz: unexpected exit")


# -- kill -9 across a writer ----------------------------------------------------------------


class _ForkServer:
    """The writer's fork server (:mod:`tests.reliability.writer_loop`), warm."""

    def __init__(self, process: subprocess.Popen) -> None:
        self.process = process

    def _ask(self, command: str) -> int:
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        return int(self.process.stdout.readline())

    def kill_one(self, first_step: int, delay: float) -> int:
        """Fork a child running steps from ``first_step``, SIGKILL it after
        ``delay`` seconds; its wait status."""
        pid = self._ask(f"go {first_step}")
        time.sleep(delay)
        try:
            os.killpg(pid, signal.SIGKILL)   # the child and whatever it started (its group)
        except ProcessLookupError:
            pass
        status = self._ask(f"reap {pid}")
        # As a service manager does, wait until the whole group is gone (a git the kill
        # caught is reparented, and may take a moment to die) before the next writer starts.
        from openalice.core import proc

        deadline = time.monotonic() + 5
        while proc.group_members(pid) and time.monotonic() < deadline:
            time.sleep(0.005)
        return status


@contextmanager
def _fork_server(machine: Machine, writer_name: str):
    process = subprocess.Popen([sys.executable, "-m", "tests.reliability.writer_loop",
                                str(machine.base), writer_name], cwd=REPO, env=machine.env(),
                               text=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    try:
        ready = process.stdout.readline().strip()
        assert ready == "ready", f"{writer_name}: the writer did not start: {process.stderr.read()}"
        yield _ForkServer(process)
        process.stdin.write("quit\n")
        process.stdin.flush()
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for stream in (process.stdin, process.stdout, process.stderr):
            stream.close()


def kill_writer(entry: Writer, base: Path, *, kills: int, seed: int = 16,
                check_every: int = 10, max_delay: float | None = None) -> Figures:
    """SIGKILL ``entry``'s writer ``kills`` times at random moments; after each
    kill every file must be whole, and every ``check_every`` kills its
    commands must work.  Then: the temps the kills left, one more run of the
    writer in a fresh process (the next writer), the temps left after it
    (goal 0), and for a writer of secrets, no copy of them once removed."""
    figures = Figures()
    rng = random.Random(seed)
    max_delay = entry.max_delay if max_delay is None else max_delay
    machine = Machine(base).create(entry.template, git=entry.git)
    entry.setup(machine)
    with _fork_server(machine, entry.name) as server:
        seen_temps: set = set()
        seen_locks: set = set()
        # Stratified moments: one kill in each of ``kills`` equal slices of
        # [0, max_delay), in a random order, so few kills still cover a child's
        # whole run (uniform draws bunch up and leave gaps).
        moments = [max_delay * (i + rng.random()) / kills for i in range(kills)]
        rng.shuffle(moments)
        for k, moment in enumerate(moments):
            status = server.kill_one(k * 100_000, moment)
            if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL:
                figures.add("kills")
            else:
                figures.add("writer failed on its own", note=_failure_log(base))
            temps = set(machine.temps())
            figures.add("temps left by a kill", len(temps - seen_temps))
            seen_temps = temps
            locks = set(machine.git_locks())
            figures.add("kills that left a git lock", len(locks - seen_locks))
            seen_locks = locks
            broken = torn_files(machine)
            figures.add("torn files", len(broken), note="; ".join(broken[:3]))
            if check_every and (k + 1) % check_every == 0:
                _next_commands(machine, entry, figures)
    figures.add("temps still there before the next writer", len(machine.temps()))
    once = subprocess.run([sys.executable, "-m", "tests.reliability.writer_loop", str(base),
                           entry.name, "--once"], cwd=REPO, env=machine.env(ALICE_NOW=clock()),
                          capture_output=True, text=True, timeout=300)
    if once.returncode != 0 or tracebacks(once.stdout + once.stderr):
        figures.add("next command failed", note=f"the next writer: {once.stderr[-500:]}")
    _next_commands(machine, entry, figures)
    left = machine.temps()
    figures.add("leftovers after the next writer", len(left), note=", ".join(map(str, left[:3])))
    wedged = base / WEDGED_LOG
    if wedged.exists():
        lines = wedged.read_text().splitlines()
        figures.add("wedged workspaces", len(lines), note="; ".join(lines[:2]))
    if entry.git:
        figures.add("git locks left at the end", len(machine.git_locks()),
                    note=", ".join(map(str, machine.git_locks()[:3])))
    if entry.secrets:
        if entry.remove is not None:
            entry.remove(machine)
        found = leaks(machine, entry.secrets, allow_secret_files=False)
        figures.add("leaks", len(found), note=", ".join(found[:3]))
    return figures


def _next_commands(machine: Machine, entry: Writer, figures: Figures) -> None:
    for argv in entry.after:
        r = machine.cli(*argv, ALICE_NOW=clock())
        figures.add("next commands run")
        if tracebacks(r.stdout + r.stderr):
            figures.add("tracebacks", note=f"{' '.join(argv)}: {r.stderr[-300:]}")
        if r.returncode != 0:
            figures.add("next command failed", note=f"{' '.join(argv)} -> {r.returncode}: "
                                                     f"{(r.stderr or r.stdout)[-300:]}")
        elif "--json" in argv:
            try:
                json.loads(r.stdout)
            except ValueError:
                figures.add("next command failed", note=f"{' '.join(argv)}: not one JSON document")


def _failure_log(base: Path) -> str:
    log = base / "step-failures.log"
    return log.read_text()[-500:] if log.exists() else "no log"


# -- a kill during a secret write, then remove -------------------------------------------------

def secret_kill_then_remove(base: Path, *, max_kills: int, wanted: int = 3, seed: int = 7) -> Figures:
    """SIGKILL ``credential add`` / ``set-secret`` mid-write (the fork server)
    until ``wanted`` kills have left a temp copy of a key behind (or
    ``max_kills``), then ``credential remove`` and ``unset-secret`` as real
    commands, then look for the keys in every file of both homes: none may
    hold them."""
    from .machine import SECRET_WRITES

    figures = Figures()
    rng = random.Random(seed)
    machine = Machine(base).create()
    secrets = (CANARY, ADAPTER_CANARY)
    with _fork_server(machine, SECRET_WRITES.name) as server:
        for k in range(max_kills):
            server.kill_one(k, rng.uniform(0.0, 0.05))
            figures.add("kills")
            copies = [p for p in machine.temps()
                      if any(s.encode() in p.read_bytes() for s in secrets)]
            if copies:
                figures.add("kills that left a temp copy of a key")
                if figures["kills that left a temp copy of a key"] >= wanted:
                    break
    figures.add("temp copies of a key before remove", sum(
        1 for p in machine.temps() if any(s.encode() in p.read_bytes() for s in secrets)))
    for argv in (("alice", "credential", "remove", "k1"),
                 ("harness-adapter", "unset-secret", "claude", "ANTHROPIC_API_KEY")):
        r = machine.cli(*argv)
        if tracebacks(r.stdout + r.stderr):
            figures.add("tracebacks", note=r.stderr[-300:])
    found = leaks(machine, secrets, allow_secret_files=False)
    figures.add("leaks", len(found), note=", ".join(found[:3]))
    return figures


# -- concurrency ---------------------------------------------------------------------------

def concurrent_scans(base: Path, *, scanners: int = 8, issues: int = 12, rounds: int = 1) -> Figures:
    """``scanners`` scans at once over ``issues`` due issues, ``rounds`` times
    (a minute apart): exactly one run per issue and round."""
    from .machine import AGENTS

    figures = Figures()
    machine = Machine(base).create()
    for n in range(issues):
        r = machine.cli("alice", "issue", "create", "--title", f"Job {n}", "--every", "1h",
                        "--agent", AGENTS[n % len(AGENTS)], "--body", "go")
        assert r.returncode == 0, r.stderr
    from datetime import timedelta

    from .machine import T0, iso, tool_path

    for round_ in range(rounds):
        now = iso(T0 + timedelta(hours=round_ + 1))
        procs = [subprocess.Popen([tool_path("alice-schedule"), "scan", "--json",
                                   "--capacity", "1000"], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True,
                                  env=machine.env(ALICE_NOW=now), cwd=machine.ws)
                 for _ in range(scanners)]
        fired = 0
        for p in procs:
            out, err = p.communicate(timeout=300)
            figures.add("scans")
            if tracebacks(out + err):
                figures.add("tracebacks", note=err[-300:])
            if p.returncode == 0:
                doc = json.loads(out)
                fired += len(doc.get("fired", []))
        figures.add("runs fired", fired)
        # the runs end, as their supervisors would end them
        _finish_runs(machine)
    runs = machine.cli("alice-schedule", "runs", "--json", "--limit", "10000")
    per_issue = Counter(r["issueId"] for r in json.loads(runs.stdout)["runs"])
    figures.add("runs", sum(per_issue.values()))
    figures.add("duplicate runs", sum(c - rounds for c in per_issue.values() if c > rounds))
    figures.add("lost records", sum(max(0, rounds - per_issue.get(f"job-{n}", 0))
                                    for n in range(issues)))
    return figures


def _finish_runs(machine: Machine) -> None:
    script = ("from openalice.runs import admission, tasks\n"
              "for r in tasks.list_tasks(status='running', limit=100000):\n"
              "    tasks.update_task(r['taskId'], {'status': 'done'}); admission.release(r['taskId'])\n")
    subprocess.run([sys.executable, "-c", script], env=machine.env(), cwd=REPO, check=True)


INBOX_WORKER = """
import sys
from tests.reliability.machine import Machine, call
Machine(sys.argv[3]).enter()
worker, count = int(sys.argv[1]), int(sys.argv[2])
for i in range(count):
    call("alice-inbox", "push", "--body", f"worker {worker} entry {i} [[reports/a.md]]")
    if i % 5 == 4:
        call("alice-inbox", "mark-all-read")
"""


def concurrent_inbox(base: Path, *, writers: int = 6, entries: int = 20) -> Figures:
    """``writers`` processes push ``entries`` entries each (and mark all read now
    and then) at once: every entry there once, ids unique, every file whole."""
    figures = Figures()
    machine = Machine(base).create()
    procs = [subprocess.Popen([sys.executable, "-c", INBOX_WORKER, str(w), str(entries),
                               str(base)], cwd=REPO, env=machine.env(),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for w in range(writers)]
    for p in procs:
        out, err = p.communicate(timeout=600)
        if p.returncode != 0 or tracebacks(out + err):
            figures.add("tracebacks", note=err[-300:])
    listing = machine.cli("alice-inbox", "list", "--json", "--limit", "1000")
    bodies = [e["body"] for e in json.loads(listing.stdout)["entries"]]
    ids = [e["id"] for e in json.loads(listing.stdout)["entries"]]
    expected = {f"worker {w} entry {i} [[reports/a.md]]" for w in range(writers)
                for i in range(entries)}
    figures.add("entries pushed", len(expected))
    figures.add("lost records", len(expected - set(bodies)))
    figures.add("duplicate records", len(bodies) - len(set(bodies)) + len(ids) - len(set(ids)))
    broken = torn_files(machine)
    figures.add("torn files", len(broken), note="; ".join(broken[:3]))
    return figures


# -- the race: cat while a parent directory is swapped for a link ------------------------------

SWAPPER = """
import os, sys
root, outside = sys.argv[1], sys.argv[2]
real, moved = os.path.join(root, "reports"), os.path.join(root, "reports.real")

def step(action, *args):
    try:
        action(*args)
    except OSError:
        pass  # each step repairs what a failed one left

print("ready", flush=True)
while True:
    step(os.rename, real, moved)       # the directory goes away...
    step(os.symlink, outside, real)    # ...a link out of the root takes its place...
    step(os.unlink, real)
    step(os.rename, moved, real)       # ...and the directory comes back
"""


@contextmanager
def parent_swapped(root: Path, outside: Path):
    """While the block runs, another process swaps ``root/reports`` for a link
    to ``outside`` and back, in a loop."""
    swapper = subprocess.Popen([sys.executable, "-c", SWAPPER, str(root), str(outside)],
                               stdout=subprocess.PIPE, text=True)
    try:
        assert swapper.stdout.readline().strip() == "ready"
        yield
    finally:
        swapper.kill()
        swapper.wait()
        swapper.stdout.close()


def race_attempts(attempts: int, both_seen, *, patience: float = 60.0):
    """At least ``attempts`` reads, and more until ``both_seen()`` (up to 20 times
    as many, or for ``patience`` seconds): on a loaded machine the swapper may get
    no core, and so sit in one state, for a long while."""
    done, deadline = 0, time.monotonic() + patience
    while done < attempts or (not both_seen() and (done < 20 * attempts or time.monotonic() < deadline)):
        done += 1
        yield done


def cat_race(base: Path, *, attempts: int, subprocesses: int = 0) -> Figures:
    """``alice-inbox cat`` of a published ``[[reports/a.md]]`` ``attempts`` times
    in this process (the CLI's own code path, in-process for speed) and
    ``subprocesses`` times as the real tool, while another process swaps
    ``reports/`` for a link to a directory outside the workspace and back:
    no byte from outside may be printed."""
    from .machine import run_in_process, tool_path

    figures = Figures()
    machine = Machine(base).create()
    (machine.outside / "a.md").write_text("OUTSIDE-BYTES a.md\n")
    pushed = machine.cli("alice-inbox", "push", "--body", "see [[reports/a.md]]", "--json")
    assert pushed.returncode == 0, pushed.stderr
    entry_id = json.loads(pushed.stdout)["id"]
    machine.enter()
    with parent_swapped(machine.ws, machine.outside):
        for _ in race_attempts(attempts, lambda: figures["cat: served"] and figures["cat: refused"]):
            code, out, err = run_in_process("alice-inbox", "cat", entry_id, "reports/a.md")
            _judge_cat(figures, code, out, err)
        for _ in range(subprocesses):
            r = subprocess.run([tool_path("alice-inbox"), "cat", entry_id, "reports/a.md"],
                               capture_output=True, text=True, env=machine.env(), cwd=machine.ws)
            _judge_cat(figures, r.returncode, r.stdout, r.stderr)
    return figures


def _judge_cat(figures: Figures, code: int, out: str, err: str) -> None:
    figures.add("cat runs")
    if "OUTSIDE-BYTES" in out or "OUTSIDE-BYTES" in err:
        figures.add("outside bytes", note=f"exit {code}")
    if tracebacks(out + err):
        figures.add("tracebacks", note=err[-300:])
    if code == 0 and "inside the workspace" in out:
        figures.add("cat: served")
    elif code in (2, 4):
        figures.add("cat: refused")
    else:
        figures.add("cat: unexpected exit", note=f"{code}: {err[-200:]}")


# -- secret canaries across every command and file --------------------------------------------

def canary_sweep(base: Path) -> Figures:
    """Store the two canary keys, then run every command that touches a
    credential, a binding or a run (a real supervisor launching a stub agent
    with the key in its environment included), and the ways of getting a
    secret wrong: the keys may be in their own two 0600 files and nowhere
    else: no other file under either home or the workspace, no output."""
    figures = Figures()
    machine = Machine(base).create()
    outputs: list[str] = []

    def run(*argv: str, input: str | None = None, **env: str) -> subprocess.CompletedProcess:
        r = machine.cli(*argv, input=input, **env)
        outputs.append(r.stdout + r.stderr)
        figures.add("canary: commands run")
        if tracebacks(r.stdout + r.stderr):
            figures.add("tracebacks", note=f"{' '.join(argv)}: {r.stderr[-300:]}")
        return r

    launch = {"OPENALICE_TEST_LAUNCH": ""}
    run("alice", "credential", "add", "k1", "--vendor", "openrouter", "--label", "Canary",
        input=CANARY + "\n")
    run("harness-adapter", "set-secret", "claude", "ANTHROPIC_API_KEY", "-",
        input=ADAPTER_CANARY + "\n")
    # the ways of getting it wrong: the value on the command line, twice, or as config
    run("alice", "credential", "add", "k2", "--vendor", "openrouter", CANARY)
    run("alice", "credential", "add", "k1", "--vendor", "openrouter", input=CANARY + "\n")
    run("harness-adapter", "set-secret", "claude", "ANTHROPIC_API_KEY", CANARY)
    run("harness-adapter", "config", "claude", f"api_key={ADAPTER_CANARY}")
    run("harness-adapter", "config", "claude", f"region={ADAPTER_CANARY}")
    run("alice", "settings", "set", "--agent", "pi", "--credential", "k1", "--default")
    made = run("alice", "session", "new", "--agent", "pi", "--credential", "k1", "--json")
    resume_id = json.loads(made.stdout)["session"]["resumeId"] if made.returncode == 0 else "none"
    run("alice", "issue", "create", "--title", "Canary job", "--every", "1m", "--agent", "pi",
        "--credential", "k1", "--body", "report [[reports/a.md]]")
    for argv in (("alice", "credential", "list"), ("alice", "credential", "list", "--json"),
                 ("alice", "session", "list", "--json"), ("alice", "session", "show", resume_id),
                 ("alice", "settings", "show", "--json"), ("alice", "models", "list", "--json"),
                 ("alice", "issue", "list", "--json"), ("alice", "issue", "show", "canary-job"),
                 ("alice", "issue", "validate", "--json"), ("alice", "issue", "board", "--json"),
                 ("harness-adapter", "list", "--json"), ("harness-adapter", "show", "claude", "--json"),
                 ("harness-adapter", "health", "claude", "--json"),
                 ("harness-adapter", "available-models", "claude", "--json"),
                 ("alice", "doctor", "--json"), ("alice", "doctor")):
        run(*argv)
    scan = run("alice-schedule", "scan", "--json", ALICE_NOW=clock(), **launch)
    fired = json.loads(scan.stdout).get("fired", []) if scan.returncode == 0 else []
    now_run = run("alice-schedule", "run-now", "canary-job", "--json", ALICE_NOW=clock(), **launch)
    task_ids = [f.get("taskId") for f in fired if f.get("taskId")]
    if now_run.returncode == 0:
        task_ids.append(json.loads(now_run.stdout)["task"]["taskId"])
    for task_id in task_ids:
        run("alice-schedule", "run", task_id, "--wait", "--timeout", "60", "--json")
    figures.add("canary: runs launched", len(task_ids))
    seen = machine.agent_log.read_text().split() if machine.agent_log.exists() else []
    figures.add("canary: agents started", len(seen))
    figures.add("canary: agents that got the key in their environment",
                sum(1 for n in seen if int(n) > 0))
    for argv in (("alice-schedule", "runs", "--json"), ("alice-schedule", "health", "--json"),
                 ("alice-schedule", "next", "canary-job", "--json"), ("alice", "journal", "--json"),
                 ("alice-inbox", "push", "--body", "done [[reports/a.md]]", "--json"),
                 ("alice-inbox", "list", "--json"), ("alice", "doctor", "--json")):
        run(*argv, ALICE_NOW=clock())
    found = leaks(machine, (CANARY, ADAPTER_CANARY), allow_secret_files=True)
    found += [f"output #{i}" for i, text in enumerate(outputs)
              if CANARY in text or ADAPTER_CANARY in text]
    figures.add("leaks", len(found), note=", ".join(found[:5]))
    stored = [p for p in machine.secret_files()
              if CANARY.encode() in p.read_bytes() or ADAPTER_CANARY.encode() in p.read_bytes()]
    figures.add("canary: files holding a key (its own 0600 files)", len(stored))
    if any((p.stat().st_mode & 0o077) for p in stored):
        figures.add("leaks", note="a secret file readable by others")
    return figures
