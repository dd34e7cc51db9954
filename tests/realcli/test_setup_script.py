"""scripts/setup-agent-clis: its exit status and marker files are a contract
with CI and with conftest.py (skip loudly vs fail).  These tests drive it with
a stand-in ``npm`` on PATH, so they are fast and need no network."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from .clis import SETUP

TOOLS = ("bash", "dirname", "mkdir", "rm", "mv", "cat", "grep", "cut", "du", "mktemp", "timeout",
         "chmod", "sleep", "head")
PINS = {
    "@anthropic-ai/claude-code": ("2.1.197", "claude"),
    "@openai/codex": ("0.171.0", "codex"),
    "opencode-ai": ("1.18.33", "opencode"),
    "@mariozechner/pi-coding-agent": ("0.73.1", "pi"),
}

# A stand-in npm: "ping" and "install" behave as $FAKE_NPM says; "install" can
# lay out node_modules like the real one (package.json + a bin printing the version).
FAKE_NPM = r"""#!/bin/bash
echo "npm $*" >>"$FAKE_NPM_CALLS"
# What the real npm and the packages' install scripts leave behind: a cache (and its
# logs) and a CLI's config under HOME / XDG_CONFIG_HOME.
cache="${npm_config_cache:-$HOME/.npm}"
mkdir -p "$cache/_logs" && echo log >"$cache/_logs/debug.log"
echo "HOME=$HOME cache=$npm_config_cache userconfig=${npm_config_userconfig:-}" >>"$FAKE_NPM_CALLS.env"
case "$1" in
  config) echo "https://registry.example/"; exit 0 ;;
  ping)
    case "$FAKE_NPM" in unreachable) echo "npm error code ECONNREFUSED" >&2; exit 1 ;; esac
    echo "npm notice PONG 1ms" >&2; exit 0 ;;
  install)
    case "$FAKE_NPM" in
      etarget) echo "npm error code ETARGET" >&2; echo "npm error notarget No matching version" >&2; exit 1 ;;
      dropped) echo "npm error code ECONNRESET" >&2; echo "npm error network aborted" >&2; exit 1 ;;
    esac
    prefix="$3"
    mkdir -p "${XDG_CONFIG_HOME:-$HOME/.config}/opencode" && echo '{}' >"${XDG_CONFIG_HOME:-$HOME/.config}/opencode/config.json"
    mkdir -p "$cache/_cacache" && head -c 3145728 /dev/zero >"$cache/_cacache/blob"
    while read -r pkg version bin; do
      [ "$FAKE_NPM" = slow ] && sleep 1
      mkdir -p "$prefix/node_modules/$pkg" "$prefix/node_modules/.bin"
      printf '{"name": "%s", "version": "%s"}\n' "$pkg" "$version" >"$prefix/node_modules/$pkg/package.json"
      [ "$FAKE_NPM" = stub ] && [ "$bin" = claude ] && version="stub: platform binary not linked"
      printf '#!/bin/bash\necho "%s"\n' "$version" >"$prefix/node_modules/.bin/$bin"
      chmod +x "$prefix/node_modules/.bin/$bin"
    done <"$FAKE_NPM_PINS"
    exit 0 ;;
