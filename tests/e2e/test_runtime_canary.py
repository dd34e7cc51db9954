"""A canary key put in the vault reaches the projected child environment and
nothing else: no argv, no stdin, no CLI output, no file (except its own 0600
secret file) under either home, the workspace or the per-run directories."""

import os
from pathlib import Path

CANARY = "sk-canary-must-not-leak-7f3a9c"
AGENTS = ("claude", "codex", "opencode", "pi")


def _scan(root: Path, allowed: set[Path]) -> list[str]:
    hits = []
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            path = Path(dirpath) / name
            if path in allowed or path.is_symlink():
                continue
            try:
                data = path.read_bytes()
            except OSError:
                continue
            if CANARY.encode() in data:
                hits.append(str(path))
    return hits


def test_canary_only_in_the_child_environment(cli, workspace, isolated_homes, tmp_path, monkeypatch):
    outputs = []

    def run(*args, **kw):
        r = cli("alice", *args, cwd=workspace, env={"ALICE_NOW": "2026-11-30T09:00:00Z"}, **kw)
        outputs.extend([r.stdout, r.stderr])
        return r

    assert run("credential", "add", "canary", "--vendor", "openrouter", "--label", "Canary",
               input=CANARY + "\n").returncode == 0
    assert run("credential", "add", "canary", "--vendor", "openrouter", "--json", input=CANARY).returncode == 2
    resume_ids = {}
    for agent in AGENTS:
        r = run("session", "new", "--agent", agent, "--credential", "canary", "--json")
        assert r.returncode == 0, r
        resume_ids[agent] = r.json()["session"]["resumeId"]
    assert run("settings", "set", "--agent", "pi", "--credential", "canary", "--default").returncode == 0
    for args in (("credential", "list"), ("credential", "list", "--json"), ("session", "list", "--json"),
                 ("session", "show", resume_ids["pi"], "--json"), ("settings", "show", "--json"),
                 ("models", "list", "--json"), ("doctor", "--json"), ("doctor",)):
        run(*args)

    from openalice import agents, sessions, workspaces

    ws = workspaces.get(str(workspace))
    base_env = {"PATH": os.environ.get("PATH", "/usr/bin"), "HOME": str(isolated_homes["HOME"])}
    run_root = tmp_path / "runs"
    projections = 0
    for agent in AGENTS:
        binding = sessions.load_session(ws, resume_ids[agent])
        for mode in ("headless", "interactive"):
            for native in (None, "0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee"):
                run_dir = run_root / f"{agent}-{mode}-{bool(native)}"
                run_dir.mkdir(parents=True, mode=0o700)
                p = agents.get_adapter(agent).project(
                    binding, mode=mode, prompt="report the weather", native_session_id=native,
                    workspace=ws.root, run_env={"ALICE_RUN_ID": "run-AAAAAAAA", "ALICE_RESUME_ID": binding.resume_id,
                                                "ALICE_WORKSPACE_ID": ws.id},
                    base_env=base_env, run_dir=run_dir)
                projections += 1
                secret_vars = [k for k, v in p.env.items() if v == CANARY]
                assert len(secret_vars) == 1, (agent, mode, secret_vars)
                assert not any(CANARY in v for k, v in p.env.items() if k not in secret_vars)
                assert not any(CANARY in a for a in p.argv), (agent, mode, p.argv)
                assert CANARY.encode() not in (p.stdin or b"")
                for written in p.files:
                    assert CANARY not in Path(written).read_text()
    assert projections == 16

    secret_file = isolated_homes["OPENALICE_HOME"] / "vault" / "secrets" / "canary.env"
    assert CANARY in secret_file.read_text()  # the one place it is stored
    assert oct(secret_file.stat().st_mode & 0o777) == "0o600"
    allowed = {secret_file}
    for root in (isolated_homes["OPENALICE_HOME"], isolated_homes["HARNESS_HOME"], isolated_homes["HOME"],
                 workspace, run_root):
        assert _scan(root, allowed) == [], root
    leaked = [o for o in outputs if CANARY in o]
    assert leaked == []
    assert len(outputs) >= 2 * 14
