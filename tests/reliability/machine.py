"""A throwaway machine for the reliability suite, and the table of its writers.

A :class:`Machine` is two homes, a registered workspace and a bin directory of
agent stubs, all under one directory.  :data:`WRITERS` lists every writer of
state the toolkit has; each is one entry (:class:`Writer`): how to prepare
the machine once, one step of work (real CLI verbs, called in-process, or the
domain calls a long-running process makes), which commands must work after a
kill, and which secrets it stores.  Adding a writer (the sticker
transactions, say) is adding one entry; every kill, leftover, canary and
figure of the suite then covers it.

The kills use a fork server (:mod:`tests.reliability.writer_loop`): one warm
process per writer forks a child per kill, the child runs the writer's step in
a loop, and SIGKILL lands wherever it is, most of the time inside a write
(an fsync costs milliseconds here; the CLI's start-up is already paid).
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[2]
T0 = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)
CANARY = "sk-reliability-canary-5d1f0c9a"          # the vault's key
ADAPTER_CANARY = "sk-ant-reliability-canary-77e2"   # an adapter env file's key
TOOLS = {"alice": "openalice.cli.alice", "alice-schedule": "openalice.cli.schedule",
         "alice-inbox": "openalice.cli.inbox", "harness-adapter": "openalice.cli.adapter",
         "alice-harness": "openalice.cli.harness"}
AGENTS = ("claude", "codex", "opencode", "pi")


def iso(instant: datetime) -> str:
    return instant.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def tool_path(name: str) -> str:
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.exists() else str(REPO / "bin" / name)


class Machine:
    """Homes, a workspace and agent stubs under ``base``; ``env`` for subprocesses,
    :meth:`enter` for this process."""

    def __init__(self, base: os.PathLike | str) -> None:
        self.base = Path(base)
        self.openalice = self.base / "openalice"
        self.harness = self.base / "harness"
        self.user = self.base / "user"
        self.ws = self.base / "ws"
        self.bin = self.base / "bin"
        self.outside = self.base / "outside"
        self.agent_log = self.base / "agent-env.log"

    @property
    def homes(self) -> tuple[Path, Path]:
        return self.openalice, self.harness

    def env(self, **extra: str) -> dict:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "ALICE_RUN_ID",
                                                               "ALICE_WORKSPACE_ID",
                                                               "ALICE_RESUME_ID")}
        env.update({"OPENALICE_HOME": str(self.openalice), "HARNESS_HOME": str(self.harness),
                    "HOME": str(self.user), "ALICE_NOW": iso(T0),
                    "OPENALICE_TEST_LAUNCH": "none", "NO_COLOR": "1",
                    "PATH": f"{self.bin}{os.pathsep}{os.environ.get('PATH', '')}"})
        env.update(extra)
        return env

    def enter(self) -> None:
        """Make this process one of the machine's (environment and cwd)."""
        for key in ("ALICE_RUN_ID", "ALICE_WORKSPACE_ID", "ALICE_RESUME_ID", "HARNESS_CATALOG"):
            os.environ.pop(key, None)
        os.environ.update(self.env())
        os.chdir(self.ws)

    def create(self, template: str = "blank", git: bool = False) -> "Machine":
        for d in (self.user, self.bin, self.outside):
            d.mkdir(parents=True, exist_ok=True)
        if git:   # a workspace that is a git repository: harness applies commit there
            self.ws.mkdir(parents=True)
            subprocess.run(["git", "init", "-q", str(self.ws)], check=True, env={**os.environ, **_GIT_IDENTITY})
        for name in AGENTS:
            # A stub agent: it says whether a canary key reached its environment
            # (how many variables hold one; never the value), then fails.
            stub = self.bin / name
            stub.write_text(f"#!/bin/sh\nenv | grep -c 'reliability-canary' >> '{self.agent_log}'\n"
                            f"echo 'stub {name}: no agent runs here' >&2\nexit 97\n")
            stub.chmod(0o755)
        (self.outside / "private.txt").write_text("OUTSIDE-BYTES private\n")
        run = self.cli("alice", "workspace", "init", str(self.ws), "--label", "Reliability",
                       "--template", template)
        assert run.returncode == 0, run.stderr
        (self.ws / "reports").mkdir()
        (self.ws / "reports" / "a.md").write_text("# inside the workspace\n")
        if git:
            env = {**os.environ, **_GIT_IDENTITY}
            subprocess.run(["git", "-C", str(self.ws), "add", "-A"], check=True, env=env)
            subprocess.run(["git", "-C", str(self.ws), "commit", "-q", "-m", "workspace"], check=True, env=env)
            # A pre-commit hook that takes a while, as a repository's linters do: git holds
            # index.lock meanwhile, so many kills land while it is held.
            hook = self.ws / ".git" / "hooks" / "pre-commit"
            hook.write_text("#!/bin/sh\nsleep 0.15\n")
            hook.chmod(0o755)
        return self

    def git_locks(self) -> list[Path]:
        """git's lock files in the workspace's repository (a killed git left them)."""
        from openalice.core import git

        return git.lock_files(self.ws) if (self.ws / ".git").is_dir() else []

    def cli(self, tool: str, *args: str, input: str | None = None, timeout: float = 120,
            **env: str) -> subprocess.CompletedProcess:
        """The installed tool, as a real subprocess."""
        return subprocess.run([tool_path(tool), *args], input=input, capture_output=True,
                              text=True, env=self.env(**env),
                              cwd=self.ws if self.ws.is_dir() else self.base, timeout=timeout)

    # -- what is on disk ---------------------------------------------------------------

    def roots(self) -> list[Path]:
        extra = self.base / "from-git"     # a workspace created from a template repository
        return [self.openalice, self.harness, self.ws] + ([extra] if extra.is_dir() else [])

    def files(self):
        for root in self.roots():
            for dirpath, _dirs, names in os.walk(root):
                for name in names:
                    yield Path(dirpath) / name

    def temps(self) -> list[Path]:
        return sorted(p for p in self.files() if p.name.startswith(".tmp-"))

    def secret_files(self) -> set[Path]:
        found = set()
        for where in (self.openalice / "vault" / "secrets", self.harness / "env"):
            if where.is_dir():
                found.update(p for p in where.iterdir() if p.suffix == ".env")
        return found


