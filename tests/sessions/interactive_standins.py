"""Stand-in interactive CLIs named ``claude``, ``codex``, ``opencode`` and ``pi``.

Each records one JSON line per call in ``calls.jsonl`` beside it: argv, its own
``/proc/self/cmdline`` (what ``ps`` shows), cwd, the ``ALICE_*`` variables, the
head of ``PATH`` and sha256 fingerprints of the secret variables (never the
values); then it leaves what the real CLI leaves for a new session, so the
toolkit can find the engine's id the way it does for the real one:

- codex: a rollout file ``$CODEX_HOME/sessions/2026/12/01/rollout-…-<id>.jsonl``
  whose first line is ``session_meta`` with ``payload.id`` and ``payload.cwd``;
- pi: ``<session dir>/<time>_<id>.jsonl`` whose first line is ``{"type": "session"}``;
- opencode: answers ``opencode session list --format json`` with the sessions it made;
- claude: nothing (its id is given up front with ``--session-id``).

``STANDIN_EXIT`` sets the exit status.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ENGINES = ("claude", "codex", "opencode", "pi")

SCRIPT = r'''#!{python}
import hashlib, json, os, sys, time, uuid
HERE = {here!r}
ENGINE = os.path.basename(sys.argv[0])
SECRET_VARS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENALICE_SESSION_KEY", "OPENAI_API_KEY",
               "CLAUDE_CODE_OAUTH_TOKEN")
args = sys.argv[1:]
home = os.environ.get("HOME", HERE)
if ENGINE == "opencode" and args[:2] == ["session", "list"]:
    try:
        made = json.load(open(os.path.join(HERE, "opencode-sessions.json")))
    except OSError:
        made = []
    print(json.dumps(made))
    sys.exit(0)
with open("/proc/self/cmdline", "rb") as handle:
    cmdline = handle.read().decode("utf-8", "replace").split("\0")
call = {{"engine": ENGINE, "argv": args, "cmdline": cmdline, "cwd": os.getcwd(),
        "alice": {{k: v for k, v in os.environ.items() if k.startswith("ALICE_")}},
        "pathHead": os.environ.get("PATH", "").split(os.pathsep)[:2],
        "secrets": {{k: hashlib.sha256(os.environ[k].encode()).hexdigest()
                    for k in SECRET_VARS if k in os.environ}},
        "stdinIsTty": os.isatty(0)}}
new_id = str(uuid.uuid4())
resumed = None
if ENGINE == "codex":
    if args and args[0] == "resume":
        resumed = args[-1]
    else:
        day = os.path.join(os.environ.get("CODEX_HOME", os.path.join(home, ".codex")), "sessions", "2026", "12", "01")
        os.makedirs(day, exist_ok=True)
        with open(os.path.join(day, f"rollout-2026-12-01T10-00-00-{{new_id}}.jsonl"), "w") as out:
            out.write(json.dumps({{"type": "session_meta", "payload": {{"id": new_id, "cwd": os.getcwd()}}}}) + "\n")
elif ENGINE == "pi":
    if "--session" in args:
        resumed = args[args.index("--session") + 1]
    else:
        if "--session-dir" in args:
            directory = args[args.index("--session-dir") + 1]
        else:
            root = os.environ.get("PI_CODING_AGENT_DIR") or os.path.join(home, ".pi", "agent")
            bucket = "--" + os.path.realpath(os.getcwd()).lstrip("/").replace("/", "-") + "--"
            directory = os.path.join(root, "sessions", bucket)
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, f"2026-12-01T10-00-00_{{new_id}}.jsonl"), "w") as out:
            out.write(json.dumps({{"type": "session", "id": new_id, "cwd": os.getcwd()}}) + "\n")
elif ENGINE == "opencode":
    if "-s" in args:
        resumed = args[args.index("-s") + 1]
    else:
        path = os.path.join(HERE, "opencode-sessions.json")
        try:
            made = json.load(open(path))
        except OSError:
            made = []
        made.append({{"id": "ses_" + new_id.replace("-", "")[:20], "directory": os.getcwd(),
                     "created": int(time.time() * 1000), "updated": int(time.time() * 1000)}})
        json.dump(made, open(path, "w"))
elif ENGINE == "claude":
    if "--resume" in args:
        resumed = args[args.index("--resume") + 1]
call["resumed"] = resumed
with open(os.path.join(HERE, "calls.jsonl"), "a") as log:
    log.write(json.dumps(call) + "\n")
sys.exit(int(os.environ.get("STANDIN_EXIT", "0")))
'''


class InteractiveStandIns:
    def __init__(self, directory: Path) -> None:
        self.bin = directory
        directory.mkdir(parents=True, exist_ok=True)
        for engine in ENGINES:
            path = directory / engine
            path.write_text(SCRIPT.format(python=sys.executable, here=str(directory)))
            path.chmod(0o755)

    def calls(self) -> list[dict]:
        try:
            lines = (self.bin / "calls.jsonl").read_text().splitlines()
        except FileNotFoundError:
            return []
        return [json.loads(line) for line in lines]

    def path_env(self) -> str:
        return f"{self.bin}{os.pathsep}{os.environ.get('PATH', os.defpath)}"
