"""Stand-in agent engines named ``claude``, ``codex``, ``opencode`` and ``pi``.

Each is a small Python executable (shebang: this interpreter) that

- checks it was called with the argv shape its adapter projects (the recorded
  headless argv in ``tests/data/agent-streams/README.md``) and fails
  loudly (exit 97, message on stderr) otherwise;
- replays the real CLI's recorded stream: ``<engine>-stream.jsonl`` for a
  fresh turn, ``<engine>-resume-stream.jsonl`` when given its resume flag
  (``--resume ID``, ``resume ID``, ``-s ID``, ``--session ID``), with the
  recording's session id replaced by the requested one, as the real CLIs keep
  the id of the session they resume;
- appends one JSON line per call to ``calls.jsonl`` beside it: argv, cwd,
  the prompt (argv or stdin), the run environment (``ALICE_*``), the head of
  PATH, and sha256 fingerprints of the credential variables (never values).

``behaviour.json`` beside the scripts switches the next calls: ``{"mode":
"error"|"tool"|"hang"|"hang-ignore-term"|"exit"|"failure", "exitCode": N,
"name": "claude-nologin"}`` (``failure`` replays ``failures/<name>``: stdout,
stderr and ``exitCode``; ``hang``
replays the turn, writes its pid to ``hanging`` and never exits; with
``-ignore-term`` it also ignores SIGTERM).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ENGINES = ("claude", "codex", "opencode", "pi")
# exit status of the real CLI after an API error (pi exits 0; see the fixtures README)
ERROR_EXIT = {"claude": 1, "codex": 1, "opencode": 1, "pi": 0}

SCRIPT = r'''#!{python}
import hashlib, json, os, signal, stat, sys, time
HERE = {here!r}
FIXTURES = {fixtures!r}
ENGINE = os.path.basename(sys.argv[0])
ERROR_EXIT = {error_exit!r}
SECRET_VARS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENALICE_SESSION_KEY", "OPENAI_API_KEY",
               "CLAUDE_CODE_OAUTH_TOKEN")

def die(message):
    sys.stderr.write(f"stand-in {{ENGINE}}: unexpected argv: {{message}}\nargv: {{sys.argv[1:]!r}}\n")
    sys.exit(97)

def flag_value(args, name):
    if name in args:
        i = args.index(name)
        if i + 1 >= len(args):
            die(f"{{name}} without a value")
        return args[i + 1]
    return None

args = sys.argv[1:]
prompt = None
resume = None
stdin_kind = "file"
mode = os.fstat(0).st_mode
if stat.S_ISCHR(mode):
    stdin_kind = "devnull"
elif stat.S_ISFIFO(mode):
    stdin_kind = "pipe"
if ENGINE == "claude":
    if args[:4] != ["-p", "--output-format", "stream-json", "--verbose"]:
        die("claude must start with -p --output-format stream-json --verbose")
    if "--dangerously-skip-permissions" not in args or "--" not in args:
        die("claude needs --dangerously-skip-permissions and -- PROMPT")
    sep = args.index("--")
    if sep != len(args) - 2:
        die("the prompt must be the one argument after --")
    prompt = args[-1]
    resume = flag_value(args[:sep], "--resume")
elif ENGINE == "codex":
    head = ["exec", "--json", "--skip-git-repo-check", "--disable", "plugins", "-c", "analytics.enabled=false", "-C"]
    if args[:len(head)] != head:
        die("codex exec must start with the recorded headless flags")
    if "--dangerously-bypass-approvals-and-sandbox" not in args or args[-2] != "--":
        die("codex needs --dangerously-bypass-approvals-and-sandbox and -- PROMPT")
    if stdin_kind != "devnull":
        die("codex reads a non-terminal stdin: it must be /dev/null")
    if os.path.realpath(args[len(head)]) != os.path.realpath(os.getcwd()):
        die("-C must name the workspace (the cwd)")
    prompt = args[-1]
    rest = args[args.index("--dangerously-bypass-approvals-and-sandbox") + 1:-2]
    if rest:
        if len(rest) != 2 or rest[0] != "resume":
            die("only 'resume ID' may follow the sandbox flag")
        resume = rest[1]
elif ENGINE == "opencode":
    if args[:4] != ["run", "--format", "json", "--dir"] or len(args) < 6:
        die("opencode must start with run --format json --dir WS")
    if os.path.realpath(args[4]) != os.path.realpath(os.getcwd()):
        die("--dir must name the workspace (the cwd)")
    if args[-1] != "--auto":
        die("opencode must end with --auto")
    if stdin_kind != "pipe":
        die("opencode takes the prompt on stdin")
    prompt = sys.stdin.read()
    resume = flag_value(args, "-s")
elif ENGINE == "pi":
    if args[:3] != ["-p", "--mode", "json"]:
        die("pi must start with -p --mode json")
    prompt = args[-1]
    resume = flag_value(args[:-1], "--session")
else:
    die("unknown engine name")

env = os.environ
record = {{"engine": ENGINE, "argv": args, "cwd": os.getcwd(), "prompt": prompt, "resume": resume,
          "stdin": stdin_kind,
          "run_env": {{k: env.get(k) for k in ("ALICE_RUN_ID", "ALICE_RESUME_ID", "ALICE_WORKSPACE_ID")}},
          "path_head": env.get("PATH", "").split(os.pathsep)[:2],
          "secret_sha256": {{k: hashlib.sha256(env[k].encode()).hexdigest() for k in SECRET_VARS if k in env}},
          "pgid_is_pid": os.getpgid(0) == os.getpid()}}
with open(os.path.join(HERE, "calls.jsonl"), "a") as fh:
    fh.write(json.dumps(record) + "\n")

behaviour = {{}}
try:
    with open(os.path.join(HERE, "behaviour.json")) as fh:
        behaviour = json.load(fh)
except FileNotFoundError:
    pass
mode = behaviour.get("mode", "ok")
if mode == "exit":
    sys.exit(int(behaviour.get("exitCode", 3)))
hang = mode in ("hang", "hang-ignore-term")
if mode == "hang-ignore-term":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if mode == "failure":  # replay a recorded failure: failures/<name>.jsonl, .stderr, its exit status
    base = os.path.join(FIXTURES, "failures", behaviour["name"])
    with open(base + ".jsonl", encoding="utf-8") as fh:
        sys.stdout.write(fh.read())
    if os.path.exists(base + ".stderr"):
        with open(base + ".stderr", encoding="utf-8") as fh:
            sys.stderr.write(fh.read())
    sys.stdout.flush()
    sys.stderr.flush()
    sys.exit(int(behaviour.get("exitCode", 1)))
kind = {{"error": "error-stream", "tool": "tool-stream"}}.get(mode, "stream")
if resume and kind == "stream":
    kind = "resume-stream"
with open(os.path.join(FIXTURES, f"{{ENGINE}}-{{kind}}.jsonl"), encoding="utf-8") as fh:
    lines = fh.read().splitlines()

def recorded_session(lines):
    for line in lines:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if not isinstance(event, dict):
            continue
        if ENGINE == "claude" and event.get("session_id"):
            return event["session_id"]
        if ENGINE == "codex" and event.get("type") == "thread.started":
            return event.get("thread_id")
        if ENGINE == "opencode" and event.get("sessionID"):
            return event["sessionID"]
        if ENGINE == "pi" and event.get("type") == "session":
            return event.get("id")
    return None

if resume:
    recorded = recorded_session(lines)
    if recorded:
        lines = [line.replace(recorded, resume) for line in lines]
for line in lines:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()
if hang:  # the whole turn printed, then the process never exits by itself
    with open(os.path.join(HERE, "hanging"), "w") as fh:
        fh.write(str(os.getpid()))
    while True:
        time.sleep(3600)
sys.exit(ERROR_EXIT[ENGINE] if mode == "error" else 0)
'''


def fixtures_dir() -> Path:
    """The recorded agent streams the stand-ins replay (``tests/data/agent-streams``)."""
    from tests.testdata import AGENT_STREAMS

    return AGENT_STREAMS


class StandIns:
    """The installed stand-ins: ``bin`` (put it first on PATH), calls, behaviour."""

    def __init__(self, bin_dir: Path, fixtures: Path) -> None:
        bin_dir = Path(os.path.abspath(bin_dir))
        self.bin = bin_dir
        self.fixtures = fixtures
        bin_dir.mkdir(parents=True, exist_ok=True)
        for engine in ENGINES:
            path = bin_dir / engine
            path.write_text(SCRIPT.format(python=sys.executable, here=str(bin_dir), fixtures=str(fixtures),
                                          error_exit=ERROR_EXIT))
            path.chmod(0o755)

    def calls(self) -> list[dict]:
        path = self.bin / "calls.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

    def behave(self, mode: str = "ok", **extra) -> None:
        (self.bin / "behaviour.json").write_text(json.dumps({"mode": mode, **extra}))

    def kill_hanging(self) -> None:
        """End a ``hang`` stand-in (its pid is in ``hanging``), so a test leaves no
        process behind; its supervisor then records the run's end."""
        import signal

        pidfile = self.bin / "hanging"
        try:
            pid = int(pidfile.read_text())
        except (OSError, ValueError):
            return
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        pidfile.unlink(missing_ok=True)

    def path_env(self, base: str | None = None) -> str:
        return os.pathsep.join([str(self.bin), base if base is not None else os.environ.get("PATH", "")])

    def recorded_session(self, engine: str, kind: str = "stream") -> str:
        """The session id the recorded ``<engine>-<kind>.jsonl`` carries."""
        for line in (self.fixtures / f"{engine}-{kind}.jsonl").read_text().splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if engine == "claude" and event.get("session_id"):
                return event["session_id"]
            if engine == "codex" and event.get("type") == "thread.started":
                return event["thread_id"]
            if engine == "opencode" and event.get("sessionID"):
                return event["sessionID"]
            if engine == "pi" and event.get("type") == "session":
                return event["id"]
        raise AssertionError(f"no session id in {engine}-{kind}.jsonl")

    def expected_text(self, engine: str, kind: str = "stream") -> str:
        """The final assistant text of a recording, read independently of the normalizers."""
        texts = []
        for line in (self.fixtures / f"{engine}-{kind}.jsonl").read_text().splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if not isinstance(event, dict):
                continue
            if engine == "claude" and event.get("type") == "assistant" and not event.get("parent_tool_use_id"):
                texts += [c["text"] for c in event["message"]["content"] if c.get("type") == "text"]
            elif engine == "codex" and event.get("type") == "item.completed" \
                    and event["item"].get("type") == "agent_message":
                texts.append(event["item"]["text"])
            elif engine == "opencode" and event.get("type") == "text":
                texts.append(event["part"]["text"])
            elif engine == "pi" and event.get("type") == "message_end" \
                    and event["message"].get("role") == "assistant":
                texts += [c["text"] for c in event["message"]["content"] if c.get("type") == "text"]
        assert texts, f"no assistant text in {engine}-{kind}.jsonl"
        return texts[-1]