esac
exit 2
"""


@pytest.fixture
def setup_env(tmp_path):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for tool in TOOLS:
        found = shutil.which(tool)
        if found is None:
            pytest.skip(f"{tool} not on PATH")
        (bindir / tool).symlink_to(found)
    pins = tmp_path / "pins"
    pins.write_text("".join(f"{pkg} {v} {b}\n" for pkg, (v, b) in PINS.items()))
    return {"PATH": str(bindir), "HOME": str(tmp_path / "home"), "AGENT_CLIS_DIR": str(tmp_path / "clis"),
            "FAKE_NPM_CALLS": str(tmp_path / "calls"), "FAKE_NPM_PINS": str(pins),
            "AGENT_CLIS_PING_TIMEOUT": "10"}


def with_npm(env, mode):
    npm = Path(env["PATH"]) / "npm"
    npm.write_text(FAKE_NPM)
    npm.chmod(0o755)
    return {**env, "FAKE_NPM": mode}


def run(env):
    return subprocess.run([str(SETUP)], env=env, capture_output=True, text=True, timeout=60)


def markers(env):
    root = Path(env["AGENT_CLIS_DIR"])
    return {name: (root / name).read_text().strip() for name in ("UNAVAILABLE", "FAILED", "STAMP")
            if (root / name).exists()}


def calls(env):
    path = Path(env["FAKE_NPM_CALLS"])
    return [line.split()[1] for line in path.read_text().splitlines()] if path.exists() else []


def tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")) if root.exists() else []


def test_missing_npm_exits_0_and_says_why(setup_env):
    proc = run(setup_env)
    assert proc.returncode == 0, proc.stderr
    assert markers(setup_env) == {"UNAVAILABLE": "npm is not on PATH (install Node.js 18+ with npm "
                                                 "to run the real-CLI tests)"}
    assert "skipped" in proc.stderr


def test_unreachable_registry_exits_0_with_the_reason(setup_env):
    env = with_npm(setup_env, "unreachable")
    proc = run(env)
    assert proc.returncode == 0, proc.stderr
    [(name, reason)] = markers(env).items()
    assert name == "UNAVAILABLE"
    assert "https://registry.example/ unreachable" in reason and "ECONNREFUSED" in reason
    assert calls(env) == ["config", "ping"]


def test_install_writes_manifest_and_stamp_then_is_idempotent(setup_env):
    env = with_npm(setup_env, "ok")
    proc = run(env)
    assert proc.returncode == 0, proc.stderr
    stamp = markers(env)["STAMP"]
    assert set(stamp.split()) == {"claude=@anthropic-ai/claude-code@2.1.197", "codex=@openai/codex@0.171.0",
                                  "opencode=opencode-ai@1.18.33", "pi=@mariozechner/pi-coding-agent@0.73.1"}
    manifest = (Path(env["AGENT_CLIS_DIR"]) / "package.json").read_text()
    assert '"@openai/codex": "0.171.0"' in manifest and '"@anthropic-ai/claude-code": true' in manifest
    assert calls(env) == ["config", "ping", "install"]

    again = run(env)
    assert again.returncode == 0 and "up to date" in again.stderr
    assert calls(env) == ["config", "ping", "install"]  # npm not asked again


def test_subset_keeps_the_required_clis(setup_env):
    env = {**with_npm(setup_env, "ok"), "AGENT_CLIS": "pi"}
    assert run(env).returncode == 0
    assert markers(env)["STAMP"] == ("claude=@anthropic-ai/claude-code@2.1.197 codex=@openai/codex@0.171.0 "
                                     "pi=@mariozechner/pi-coding-agent@0.73.1")


def test_a_changed_pin_reinstalls(setup_env):
    env = with_npm(setup_env, "ok")
    assert run(env).returncode == 0
    pkg = Path(env["AGENT_CLIS_DIR"]) / "node_modules/@openai/codex/package.json"
    pkg.write_text('{"name": "@openai/codex", "version": "0.170.0"}')
    assert run(env).returncode == 0
    assert calls(env).count("install") == 2


def test_install_failure_after_reaching_the_registry_exits_1(setup_env):
    env = with_npm(setup_env, "etarget")
    proc = run(env)
    assert proc.returncode == 1
    assert markers(env) == {"FAILED": "npm install failed (exit 1): npm error code ETARGET"}


def test_network_drop_during_install_counts_as_unavailable(setup_env):
    env = with_npm(setup_env, "dropped")
    proc = run(env)
    assert proc.returncode == 0
    [(name, reason)] = markers(env).items()
    assert name == "UNAVAILABLE" and "became unreachable during install" in reason


def test_a_stub_binary_fails_the_check(setup_env):
    env = with_npm(setup_env, "stub")
    proc = run(env)
    assert proc.returncode == 1
    failed = markers(env)["FAILED"]
    assert failed.startswith("installed CLIs do not check out: claude:") and "expected 2.1.197" in failed


def test_success_clears_an_old_marker(setup_env):
    assert run(with_npm(setup_env, "unreachable")).returncode == 0
    env = with_npm(setup_env, "ok")
    assert run(env).returncode == 0
    assert set(markers(env)) == {"STAMP"}


def test_nothing_lands_in_the_users_home(setup_env, tmp_path):
    """npm's cache and logs and what install scripts write (a CLI's config) stay under
    AGENT_CLIS_DIR; the user's ~/.npmrc is still what npm reads."""
    home = Path(setup_env["HOME"])
    home.mkdir()
    (home / ".npmrc").write_text("registry=https://registry.example/\n")
    before = tree(home)
    env = with_npm(setup_env, "ok")
    proc = run(env)
    assert proc.returncode == 0, proc.stderr
    assert tree(home) == before == [".npmrc"]
    dest = Path(env["AGENT_CLIS_DIR"])
    assert (dest / ".home" / ".config" / "opencode" / "config.json").is_file()
    assert not (dest / ".home" / ".npm").exists()  # the cache goes once the install is good
    seen = Path(env["FAKE_NPM_CALLS"] + ".env").read_text().splitlines()
    assert seen and all(line == f"HOME={dest}/.home cache={dest}/.home/.npm userconfig={home}/.npmrc"
                        for line in seen), seen
    kept = {**env, "AGENT_CLIS_KEEP_CACHE": "1"}
    (dest / "STAMP").unlink()
    assert run(kept).returncode == 0 and (dest / ".home" / ".npm" / "_cacache" / "blob").is_file()
    assert tree(home) == before


def test_progress_on_a_terminal_only(setup_env):
    """Without a TTY: the summary lines only.  On one: a line redrawn per package with the
    megabytes so far and a spinner."""
    import os
    import pty

    env = with_npm(setup_env, "slow")
    quiet = run(env)
    assert quiet.returncode == 0, quiet.stderr
    assert "\r" not in quiet.stderr and "MB" not in quiet.stderr.split("installed in")[0]
    shutil.rmtree(Path(env["AGENT_CLIS_DIR"]) / "node_modules")
    pid, fd = pty.fork()
    if pid == 0:  # the child: the script with stderr on the terminal
        os.execve(str(SETUP), [str(SETUP)], env)
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    shown = b"".join(chunks).decode()
    assert os.waitstatus_to_exitcode(status) == 0, shown
    frames = [f for f in shown.split("\r") if f.startswith("setup-agent-clis: ") and "/4" in f]
    assert frames, shown
    assert any(" 0/4 claude ..." in f for f in frames), frames
    assert any("claude ok" in f and " 3 MB, " in f for f in frames), frames
    assert len({f.split()[1] for f in frames}) > 1  # the spinner turns
    assert "installed in" in shown
