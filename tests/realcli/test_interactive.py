"""``alice session open`` drives each real CLI's interactive mode on a pseudo-terminal.

For claude, codex, opencode and pi: ``alice session open --new`` starts the real
interactive CLI (its TUI, on a pty from the stdlib, against the loopback fake
model server), a typed prompt reaches the server, the reply is drawn on the
terminal, the CLI exits cleanly on its own quit command, and a second ``open``
resumes the same native session: the server sees the earlier turn in the
conversation.  Each CLI is its own test, so one CLI whose TUI cannot run here
fails alone and says what the terminal showed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import tool_path

from .agents import FAKE_ANTHROPIC_KEY, FAKE_OPENAI_KEY, isolated_env
from .clis import cli_path
from .terminal import Terminal

pytestmark = pytest.mark.realcli

START = float(os.environ.get("REALCLI_TUI_START", "240"))     # opencode's TUI needs ~70 s on a loaded machine
REPLY = float(os.environ.get("REALCLI_TURN_TIMEOUT", "90")) + 30

# engine: (credential flags, key, model, what the TUI shows when it takes input, how to quit)
CASES = {
    "claude": (lambda url: ["--vendor", "anthropic", "--base-url", url], FAKE_ANTHROPIC_KEY,
               "claude-sonnet-4-6", "bypass permissions on", [("type", "/exit")]),
    "codex": (lambda url: ["--vendor", "custom", "--wire", f"openai-responses={url}/v1"], FAKE_OPENAI_KEY,
              "fake-model", "Ask Codex", [("type", "/quit")]),
    "opencode": (lambda url: ["--vendor", "custom", "--wire", f"openai-chat={url}/v1"], FAKE_OPENAI_KEY,
                 "fake-model", "ctrl+p commands", [("key", b"\x03")]),
    "pi": (lambda url: ["--vendor", "custom", "--wire", f"openai-responses={url}/v1"], FAKE_OPENAI_KEY,
           "fake-model", "(auto)", [("key", b"\x03"), ("key", b"\x04")]),
}


def seed_claude(home: Path, workspace: Path, key: str) -> None:
    """What a person answers once in Claude Code's first-run dialogs (theme, folder trust, the
    bypass-permissions warning, the API key in the environment), as its own config file records it."""
    (home / ".claude.json").write_text(json.dumps({
        "hasCompletedOnboarding": True, "theme": "dark", "bypassPermissionsModeAccepted": True,
        "customApiKeyResponses": {"approved": [key[-20:]], "rejected": []},
        "projects": {str(workspace): {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}}}))


class Session:
    def __init__(self, engine: str, env: dict, workspace: Path, netns, server) -> None:
        self.engine, self.env, self.workspace, self.netns, self.server = engine, env, workspace, netns, server

    def open(self, *args: str) -> Terminal:
        argv = [tool_path("alice"), "session", "open", *args]
        if self.netns is not None:
            argv = self.netns.wrap(argv)
        return Terminal(argv, env=self.env, cwd=self.workspace)

    def talk(self, term: Terminal, prompt: str, ready: str, quit: list) -> int | None:
        assert term.expect(ready, timeout=START), \
            f"{self.engine}'s TUI never showed {ready!r}; the terminal showed:\n{term.screen[-3000:]}"
        mark = len(term.raw)
        term.type(prompt)
        # The reply to *this* prompt: a TUI that redraws the whole conversation shows older ones
        # too, and a CLI may send the prompt twice (opencode names the session with a request).
        assert self.replied(term, prompt, mark), \
            f"{self.engine} drew no reply to {prompt!r} (requests with it: {self.numbers(prompt)}); " \
            f"the terminal showed:\n{term.screen[-3000:]}"
        term.settle(2)
        for kind, what in quit:
            if kind == "type":
                term.type(what)
            else:
                term.send(what)
            term.settle(1.5)
        return term.wait(timeout=60)

    def numbers(self, prompt: str) -> list[int]:
        """The turn numbers the fake server gave the model requests that carry ``prompt``."""
        return [r["n"] for r in self.server.model_requests if prompt in json.dumps(r.get("body"))]

    def replied(self, term: Terminal, prompt: str, since: int) -> bool:
        import time

        deadline = time.monotonic() + REPLY
        while time.monotonic() < deadline:
            # A part of "FAKE-REPLY[n] model=…", not all of it: a TUI redraws only the cells that
            # change, so a letter already on screen there is never sent again (Claude Code:
            # "● AKE-REPLY[3] …", its spinner's "F" reused); the turn number alone proves it.
            if any(term.shows(f"REPLY[{n}]", since) or term.shows(f"[{n}] model=", since)
                   for n in self.numbers(prompt)):
                return True
            term.settle(0.5)
        return False


@pytest.mark.parametrize("engine", list(CASES))
def test_open_talks_to_the_real_cli_and_the_next_open_resumes_it(engine, fake_server, loopback_netns, tmp_path,
                                                                  isolated_homes):
    flags, key, model, ready, quit = CASES[engine]
    exe = cli_path(engine)
    env = isolated_env(tmp_path / "agent")
    env.update({k: str(v) for k, v in isolated_homes.items() if k != "HOME"})
    env["PATH"] = os.pathsep.join([str(Path(exe).parent), env["PATH"]])
    workspace = tmp_path / "ws"
    session = Session(engine, env, workspace, loopback_netns, fake_server)

    import subprocess

    def alice(*args, input=None):
        done = subprocess.run([tool_path("alice"), *args], env=env, capture_output=True, text=True, input=input,
                              cwd=workspace if workspace.exists() else tmp_path, timeout=60)
        assert done.returncode == 0, done
        return done.stdout

    alice("workspace", "init", str(workspace), "--label", "Real")
    alice("credential", "add", "fake", "-", *flags(fake_server.url), input=key)
    if engine == "claude":
        seed_claude(Path(env["HOME"]), workspace, key)

    term = session.open("--new", "--agent", engine, "--credential", "fake", "--model", model)
    try:
        status = session.talk(term, "first question about otters", ready, quit)
    finally:
        term.close()
    assert status == 0, f"{engine} did not exit cleanly ({status}):\n{term.screen[-2000:]}"

    [listed] = json.loads(alice("session", "list", "--json"))["sessions"]
    native = listed.get("nativeSessionId")
    assert native, f"{engine}'s session id was not recorded: {listed}"
    assert listed["lastLaunch"]["exitStatus"] == 0

    before = len(fake_server.requests)
    term = session.open(listed["resumeId"])
    try:
        status = session.talk(term, "second question", ready, quit)
    finally:
        term.close()
    assert status == 0, f"{engine} did not exit cleanly on resume ({status}):\n{term.screen[-2000:]}"
    later = [json.dumps(r.get("body")) for r in fake_server.requests[before:]]
    assert any("second question" in body and "first question about otters" in body for body in later), \
        f"the resumed {engine} did not send the earlier turn: {[b[-400:] for b in later]}"
    assert json.loads(alice("session", "list", "--json"))["sessions"][0]["nativeSessionId"] == native