def call(tool: str, *args: str, stdin: str | None = None) -> int:
    """One CLI invocation inside this process; an internal error raises."""
    code, out, err = run_in_process(tool, *args, stdin=stdin)
    if tracebacks(out + err):
        raise RuntimeError(f"{tool} {' '.join(args)}: {err[-2000:]}")
    return code


def run_in_process(tool: str, *args: str, stdin: str | None = None) -> tuple[int, str, str]:
    """One CLI invocation inside this process: ``(exit code, stdout, stderr)``."""
    import importlib

    module = importlib.import_module(TOOLS[tool])
    out, err = io.BytesIO(), io.BytesIO()
    streams = (io.TextIOWrapper(io.BytesIO((stdin or "").encode())),
               io.TextIOWrapper(out, write_through=True), io.TextIOWrapper(err, write_through=True))
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = streams
    try:
        code = module.main(list(args))
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
        for stream in streams:
            stream.flush()
            stream.detach()  # the buffers stay open for reading
    return code, out.getvalue().decode("utf-8", "replace"), err.getvalue().decode("utf-8", "replace")


def clock() -> str:
    """An instant that only moves forward (a real second is a minute here),
    across the children of a fork server and the processes after them."""
    return iso(T0 + timedelta(seconds=(time.time() - 1_700_000_000) * 60))


# -- the writers -------------------------------------------------------------------------

@dataclass
class Writer:
    """One writer of state.

    ``setup(machine)`` runs once (in the test process, through the real CLI);
    ``step(machine, n)`` is one unit of its work, run in a loop by the forked
    child that gets killed; ``after`` are the commands that must work after a
    kill (run as real subprocesses); ``secrets`` the values it stores.
    ``remove`` removes them (the canary check: nothing left anywhere)."""

    name: str
    step: Callable[[Machine, int], None]
    setup: Callable[[Machine], None] = lambda m: None
    after: list[tuple[str, ...]] = field(default_factory=list)
    secrets: tuple[str, ...] = ()
    remove: Callable[[Machine], None] | None = None
    template: str = "blank"   # the workspace template its machine starts from
    cycle: int = 1            # its steps repeat every `cycle`: the next writer runs one whole cycle
    git: bool = False         # the workspace is a git repository (harness applies commit there)
    max_delay: float = 0.06   # kills land this long into a child's run at most (about one step)


def _issue_create(m: Machine, n: int) -> None:
    call("alice", "issue", "create", "--title", f"Job {os.getpid()} {n}", "--body", f"do {n}" * 40)


def _issue_setup(m: Machine) -> None:
    r = m.cli("alice", "issue", "create", "--title", "Target", "--body", "first")
    assert r.returncode == 0, r.stderr


