"""Is an agent CLI logged in on its own (native auth)?  Bounded, never reading a token.

    login.evidence("codex", os.environ)          # cheap: variables set, marker files present
    login.check("claude", os.environ, timeout=5)  # the CLI's own status command, bounded

Both answer a :class:`Login` whose ``state`` is ``logged_in``, ``logged_out`` or
``unknown``.  What counts, per CLI (pinned versions, docs/runtime.md "Native
logins"):

| CLI | variables (names only) | marker file (existence only) | status command |
| --- | --- | --- | --- |
| claude | ``ANTHROPIC_API_KEY``, ``ANTHROPIC_AUTH_TOKEN`` | ``~/.claude/.credentials.json`` (``$CLAUDE_CONFIG_DIR``) | ``claude auth status --json`` (``loggedIn``) |
| codex | ``CODEX_API_KEY`` | ``$CODEX_HOME/auth.json`` (``~/.codex``) | ``codex login status`` (exit 0 / 1) |
| opencode | a provider's key variable | ``$XDG_DATA_HOME/opencode/auth.json`` | ``opencode auth list`` (its credential and variable counts) |
| pi | a provider's key variable | ``$PI_CODING_AGENT_DIR/auth.json`` (``~/.pi/agent``) | ``pi --list-models`` ("No models available") |

A catalog wrapper sources its own env file: ``unknown`` (its ``--health``
probe says more).  Nothing here reads a file's content or a variable's value,
and a status command's output is reduced to a verdict (codex prints a masked
key; it is never kept).  The scan never waits on this: a run is never refused
for a login, it fails with ``not_logged_in`` and says so; health and doctor
use it to warn before that.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path

from openalice.core import executables, patterns
from openalice.core.records import record_class

__all__ = ["STATES", "Login", "LOGIN_COMMANDS", "evidence", "check", "needs_login", "run_bounded"]

STATES = ("logged_in", "logged_out", "unknown")
LOGIN_COMMANDS = {"claude": "claude auth login", "codex": "codex login", "opencode": "opencode auth login",
                  "pi": "pi, then /login"}
# Variables a provider reads its key from (pi's --help and opencode's provider list; names only).
_PROVIDER_VARS = ("ANTHROPIC_API_KEY", "ANTHROPIC_OAUTH_TOKEN", "OPENAI_API_KEY", "AZURE_OPENAI_API_KEY",
                  "DEEPSEEK_API_KEY", "GEMINI_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY", "GROQ_API_KEY",
                  "CEREBRAS_API_KEY", "XAI_API_KEY", "FIREWORKS_API_KEY", "OPENROUTER_API_KEY",
                  "AI_GATEWAY_API_KEY", "ZAI_API_KEY", "MISTRAL_API_KEY", "MINIMAX_API_KEY",
                  "MOONSHOT_API_KEY", "OPENCODE_API_KEY", "KIMI_API_KEY")
_VARS = {"claude": ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"), "codex": ("CODEX_API_KEY",),
         "opencode": _PROVIDER_VARS, "pi": _PROVIDER_VARS}
_COMMANDS = {"claude": ("auth", "status", "--json"), "codex": ("login", "status"),
             "opencode": ("auth", "list"), "pi": ("--list-models",)}
_ANSI = patterns.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@record_class(frozen=True)
class Login:
    """``state`` of ``agent``'s native login, ``how`` it was found (for
    people; never a secret), and ``hint``: what to type when it is missing."""

    agent: str
    state: str
    how: str
    hint: str | None = None

    def to_dict(self) -> dict:
        out = {"agent": self.agent, "state": self.state, "how": self.how}
        if self.hint:
            out["hint"] = self.hint
        return out


def _hint(agent: str) -> str:
    login = LOGIN_COMMANDS.get(agent)
    step = "run `pi` and type `/login`" if agent == "pi" else f"run `{login or agent + ' login'}`"
    vendor = {"claude": "anthropic", "codex": "openai"}.get(agent, "VENDOR")
    return (f"{step}, or add a credential: `alice credential add NAME --vendor {vendor}` and "
            "`alice issue update ISSUE --credential NAME`")


def _home(env: Mapping[str, str]) -> Path:
    return Path(env.get("HOME") or os.path.expanduser("~"))


def _markers(agent: str, env: Mapping[str, str]) -> list[Path]:
    home = _home(env)
    if agent == "claude":
        base = Path(env["CLAUDE_CONFIG_DIR"]) if env.get("CLAUDE_CONFIG_DIR") else home / ".claude"
        return [base / ".credentials.json"]
    if agent == "codex":
        return [Path(env.get("CODEX_HOME") or home / ".codex") / "auth.json"]
    if agent == "opencode":
        return [Path(env.get("XDG_DATA_HOME") or home / ".local" / "share") / "opencode" / "auth.json"]
    if agent == "pi":
        return [Path(env.get("PI_CODING_AGENT_DIR") or home / ".pi" / "agent") / "auth.json"]
    return []


def _shown(path: Path, env: Mapping[str, str]) -> str:
    home = str(_home(env))
    text = str(path)
    return "~" + text[len(home):] if text.startswith(home + os.sep) else text


def needs_login(agent: str, model: str | None = None) -> bool:
    """False where a model needs no login at all (opencode's own free ``opencode/…`` models)."""
    return not (agent == "opencode" and (model is None or str(model).startswith("opencode/")))


def evidence(agent: str, env: Mapping[str, str]) -> Login:
    """The cheap answer (no process is started): a key variable is set or a
    marker file exists → ``logged_in``; neither → ``logged_out`` where the CLI
    keeps its login in that file (claude on macOS uses the keychain:
    ``unknown``); a catalog engine → ``unknown``."""
    if agent not in _VARS:
        return Login(agent, "unknown", "a catalog engine uses its own env file (see `harness-adapter list --probe`)")
    for name in _VARS[agent]:
        if env.get(name):
            return Login(agent, "logged_in", f"{name} is set")
    for path in _markers(agent, env):
        if path.exists():
            return Login(agent, "logged_in", f"{_shown(path, env)} exists")
    where = " or ".join(_shown(p, env) for p in _markers(agent, env))
    if agent == "claude" and sys.platform == "darwin":
        return Login(agent, "unknown", f"no {where}; the login may be in the macOS keychain", _hint(agent))
    return Login(agent, "logged_out", f"no {where} and no key variable", _hint(agent))


def _verdict(agent: str, code: int, out: str) -> tuple[str, str] | None:
    """``(state, how)`` from a status command's exit code and output; the
    output is reduced to a verdict here and never kept."""
    command = f"`{agent} {' '.join(_COMMANDS[agent])}`"
    if agent == "claude":
        import json  # lazy: only a status check parses JSON

        try:
            data = json.loads(out)
        except ValueError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("loggedIn"), bool):
            method = data.get("authMethod") if isinstance(data.get("authMethod"), str) else None
            if data["loggedIn"]:
                return "logged_in", f"{command}: logged in" + (f" ({method[:40]})" if method else "")
            return "logged_out", f"{command}: loggedIn false"
        return None
    if agent == "codex":
        if code == 0 and "logged in" in out.lower():
            return "logged_in", f"{command}: logged in"
        if "not logged in" in out.lower():
            return "logged_out", f"{command}: Not logged in"
        return None
    if agent == "opencode":
        text = _ANSI.sub("", out)
        creds = re.search(r"(\d+)\s+credentials?\b", text)
        variables = re.search(r"(\d+)\s+environment variables?\b", text)
        if creds is None:
            return None
        count = int(creds.group(1)) + (int(variables.group(1)) if variables else 0)
        if count:
            return "logged_in", f"{command}: {creds.group(0)}" + (f", {variables.group(0)}" if variables else "")
        return "logged_out", f"{command}: 0 credentials"
    if agent == "pi":
        if "no models available" in out.lower():
            return "logged_out", f"{command}: No models available"
        if code == 0 and out.strip():
            return "logged_in", f"{command}: models available"
        return None
    return None


