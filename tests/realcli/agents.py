"""How the real-CLI tests drive each agent CLI headless against the fake server.

This is the argv of the recorded table in
``tests/data/agent-streams/README.md``, written out once so the tests
(and, later, the scheduler's end-to-end test) share it.  It is deliberately NOT
``openalice.agents``: these tests pin down what the real CLIs accept, and the
adapters are checked against that separately.

A ``Driver`` knows, for one CLI: which wire API it speaks to the fake server,
how to write its config into an isolated home, the argv/env/stdin of a turn
(new or resumed), and how to read its JSON Lines stream (native session id,
assistant texts, error, tool events).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Driver", "Turn", "DRIVERS", "isolated_env", "run_turn", "FAKE_ANTHROPIC_KEY",
           "FAKE_OPENAI_KEY"]

FAKE_ANTHROPIC_KEY = "sk-ant-fake-realcli-0001"
FAKE_OPENAI_KEY = "sk-fake-realcli-openai-0001"
PROVIDER = "fake"
KEY_VAR = "FAKE_OPENAI_KEY"

# Environment knobs that stop each CLI's own outside traffic (update checks,
# telemetry, model lists, plugin sync): see the fixtures README.
QUIET_ENV = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_AUTOUPDATER": "1",
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "PI_OFFLINE": "1",
    "NO_COLOR": "1",
    "CI": "1",
}


@dataclass
class Turn:
    """One finished CLI process and its parsed stdout."""

    argv: list[str]
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    events: list[dict] = field(default_factory=list)
    noise: list[str] = field(default_factory=list)

    def of_type(self, kind: str) -> list[dict]:
        return [e for e in self.events if e.get("type") == kind]

    def __repr__(self) -> str:
        return (f"Turn(rc={self.returncode}, {self.seconds:.1f}s, argv={self.argv})\n"
                f"--- stdout\n{self.stdout[-6000:]}\n--- stderr\n{self.stderr[-3000:]}")


def isolated_env(root: Path, *, base: dict | None = None) -> dict[str, str]:
    """A child environment whose every home/config/cache dir is under ``root``.

    Only PATH, LANG and TERM come from the outside; nothing else leaks in (no
    real API keys, no real HOME)."""
    base = os.environ if base is None else base
    home = root / "home"
    dirs = {
        "HOME": home,
        "CODEX_HOME": home / ".codex",
        "PI_CODING_AGENT_DIR": home / ".pi" / "agent",
        "XDG_CONFIG_HOME": home / ".config",
        "XDG_DATA_HOME": home / ".local" / "share",
        "XDG_STATE_HOME": home / ".local" / "state",
        "XDG_CACHE_HOME": home / ".cache",
        "TMPDIR": root / "tmp",
    }
    for path in dirs.values():
        path.mkdir(parents=True, exist_ok=True)
    env = {k: str(v) for k, v in dirs.items()}
    env["PATH"] = base.get("PATH", "/usr/local/bin:/usr/bin:/bin")
    env["LANG"] = base.get("LANG", "C.UTF-8")
    env["TERM"] = "dumb"
    env.update(QUIET_ENV)
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        env["IS_SANDBOX"] = "1"  # claude refuses --dangerously-skip-permissions as root otherwise
    return env


def parse_stream(text: str) -> tuple[list[dict], list[str]]:
    events, noise = [], []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            event = json.loads(line)
        except ValueError:
            noise.append(line)
            continue
        (events if isinstance(event, dict) else noise).append(event if isinstance(event, dict) else line)
    return events, noise


def run_turn(argv: list[str], *, env: dict, cwd: Path, stdin: bytes | None,
             timeout: float, wrap=None) -> Turn:
    """Run one CLI turn to completion (killed after ``timeout`` seconds)."""
    full = wrap(argv) if wrap else list(argv)
    started = time.monotonic()
    proc = subprocess.Popen(full, cwd=cwd, env=env, start_new_session=True,
                            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        out, err = proc.communicate()
        turn = Turn(full, -9, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"),
                    time.monotonic() - started)
        raise AssertionError(f"turn did not finish within {timeout}s\n{turn!r}") from None
    seconds = time.monotonic() - started
    stdout, stderr = out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
    events, noise = parse_stream(stdout)
    return Turn(full, proc.returncode, stdout, stderr, seconds, events, noise)


class Driver:
    """One CLI.  Subclasses fill in the details; instances are stateless."""

    name: str
    bin: str
    api: str            # the fake server's wire API the CLI is configured to use
    model: str          # a model whose effort setting reaches the wire
    efforts: tuple[str, str]   # two distinct efforts: first turn, resumed turn
    error_exit: int     # exit status after the API answered 400

    def configure(self, env: dict, server_url: str) -> None:
        """Point the CLI at the fake server: env vars and config files."""

    def turn(self, exe: str, *, model: str, effort: str, prompt: str, workdir: Path,
             server_url: str, resume: str | None = None) -> tuple[list[str], bytes | None]:
        raise NotImplementedError

    def session_id(self, turn: Turn) -> str | None:
        raise NotImplementedError

    def texts(self, turn: Turn) -> list[str]:
        """The assistant texts of the turn, in order."""
        raise NotImplementedError

    def error(self, turn: Turn) -> str | None:
        """The API error the CLI reported in its stream, if any."""
        raise NotImplementedError

    def tool_runs(self, turn: Turn) -> list[dict]:
        """Finished shell tool runs as ``{"command": str|None, "output": str}``."""
        raise NotImplementedError


class Claude(Driver):
    name, bin, api = "claude", "claude", "anthropic-messages"
    # Effort reaches the wire (output_config.effort) only for models that take it;
    # for claude-sonnet-4-5 the CLI sends a fixed thinking budget whatever --effort says.
    model, efforts, error_exit = "claude-sonnet-4-6", ("high", "low"), 1

    def configure(self, env, server_url):
        env["ANTHROPIC_BASE_URL"] = server_url  # no /v1: the SDK adds it
        env["ANTHROPIC_API_KEY"] = FAKE_ANTHROPIC_KEY

    def turn(self, exe, *, model, effort, prompt, workdir, server_url, resume=None):
        argv = [exe, "-p", "--output-format", "stream-json", "--verbose", "--model", model,
                "--effort", effort, "--dangerously-skip-permissions"]
        if resume:
            argv += ["--resume", resume]
        return argv + [prompt], None

    def session_id(self, turn):
        return next((e["session_id"] for e in turn.events if e.get("session_id")), None)

    def texts(self, turn):
        return [block.get("text") for e in turn.of_type("assistant")
                for block in e.get("message", {}).get("content", [])
                if isinstance(block, dict) and block.get("type") == "text"]

    def error(self, turn):
        result = next(iter(turn.of_type("result")), None)
        return result.get("result") or "error" if result and result.get("is_error") else None

    def tool_runs(self, turn):
        calls = {b["id"]: b.get("input", {}) for e in turn.of_type("assistant")
                 for b in e.get("message", {}).get("content", []) if b.get("type") == "tool_use"}
        runs = []
        for e in turn.of_type("user"):
            for block in e.get("message", {}).get("content", []):
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    content = block.get("content")
                    if isinstance(content, list):
                        content = "\n".join(c.get("text", "") for c in content if isinstance(c, dict))
                    runs.append({"command": calls.get(block.get("tool_use_id"), {}).get("command"),
                                 "output": content or ""})
        return runs


class Codex(Driver):
    name, bin, api = "codex", "codex", "openai-responses"
    model, efforts, error_exit = "fake-model", ("high", "low"), 1

    def configure(self, env, server_url):
        env[KEY_VAR] = FAKE_OPENAI_KEY

    def turn(self, exe, *, model, effort, prompt, workdir, server_url, resume=None):
        provider = (f'model_providers.{PROVIDER}={{name="{PROVIDER}", base_url="{server_url}/v1", '
                    f'env_key="{KEY_VAR}"}}')
        argv = [exe, "exec", "--json", "--skip-git-repo-check", "--disable", "plugins",
                "-c", "analytics.enabled=false", "-C", str(workdir), "-m", model,
                "-c", f"model_reasoning_effort={effort}", "-c", f"model_provider={PROVIDER}",
                "-c", provider, "--dangerously-bypass-approvals-and-sandbox"]
        if resume:
            argv += ["resume", resume]
        return argv + [prompt], None  # stdin must be /dev/null: codex reads a non-tty stdin

    def session_id(self, turn):
        return next((e.get("thread_id") for e in turn.of_type("thread.started")), None)

    def texts(self, turn):
        return [e["item"].get("text") for e in turn.of_type("item.completed")
                if e.get("item", {}).get("type") == "agent_message"]

    def error(self, turn):
        failed = next(iter(turn.of_type("turn.failed")), None)
        return (failed.get("error") or {}).get("message") or "turn.failed" if failed else None

    def tool_runs(self, turn):
        return [{"command": e["item"].get("command"), "output": e["item"].get("aggregated_output", "")}
                for e in turn.of_type("item.completed")
                if e.get("item", {}).get("type") == "command_execution"]


class OpenCode(Driver):
    name, bin, api = "opencode", "opencode", "openai-chat"
    model, efforts, error_exit = "fake-model", ("high", "low"), 1

    def configure(self, env, server_url):
        env[KEY_VAR] = FAKE_OPENAI_KEY
        env["OPENCODE_CONFIG_CONTENT"] = json.dumps({
            "$schema": "https://opencode.ai/config.json",
            "autoupdate": False,
            "share": "disabled",
            "provider": {PROVIDER: {
                "npm": "@ai-sdk/openai-compatible",
                "options": {"baseURL": f"{server_url}/v1", "apiKey": "{env:%s}" % KEY_VAR},
                "models": {self.model: {"reasoning": True}},
            }},
        })

    def turn(self, exe, *, model, effort, prompt, workdir, server_url, resume=None):
        # The prompt goes on stdin: opencode quotes an argv message with spaces.
        # --title avoids an extra model request that would name the session.
        argv = [exe, "run", "--format", "json", "--dir", str(workdir), "-m", f"{PROVIDER}/{model}",
                "--variant", effort, "--title", "realcli"]
        if resume:
            argv += ["-s", resume]
        return argv, prompt.encode() + b"\n"

    def session_id(self, turn):
        return next((e["sessionID"] for e in turn.events if e.get("sessionID")), None)

    def texts(self, turn):
        return [e["part"].get("text") for e in turn.of_type("text") if isinstance(e.get("part"), dict)]

    def error(self, turn):
        event = next(iter(turn.of_type("error")), None)
        if event is None:
            return None
        error = event.get("error") or {}
        return (error.get("data") or {}).get("message") or error.get("name") or "error"

    def tool_runs(self, turn):
        runs = []
        for e in turn.of_type("tool_use"):
            state = (e.get("part") or {}).get("state") or {}
            if state.get("status") == "completed":
                runs.append({"command": (state.get("input") or {}).get("command"),
                             "output": state.get("output", "")})
        return runs


class Pi(Driver):
    name, bin, api = "pi", "pi", "openai-responses"
    # pi reports an API error in its stream and still exits 0.
    model, efforts, error_exit = "fake-model", ("high", "low"), 0

    def configure(self, env, server_url):
        env[KEY_VAR] = FAKE_OPENAI_KEY
        agent_dir = Path(env["PI_CODING_AGENT_DIR"])
        agent_dir.mkdir(parents=True, exist_ok=True)
        (agent_dir / "models.json").write_text(json.dumps({"providers": {PROVIDER: {
            "baseUrl": f"{server_url}/v1", "api": "openai-responses", "apiKey": KEY_VAR,
            "models": [{"id": self.model, "reasoning": True}]}}}))
        # pi retries a failed request three times (~14 s) unless told not to.
        (agent_dir / "settings.json").write_text(json.dumps({"retry": {"enabled": False}}))

    def turn(self, exe, *, model, effort, prompt, workdir, server_url, resume=None):
        argv = [exe, "-p", "--mode", "json", "--provider", PROVIDER, "--model", model,
                "--thinking", effort]
        if resume:
            argv += ["--session", resume]
        return argv + [prompt], None

    def session_id(self, turn):
        return next((e.get("id") for e in turn.of_type("session")), None)

    def _assistant_messages(self, turn):
        return [e["message"] for e in turn.of_type("message_end")
                if (e.get("message") or {}).get("role") == "assistant"]

    def texts(self, turn):
        return [c.get("text") for m in self._assistant_messages(turn)
                for c in m.get("content") or [] if c.get("type") == "text"]

    def error(self, turn):
        for message in self._assistant_messages(turn):
            if message.get("stopReason") == "error":
                return message.get("errorMessage") or "error"
        return None

    def tool_runs(self, turn):
        args = {e.get("toolCallId"): e.get("args") or {} for e in turn.of_type("tool_execution_start")}
        runs = []
        for e in turn.of_type("tool_execution_end"):
            result = e.get("result") or {}
            output = "\n".join(c.get("text", "") for c in result.get("content") or []
                               if isinstance(c, dict))
            runs.append({"command": args.get(e.get("toolCallId"), {}).get("command"), "output": output})
        return runs


DRIVERS: dict[str, Driver] = {d.name: d for d in (Claude(), Codex(), OpenCode(), Pi())}