def _issue_update(m: Machine, n: int) -> None:
    if n % 3 == 2:
        call("alice", "issue", "comment", "target", "--body", f"comment {n} " * 30)
    else:
        call("alice", "issue", "update", "target", "--title", f"Target {n}",
             "--body", f"body {n}\n" * (1 + n % 50))


def _inbox_push(m: Machine, n: int) -> None:
    call("alice-inbox", "push", "--body", f"report {n} [[reports/a.md]] " + "x" * (n % 500))


def _inbox_setup(m: Machine) -> None:
    for n in range(3):
        r = m.cli("alice-inbox", "push", "--body", f"seed {n} [[reports/a.md]]")
        assert r.returncode == 0, r.stderr


def _mark_all_read(m: Machine, n: int) -> None:
    from openalice import inbox

    if n % 4 == 0:
        call("alice-inbox", "push", "--body", f"more {n}")
    elif n % 4 == 1:
        call("alice-inbox", "mark-all-read")
    else:
        newest = inbox.InboxStore().newest_id()
        if newest:
            call("alice-inbox", "unread" if n % 4 == 2 else "read", newest)


def _adapter_state(m: Machine, n: int) -> None:
    verb = ("enable", "disable")[n % 2]
    call("harness-adapter", verb, "claude")
    call("harness-adapter", "config", "opencode", f"region=eu-{n % 7}")


def _credentials(m: Machine, n: int) -> None:
    slug = f"k{n % 3}"
    if n % 5 == 4:
        call("alice", "credential", "remove", slug)
    else:
        call("alice", "credential", "add", slug, "--vendor", "openrouter", "--replace",
             stdin=CANARY + "\n")
    if n % 2:
        call("harness-adapter", "set-secret", "claude", "ANTHROPIC_API_KEY", "--force", "-",
             stdin=ADAPTER_CANARY + "\n")
    else:
        call("harness-adapter", "unset-secret", "claude", "ANTHROPIC_API_KEY")


def _credentials_remove(m: Machine) -> None:
    for slug in ("k0", "k1", "k2"):
        m.cli("alice", "credential", "remove", slug)
    m.cli("harness-adapter", "unset-secret", "claude", "ANTHROPIC_API_KEY")


CONNECTOR_CANARY = "123456:reliability-canary-bot-token-5c1"   # a connector's bot token


def _connectors(m: Machine, n: int) -> None:
    name = f"c{n % 3}"
    if n % 5 == 4:
        call("alice", "connector", "remove", name)
    elif n % 5 == 3:
        call("alice", "connector", "disable", name)
    else:
        call("alice", "connector", "add", "telegram", name, "--chat-id", "111", "--replace",
             "--api-base", "http://127.0.0.1:9", stdin=CONNECTOR_CANARY + "\n")


def _connectors_remove(m: Machine) -> None:
    for name in ("c0", "c1", "c2"):
        m.cli("alice", "connector", "remove", name)


SCAN_ISSUES = 6


def _scan_setup(m: Machine) -> None:
    for n in range(SCAN_ISSUES):
        r = m.cli("alice", "issue", "create", "--title", f"Every minute {n}", "--every", "1m",
                  "--agent", AGENTS[n % len(AGENTS)], "--body", "report")
        assert r.returncode == 0, r.stderr


def _scan(m: Machine, n: int) -> None:
    """A scan with due issues, then what the supervisor does at a run's end."""
    from openalice.runs import admission, tasks

    os.environ["ALICE_NOW"] = clock()
    call("alice-schedule", "scan", "--capacity", "1000")
    for record in tasks.list_tasks(status="running", limit=50):
        tasks.update_task(record["taskId"], {"status": "done", "exitCode": 0})
        admission.release(record["taskId"])


def _studio_state(m: Machine, n: int) -> None:
    """The writes of a Studio generation: lease, record, route, withdrawal."""
    from openalice.studio import reconcile, state

    now = T0 + timedelta(seconds=n)
    with reconcile.operation_lease("reliability", "start", now):
        record = state.update_state("reliability", lambda r: {
            **r, "phase": "starting", "generation": r["generation"] + 1})
        surface = state.new_surface_id()
        state.publish_route(surface, {"generation": record["generation"], "port": 40000 + n % 1000})
        state.update_state("reliability", lambda r: {**r, "phase": "ready",
                                                     "host": state.host_for(surface)})
        state.update_state("reliability", lambda r: (state.withdraw_route(r.get("host")), {
            **r, "phase": "stopped", "host": None})[1])


