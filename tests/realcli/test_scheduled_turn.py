"""A real scheduled turn, end to end: the real Claude Code and Codex CLIs (and
opencode and pi when installed) run by the scheduler against the loopback fake
model server.

``alice credential add`` (key on stdin, base URL = the fake server) →
``alice issue create --every 1m --agent A --credential C --model M --effort E``
→ ``alice-schedule scan`` (inside the loopback-only network namespace when
there is one, so the detached supervisor and the CLI it starts are too) →
``alice-schedule run TASK --wait``.  The fake server's reply ``FAKE-REPLY[n]
model=M effort=E`` proves the projection reached the wire; the second scan
must resume the session the first run captured (the server sees the previous
turn in the conversation).  Skips loudly only when the npm registry is
unreachable (``clis.py``).

The core loop: an issue whose body is ``FAKE_TOOL: <cmd>`` makes the real CLI run
``cmd`` through its own shell tool; ``cmd`` writes ``reports/real.md`` and runs
``alice inbox push``.  The entry must pin the file's sha256 and carry the
headless origin of that very task, which proves the toolkit's ``alice`` was
first on the PATH of the agent's shell and the run environment reached it.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import tool_path

from .agents import FAKE_ANTHROPIC_KEY, FAKE_OPENAI_KEY, isolated_env
from .clis import cli_path
from .fake_model_server import reply_text

pytestmark = pytest.mark.realcli

CREATED = "2026-03-02T08:00:00Z"
T0 = "2026-03-02T09:00:00Z"
T1 = "2026-03-02T09:01:00Z"
WAIT = int(float(os.environ.get("REALCLI_TURN_TIMEOUT", "90"))) + 30

CASES = {
    # engine: (vendor flags for `alice credential add`, key, model, effort, wire api)
    "claude": (lambda url: ["--vendor", "anthropic", "--base-url", url], FAKE_ANTHROPIC_KEY,
               "claude-sonnet-4-6", "high", "anthropic-messages"),
    "codex": (lambda url: ["--vendor", "custom", "--wire", f"openai-responses={url}/v1"], FAKE_OPENAI_KEY,
              "fake-model", "high", "openai-responses"),
    # optional CLIs: skipped when left out of AGENT_CLIS
    "opencode": (lambda url: ["--vendor", "custom", "--wire", f"openai-chat={url}/v1"], FAKE_OPENAI_KEY,
                 "fake-model", "high", "openai-chat"),
    "pi": (lambda url: ["--vendor", "custom", "--wire", f"openai-responses={url}/v1"], FAKE_OPENAI_KEY,
           "fake-model", "high", "openai-responses"),
}


class Tools:
    """The installed tools with one isolated environment (homes, PATH, quiet knobs)."""

    def __init__(self, env: dict, netns) -> None:
        self.env = env
        self.netns = netns

    def __call__(self, tool: str, *args: str, input: str | None = None, cwd=None, now: str | None = None,
                 in_netns: bool = False, timeout: float = 60) -> subprocess.CompletedProcess:
        argv = [tool_path(tool), *args]
        if in_netns and self.netns is not None:
            argv = self.netns.wrap(argv)
        env = dict(self.env)
        if now:
            env["ALICE_NOW"] = now
        result = subprocess.run(argv, input=input, capture_output=True, text=True, cwd=cwd, env=env,
                                timeout=timeout)
        assert result.returncode == 0, f"{argv}\nrc={result.returncode}\n{result.stdout}\n{result.stderr}"
        return result

    def json(self, *args, **kwargs):
        return json.loads(self(*args, "--json", **kwargs).stdout)


@pytest.fixture
def tools(tmp_path, isolated_homes, loopback_netns) -> Tools:
    env = isolated_env(tmp_path / "agent")
    env.update({k: str(v) for k, v in isolated_homes.items() if k != "HOME"})
    return Tools(env, loopback_netns)


def run_of(tools: Tools, task_id: str) -> dict:
    return tools.json("alice-schedule", "run", task_id, "--wait", "--timeout", str(WAIT), timeout=WAIT + 30)


def stderr_of(run: dict) -> str:
    try:
        return Path(run["logs"]["stderr"]).read_text()[-3000:]
    except (KeyError, OSError):
        return ""


@pytest.mark.parametrize("engine", list(CASES))
def test_a_scheduled_issue_runs_the_real_cli_and_resumes_it(engine, tools, fake_server, tmp_path):
    vendor_flags, key, model, effort, api = CASES[engine]
    exe = cli_path(engine)
    tools.env["PATH"] = os.pathsep.join([str(Path(exe).parent), tools.env["PATH"]])
    workspace = tmp_path / "ws"
    tools("alice", "workspace", "init", str(workspace), "--label", "Real")
    tools("alice", "credential", "add", "fake", "-", *vendor_flags(fake_server.url), input=key)
    tools("alice", "issue", "create", "--title", "Say hi", "--id", "hi", "--every", "1m", "--agent", engine,
          "--credential", "fake", "--model", model, "--effort", effort, "--body", "say hi",
          cwd=workspace, now=CREATED)

    [fired] = tools.json("alice-schedule", "scan", now=T0, in_netns=True)["fired"]
    first = run_of(tools, fired["taskId"])

    task = first["task"]
    assert task["status"] == "done", (first, stderr_of(first))
    assert first["structured"]["assistantText"] == reply_text(1, model, effort), first
    assert task["agent"] == engine and task["model"] == model and task["effort"] == effort
    native = task["agentSessionId"]
    assert native
    [request] = fake_server.model_requests
    assert request["api"] == api and request["model"] == model and request["effort"] == effort
    assert request["last_user_text"].strip() == "say hi"
    assert request["credential_sha256"] == hashlib.sha256(key.encode()).hexdigest()
    issue = (workspace / ".alice" / "issues" / "hi.md").read_text()
    assert f'assignee: "@{task["resumeId"]}"' in issue

    [fired2] = tools.json("alice-schedule", "scan", now=T1, in_netns=True)["fired"]
    second = run_of(tools, fired2["taskId"])

    task2 = second["task"]
    assert task2["status"] == "done", (second, stderr_of(second))
    assert task2["resumeId"] == task["resumeId"] and task2["owner"] == f"@{task['resumeId']}"
    assert second["structured"]["assistantText"] == reply_text(2, model, effort), second
    assert task2["agentSessionId"] == native
    requests = fake_server.model_requests
    assert [r["n"] for r in requests] == [1, 2]
    history = requests[1]["history"]
    assert any(h["role"] == "assistant" and reply_text(1, model, effort) in (h["text"] or "")
               for h in history), history
    # The key reached the wire, never the records.
    home = Path(tools.env["OPENALICE_HOME"])
    leaked = [str(p) for root in (home, workspace) for p in root.rglob("*")
              if p.is_file() and "vault" not in p.relative_to(root).parts and key.encode() in p.read_bytes()]
    assert leaked == []


# The agent's own shell tool writes a workspace file and publishes it with the toolkit's
# `alice`, which must be the workspace's shim (the runner puts <ws>/.alice/bin first on the
# PATH, and each adapter keeps it first through the agent's login shell) and must see the
# run environment (ALICE_RUN_ID / ALICE_WORKSPACE_ID).
REPORT = "reports/real.md"
REPORT_BYTES = b"# Real report\n"
WHICH = "reports/which.txt"
# `alice` as the agent's own shell finds it, then in a login bash, an interactive sh and a
# login interactive zsh (where zsh is installed) started from that shell: each must be the shim.
WHICH_IN_SHELLS = ("command -v alice; bash -lc 'command -v alice'; sh -ic 'command -v alice' 2>/dev/null; "
                   "if command -v zsh >/dev/null; then zsh -lic 'command -v alice'; else command -v alice; fi")
PUBLISH = (f"mkdir -p reports && {{ {WHICH_IN_SHELLS}; }} > {WHICH} && printf '# Real report\\n' > {REPORT} && "
           f"alice inbox push --body 'Real report: [[{REPORT}]]' --json")


def shadowing_shell_profiles(home: Path) -> None:
    """A user's shell start-up files that put another ``alice`` first on PATH:
    the agent's (login) shell must still find the workspace's shim."""
    shadow = home / "shadow-bin"
    shadow.mkdir()
    (shadow / "alice").write_text("#!/bin/sh\necho 'shadowed: not the workspace shim' >&2\nexit 97\n")
    (shadow / "alice").chmod(0o755)
    line = f'export PATH="{shadow}:$PATH"\n'
    for name in (".bashrc", ".bash_profile", ".profile", ".zshrc", ".zprofile"):
        (home / name).write_text(line)


@pytest.mark.parametrize("engine", list(CASES))
def test_a_scheduled_real_agent_writes_a_report_and_publishes_it(engine, tools, fake_server, tmp_path):
    vendor_flags, key, model, effort, _api = CASES[engine]
    exe = cli_path(engine)
    tools.env["PATH"] = os.pathsep.join([str(Path(exe).parent), tools.env["PATH"]])
    shadowing_shell_profiles(Path(tools.env["HOME"]))
    tools.env["SHELL"] = "/bin/bash"  # as on a real machine: the CLIs start (and snapshot) this shell
    workspace = tmp_path / "ws"
    ws = tools.json("alice", "workspace", "init", str(workspace), "--label", "Real")["workspace"]
    tools("alice", "credential", "add", "fake", "-", *vendor_flags(fake_server.url), input=key)
    tools("alice", "issue", "create", "--title", "Report", "--id", "report", "--every", "1m",
          "--agent", engine, "--credential", "fake", "--model", model, "--effort", effort,
          "--body", f"FAKE_TOOL: {PUBLISH}", cwd=workspace, now=CREATED)

    [fired] = tools.json("alice-schedule", "scan", now=T0, in_netns=True)["fired"]
    run = run_of(tools, fired["taskId"])

    task = run["task"]
    assert task["status"] == "done", (run, stderr_of(run))
    # Claude Code may add a side request (a session title) that does not touch the tool.
    requests = fake_server.model_requests
    [call] = [r for r in requests if r.get("tool_call")]
    command = next(v for k, v in call["tool_call"]["arguments"].items() if k in ("command", "cmd"))
    assert (command[-1] if isinstance(command, list) else command) == PUBLISH, call["tool_call"]
    [reply] = [r for r in requests if r.get("tool_output") is not None]
    assert reply["n"] > call["n"] and reply["reply"] == reply_text(reply["n"], model, effort), reply
    assert run["structured"]["assistantText"] == reply["reply"], run
    report = workspace / REPORT
    assert report.read_bytes() == REPORT_BYTES, reply.get("tool_output")
    # `command -v alice` inside the real agent's shell tool and the login/interactive shells it
    # starts: the workspace's shim every time.
    shim = os.path.join(ws["path"], ".alice", "bin", "alice")
    assert (workspace / WHICH).read_text().split() == [shim] * 4, reply.get("tool_output")

    entries = tools.json("alice", "inbox", "list")["entries"]
    assert len(entries) == 1, (entries, reply.get("tool_output"))  # "alice: command not found"?
    [entry] = entries
    assert entry["workspaceId"] == ws["id"], entry
    assert entry["body"] == f"Real report: [[{REPORT}]]"
    assert entry["fileRevisions"] == {REPORT: "sha256:" + hashlib.sha256(report.read_bytes()).hexdigest()}
    assert entry["origin"] == {"kind": "headless", "runId": task["taskId"], "resumeId": task["resumeId"],
                               "issueId": "report", "issueWorkspaceId": ws["id"], "agent": engine}, (
        entry, reply.get("tool_output"))
    assert entry["id"] in reply["tool_output"]  # the push's JSON went back through the agent's shell tool

    def facts(kind):
        return tools.json("alice", "journal", "--type", kind, "--limit", "100")["entries"]

    [received] = facts("inbox.received")
    assert received["payload"]["inboxEntryId"] == entry["id"], received
    assert received["payload"]["taskId"] == task["taskId"] and received["payload"]["originKind"] == "headless"
    stopped = [f for f in facts("runtime.stopped") if f["payload"].get("taskId") == task["taskId"]]
    assert len(stopped) == 1, stopped


def test_a_not_logged_in_real_claude_says_so_in_run_health_and_doctor(tools, fake_server, tmp_path):
    """Issue 22: the real Claude Code with an empty HOME and no credential. The scan still runs
    it (a login check never blocks a run); the run fails in seconds and every view says why:
    ``not_logged_in`` with claude's own words, and what to type next."""
    exe = cli_path("claude")
    tools.env["PATH"] = os.pathsep.join([str(Path(exe).parent), tools.env["PATH"]])
    workspace = tmp_path / "ws"
    tools("alice", "workspace", "init", str(workspace), "--label", "Real")
    tools("alice", "issue", "create", "--title", "Say hi", "--id", "hi", "--every", "1m", "--agent", "claude",
          "--model", "claude-sonnet-4-6", "--body", "say hi", cwd=workspace, now=CREATED)

    [fired] = tools.json("alice-schedule", "scan", now=T0, in_netns=True)["fired"]
    run = run_of(tools, fired["taskId"])
    task = run["task"]
    assert task["status"] == "failed", (run, stderr_of(run))
    assert task["reason"] == "not_logged_in" and "Not logged in" in task["detail"], task
    assert task["failure"]["reason"] == "not_logged_in" and "`claude auth login`" in task["failure"]["next"]
    assert fake_server.model_requests == []   # it never reached a model
    shown = tools("alice-schedule", "run", task["taskId"]).stdout
    assert "why: Not logged in: Not logged in · Please run /login." in shown and "logs: " in shown, shown

    [entry] = tools.json("alice-schedule", "health", now=T1)["issues"]
    assert entry["state"] == "blocked" and entry["blocker"]["reason"] == "not_logged_in", entry
    assert entry["failure"]["reason"] == "not_logged_in"

    env = {**tools.env, "ALICE_NOW": T1}
    argv = [tool_path("alice"), "doctor", "--timeout", "60", "--json"]
    if tools.netns is not None:
        argv = tools.netns.wrap(argv)
    result = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=180)
    doc = json.loads(result.stdout)
    assert result.returncode == 3 and doc["ok"] is False, doc
    [login_finding] = [f for f in doc["findings"] if f["check"] == "login"]
    assert login_finding["status"] == "attention", login_finding
    assert "claude: not logged in (`claude auth status --json`: loggedIn false)" in login_finding["message"]
    runtime = [f["message"] for f in doc["findings"] if f["check"] == "runtime"]
    assert any("not logged in" in m for m in runtime), doc["findings"]