def run_bounded(argv: list[str], env: Mapping[str, str], timeout: float) -> tuple[int, str, str] | None:
    """``(exit code, stdout, stderr)`` of a CLI, or None when it did not end
    within ``timeout`` seconds: then its whole process group is killed (a Node
    CLI's helpers would otherwise keep the pipes open)."""
    import signal  # lazy: only a bounded run stops a group
    import subprocess  # lazy: only a status check or a listing starts a process

    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=dict(env), start_new_session=True, text=True, errors="replace")
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            proc.communicate(timeout=2)
        except subprocess.TimeoutExpired:
            pass  # a process that left the group holds the pipes; they close when it ends
        return None
    return proc.returncode, out or "", err or ""


def check(agent: str, env: Mapping[str, str], *, timeout: float = 5.0, executable: str | None = None) -> Login:
    """The thorough answer: :func:`evidence`, and when that finds nothing, the
    CLI's own status command (``executable``, default the agent's name on
    ``env``'s PATH), stopped after ``timeout`` seconds."""
    found = evidence(agent, env)
    if found.state == "logged_in" or agent not in _COMMANDS:
        return found

    exe = executable or executables.which(agent, path=env.get("PATH", os.defpath))
    if exe is None:
        return Login(agent, "unknown", f"'{agent}' is not on PATH", _hint(agent))
    command = f"`{agent} {' '.join(_COMMANDS[agent])}`"
    try:
        answered = run_bounded([exe, *_COMMANDS[agent]], env, timeout)
    except OSError as exc:
        return Login(agent, "unknown", f"cannot run {agent}: {exc.strerror or exc}", _hint(agent))
    if answered is None:
        return Login(agent, "unknown", f"{command} did not answer within {timeout:g} s; {found.how}", _hint(agent))
    code, out, err = answered
    verdict = _verdict(agent, code, out + "\n" + err)
    if verdict is None:
        return Login(agent, "unknown", f"{command} exited {code} with an answer this version does not recognise",
                     _hint(agent))
    state, how = verdict
    return Login(agent, state, how, None if state == "logged_in" else _hint(agent))