def _sessions(m: Machine, n: int) -> None:
    call("alice", "session", "new", "--agent", AGENTS[n % len(AGENTS)])


def _harness_upgrade(m: Machine, n: int) -> None:
    """A managed three-way transaction: a skill removed, then installed again."""
    call("alice-harness", "upgrade", "--skill", "alice", "--action", ("remove", "install")[n % 2],
         "--apply")


WEDGED_LOG = "wedged.log"


def strict(m: Machine, tool: str, *args: str) -> None:
    """One CLI invocation that must succeed.  ``git_locked`` (a lock a killed git left that
    nothing removed) or ``staged_changes`` (what a rollback could not unstage under that lock)
    is a wedged workspace, logged for the figures; any failure is the writer failing on its own."""
    code, out, err = run_in_process(tool, *args, "--json")
    if code == 0 and not tracebacks(out + err):
        return
    if '"git_locked"' in out + err or '"staged_changes"' in out + err:
        with open(m.base / WEDGED_LOG, "a") as log:
            log.write(f"{tool} {' '.join(args)}: {(out + err)[-300:]!r}\n")
    raise RuntimeError(f"{tool} {' '.join(args)} -> {code}: {(out + err)[-1000:]}")


def _harness_upgrade_git(m: Machine, n: int) -> None:
    """Committing applies in a git workspace: each one a `git add` and `git commit` a kill can
    cut short while git holds index.lock; the next apply must go on (no wedge)."""
    # each forked child starts at step k * 100_000: shifted by k, so a child begins with either action
    strict(m, "alice-harness", "upgrade", "--skill", "alice", "--action",
           ("remove", "install")[(n + n // 100_000) % 2], "--apply")


def _stickers_git(m: Machine, n: int) -> None:
    """Sticker transactions in a git workspace, between committing harness applies: a sticker
    apply after a kill inside a commit must go on, and remove the lock it left."""
    step = (n + n // 100_000) % 5     # each child (step k * 100_000) starts at another step
    if step == 4:
        strict(m, "alice-harness", "upgrade", "--skill", "file-delivery", "--action",
               ("remove", "install")[(n // 5) % 2], "--apply")
    elif step == 2:
        strict(m, "alice-harness", "stickers", "disable")
    else:
        strict(m, "alice-harness", "stickers", "enable", "--pack", ("alice-ink", "alice-color", "", "alice-ink")[step],
               "--apply")


def _stickers_setup(m: Machine) -> None:
    from openalice.core import resources

    shutil.copytree(resources.data_path("default", "stickers", "alice-color"), m.base / "pack")


def _stickers(m: Machine, n: int) -> None:
    """Sticker transactions: a pack switched, the skill removed, a pack imported."""
    step = n % 4
    if step == 0:
        call("alice-harness", "stickers", "enable", "--pack", "alice-ink", "--apply")
    elif step == 1:
        call("alice-harness", "stickers", "enable", "--pack", "alice-color", "--apply")
    elif step == 2:
        call("alice-harness", "stickers", "disable")
    else:
        from openalice.core import resources

        # The import's source is the test's own input, not state: built from the
        # shipped manifest each time and renamed into place, so a kill here
        # cannot leave the next step a half-written pack.json to read.
        manifest = m.base / "pack" / "pack.json"
        doc = json.loads(resources.data_path("default", "stickers", "alice-color", "pack.json").read_text())
        doc.update(id="reliability-pack", name=f"Pack {os.getpid()} {n}")
        staged = m.base / f"pack.json.{os.getpid()}"   # outside the pack: never imported
        staged.write_text(json.dumps(doc))
        os.replace(staged, manifest)
        call("alice-harness", "stickers", "import", str(m.base / "pack"))


SOURCE_WS = "from-git"            # the workspace created from a template repository
_GIT_IDENTITY = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
                 "GIT_COMMITTER_EMAIL": "t@x", "GIT_CONFIG_NOSYSTEM": "1"}


def _source_setup(m: Machine, versions: int = 400) -> None:
    """A template repository (the toy Studio app) with a chain of versions, and a
    workspace created from its first one with ``init --from-git``."""
    env = {**os.environ, **_GIT_IDENTITY}
    app = REPO / "tests" / "fixtures" / "studio_app"
    manifest = json.loads((app / "harness.json").read_text())
    manifest["capabilities"]["studio"]["command"][0] = sys.executable
    stream = bytearray()

    def blob(path: str, data: bytes) -> None:
        stream.extend(b"M 100644 inline %s\ndata %d\n%s\n" % (path.encode(), len(data), data))

    for k in range(versions):     # one git fast-import for the whole chain
        manifest["version"] = f"0.{1 + k // 1000}.{k % 1000}"
        message = manifest["version"].encode()
        stream.extend(b"commit refs/heads/main\ncommitter t <t@x> %d +0000\ndata %d\n%s\n"
                      % (1_700_000_000 + k, len(message), message))
        if k == 0:
            for path in sorted(p for p in app.rglob("*") if p.is_file() and p.name != "harness.json"):
                blob(path.relative_to(app).as_posix(), path.read_bytes())
        blob("harness.json", (json.dumps(manifest, indent=2) + "\n").encode())
        blob("NEWS.md", f"# {manifest['version']}\n\n- change {k}\n".encode())
    bare = m.base / "template.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], env=env, check=True)
    subprocess.run(["git", "-C", str(bare), "fast-import", "--quiet"], input=bytes(stream), env=env,
                   check=True)
    chain = subprocess.run(["git", "-C", str(bare), "rev-list", "--reverse", "main"], env=env, check=True,
                           capture_output=True, text=True).stdout.split()
    (m.base / "source-chain.json").write_text(json.dumps(chain))
    r = m.cli("alice", "workspace", "init", str(m.base / SOURCE_WS), "--from-git",
              f"{m.base / 'template.git'}@{chain[0]}", "--label", SOURCE_WS, **_GIT_IDENTITY)
    assert r.returncode == 0, r.stderr


def _source_upgrade(m: Machine, n: int) -> None:
    """``alice-harness source preview --to`` a later version, then ``apply`` it (a git
    merge and the receipt, under the checkout lease); a killed apply is recovered
    by the next one."""
    os.environ.update(_GIT_IDENTITY)
    chain = json.loads((m.base / "source-chain.json").read_text())
    to = chain[min(n // 100_000 + n % 100_000 + 1, len(chain) - 1)]
    code, out, err = run_in_process("alice-harness", "source", "preview", "--workspace", SOURCE_WS,
                                    "--to", to, "--json")
    if code != 0 or tracebacks(out + err):
        raise RuntimeError(f"source preview: {err[-2000:]}")
    plan = json.loads(out)["preview"]
    if plan["status"] == "current":
        return
    code, out, err = run_in_process("alice-harness", "source", "apply", "--workspace", SOURCE_WS,
                                    "--digest", plan["digest"], "--json")
    if code != 0 or tracebacks(out + err):
        raise RuntimeError(f"source apply: {err[-2000:]}")


WRITERS: list[Writer] = [
    Writer("issue create", _issue_create,
           after=[("alice", "issue", "list", "--json"), ("alice", "issue", "validate", "--json")]),
    Writer("issue update", _issue_update, setup=_issue_setup,
           after=[("alice", "issue", "show", "target", "--json"),
                  ("alice", "issue", "update", "target", "--title", "After the kills")]),
    Writer("inbox push", _inbox_push,
           after=[("alice-inbox", "list", "--json"), ("alice-inbox", "count", "--json"),
                  ("alice", "journal", "--json")]),
    Writer("mark-all-read", _mark_all_read, setup=_inbox_setup,
           after=[("alice-inbox", "list", "--unread", "--json"),
                  ("alice-inbox", "mark-all-read", "--json")]),
    Writer("adapter state", _adapter_state,
           after=[("harness-adapter", "list", "--json"), ("harness-adapter", "enable", "claude")]),
    Writer("credentials", _credentials, secrets=(CANARY, ADAPTER_CANARY),
           remove=_credentials_remove,
           after=[("alice", "credential", "list", "--json"),
                  ("harness-adapter", "show", "claude", "--json")]),
    Writer("connector records", _connectors, secrets=(CONNECTOR_CANARY,),
           remove=_connectors_remove, cycle=5,
           after=[("alice", "connector", "list", "--json")]),
    Writer("scan with due issues", _scan, setup=_scan_setup,
           after=[("alice-schedule", "runs", "--json"), ("alice-schedule", "health", "--json"),
                  ("alice-schedule", "scan", "--json")]),
    Writer("studio state", _studio_state,
           after=[("alice-harness", "studio", "status", "--workspace", "reliability", "--json")]),
    Writer("sessions", _sessions, after=[("alice", "session", "list", "--json")]),
    Writer("harness transactions", _harness_upgrade, template="chat",
           after=[("alice-harness", "status", "--json"), ("alice-harness", "upgrade", "--json")]),
    Writer("source upgrades", _source_upgrade, setup=_source_setup,
           after=[("alice-harness", "source", "preview", "--workspace", SOURCE_WS, "--json"),
                  ("alice", "workspace", "show", SOURCE_WS, "--json")]),
    Writer("sticker transactions", _stickers, setup=_stickers_setup, template="chat", cycle=4,
           after=[("alice-harness", "stickers", "status", "--json"),
                  ("alice-harness", "stickers", "list", "--json"), ("alice-harness", "status", "--json")]),
    Writer("harness transactions (git)", _harness_upgrade_git, template="chat", git=True, cycle=2, max_delay=1.2,
           after=[("alice-harness", "status", "--json"), ("alice-harness", "upgrade", "--json"),
                  ("alice-harness", "upgrade", "--skill", "file-delivery", "--action", "update", "--apply",
                   "--json")]),
    Writer("sticker transactions (git)", _stickers_git, template="chat", git=True, cycle=10, max_delay=1.2,
           after=[("alice-harness", "stickers", "status", "--json"), ("alice-harness", "status", "--json"),
                  ("alice-harness", "stickers", "enable", "--apply", "--json")]),
]


def _secret_writes(m: Machine, n: int) -> None:
    call("alice", "credential", "add", "k1", "--vendor", "openrouter", "--replace",
         stdin=CANARY + "\n")
    call("harness-adapter", "set-secret", "claude", "ANTHROPIC_API_KEY", "--force", "-",
         stdin=ADAPTER_CANARY + "\n")


# Writers the suite uses for one purpose (not part of the kill table).
SECRET_WRITES = Writer("secret writes", _secret_writes, secrets=(CANARY, ADAPTER_CANARY))


def writer(name: str) -> Writer:
    for entry in WRITERS + [SECRET_WRITES]:
        if entry.name == name:
            return entry
    raise KeyError(name)


# -- what a kill may leave -----------------------------------------------------------------

_ENV_LINE = re.compile(r"(?:export\s+)?[A-Za-z_][A-Za-z0-9_]*='[^']*'(?:\\''[^']*')*\Z")


def torn_files(m: Machine) -> list[str]:
    """Files a reader would find broken (a torn JSONL tail is not one: the next
    append repairs it by design).  Temp and lock files are not state."""
    problems = []
    for path in m.files():
        name = path.name
        if name.startswith(".tmp-") or name.endswith(".lock") or path.is_symlink():
            continue
        try:
            data = path.read_bytes()
        except OSError as exc:
            problems.append(f"{path}: unreadable ({exc.strerror})")
            continue
        if name.endswith(".json"):
            try:
                if not isinstance(json.loads(data), dict):
                    problems.append(f"{path}: not an object")
            except ValueError as exc:
                problems.append(f"{path}: {exc}")
        elif name.endswith(".jsonl"):
            complete = data[: data.rfind(b"\n") + 1]
            for i, line in enumerate(complete.splitlines()):
                try:
                    json.loads(line)
                except ValueError:
                    problems.append(f"{path}: line {i + 1} is not JSON (glued or torn mid-file)")
                    break
        elif name.endswith(".env") and path in m.secret_files():
            for line in data.decode("utf-8", "replace").splitlines():
                if line.strip() and not line.startswith("#") and not _ENV_LINE.match(line.strip()):
                    problems.append(f"{path}: a line that is not KEY='value'")
                    break
    issues_dir = m.ws / ".alice" / "issues"
    if issues_dir.is_dir():
        from types import SimpleNamespace

        from openalice.issues import read_issues

        found = read_issues(SimpleNamespace(id="reliability", path=str(m.ws), root=m.ws))
        problems.extend(f"{bad.path}: {bad.message}" for bad in found.invalid)
    return problems


def leaks(m: Machine, secrets: tuple[str, ...], *, allow_secret_files: bool) -> list[str]:
    """Files holding one of ``secrets`` (their own 0600 files aside, when allowed)."""
    allowed = m.secret_files() if allow_secret_files else set()
    hits = []
    for path in m.files():
        if path in allowed or path.is_symlink():
            continue
        try:
            data = path.read_bytes()
        except OSError:
            continue
        hits.extend(f"{path}" for s in secrets if s.encode() in data)
    return hits


def tracebacks(text: str) -> bool:
    return "Traceback" in text or "internal error" in text


def copy_machine(m: Machine, to: Path) -> Machine:
    shutil.copytree(m.base, to, symlinks=True)
    return Machine(to)
