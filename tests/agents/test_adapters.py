"""Adapter projection: argv, env and stdin per engine (reference items 3-4, 7-12)."""

import json
import os
import shlex

import pytest

from openalice import agents
from openalice.core.errors import InvalidInput, NotFound, UsageError
from tests.testdata import AGENT_STREAMS

from .conftest import BASE_ENV, RUN_ENV, add, bind, vault

BUILTINS = ("claude", "codex", "opencode", "pi")
FIXTURES = AGENT_STREAMS  # recorded help texts and the argv that worked (tests/data)


def project(agent, binding, ws, **kw):
    kw.setdefault("prompt", "say hi")
    kw.setdefault("run_env", RUN_ENV)
    kw.setdefault("base_env", BASE_ENV)
    return agents.get_adapter(agent).project(binding, workspace=ws.root, **kw)


# -- the reference's items -------------------------------------------------------------------------

def test_item9_claude_vault_interactive_args(ws):
    add("sess", "anthropic")
    p = project("claude", bind("claude", vault("sess"), "session-model", "high"), ws, mode="interactive",
                prompt=None)
    assert p.argv[1:6] == ["--setting-sources=project", "--model", "session-model", "--effort", "high"]
    native = project("claude", bind("claude", None, "session-model", "high"), ws, mode="interactive", prompt=None)
    assert native.argv[1:5] == ["--model", "session-model", "--effort", "high"]
    assert not any(a.startswith("--setting-sources") for a in native.argv)


@pytest.mark.parametrize("agent", BUILTINS)
def test_item10_vault_key_in_env_never_in_argv(ws, run_dir, agent):
    add("k", "openrouter", secret="must-not-enter-argv")
    for mode in ("headless", "interactive"):
        for native_id in (None, "0199aaaa-bbbb-cccc-dddd-eeeeeeeeeeee"):
            p = project(agent, bind(agent, vault("k")), ws, mode=mode, native_session_id=native_id,
                        run_dir=run_dir)
            assert "must-not-enter-argv" in p.env.values()
            assert not any("must-not-enter-argv" in a for a in p.argv)
            assert b"must-not-enter-argv" not in (p.stdin or b"")
            for name, value in p.env.items():
                if "must-not-enter-argv" in value:
                    assert value == "must-not-enter-argv"  # only as a whole secret variable


@pytest.mark.parametrize("agent", BUILTINS)
def test_item11_native_model_only_has_no_effort_flag(ws, agent):
    p = project(agent, bind(agent, None, "some-model"), ws)
    joined = " ".join(p.argv)
    for flag in ("--effort", "model_reasoning_effort", "--variant", "--thinking"):
        assert flag not in joined
    assert "some-model" in p.argv


def test_item12_variant_headless_only_and_unaccepted_efforts(ws):
    b = bind("opencode", None, "p/m", "high")
    assert "--variant" in project("opencode", b, ws).argv
    assert "--variant" not in project("opencode", b, ws, mode="interactive", prompt=None).argv
    for agent, effort in (("claude", "none"), ("claude", "minimal"), ("claude", "ultra"), ("codex", "max"),
                          ("codex", "ultra"), ("pi", "max"), ("opencode", "ultra")):
        with pytest.raises(InvalidInput) as err:
            project(agent, bind(agent, None, "m", effort), ws)
        assert err.value.code == "effort_unsupported" and agent in err.value.message
    pi = project("pi", bind("pi", None, "m", "none"), ws)
    assert pi.argv[pi.argv.index("--thinking") + 1] == "off"


def test_item7_openrouter_per_engine(ws, run_dir):
    add("or", "openrouter", secret="sk-or")
    claude = project("claude", bind("claude", vault("or")), ws)
    assert claude.env["ANTHROPIC_BASE_URL"] == "https://openrouter.ai/api"
    assert claude.env["ANTHROPIC_AUTH_TOKEN"] == "sk-or" and "ANTHROPIC_API_KEY" not in claude.env
    codex = project("codex", bind("codex", vault("or")), ws)
    assert 'base_url="https://openrouter.ai/api/v1"' in " ".join(codex.argv)
    pi = project("pi", bind("pi", vault("or")), ws, run_dir=run_dir)
    provider = json.loads((run_dir / "pi-agent" / "models.json").read_text())["providers"]["openalice-session"]
    assert (provider["baseUrl"], provider["api"]) == ("https://openrouter.ai/api/v1", "openai-completions")
    assert pi.env["OPENALICE_SESSION_KEY"] == "sk-or"


def test_item8_minimax_legacy_chat_only_credential(ws, run_dir):
    add("mm", "minimax", secret="sk-mm", wire_specs=["openai-chat=https://api.minimaxi.com/v1"])
    cred = vault("mm", wireShape="openai-chat")
    pi = project("pi", bind("pi", cred, "MiniMax-M2.7"), ws, run_dir=run_dir)
    provider = json.loads((run_dir / "pi-agent" / "models.json").read_text())["providers"]["openalice-session"]
    assert (provider["baseUrl"], provider["api"]) == ("https://api.minimaxi.com/anthropic", "anthropic-messages")
    assert pi.argv[pi.argv.index("--provider") + 1] == "openalice-session"
    oc = json.loads(project("opencode", bind("opencode", cred, "MiniMax-M2.7"), ws).env["OPENCODE_CONFIG_CONTENT"])
    options = oc["provider"]["openalice-session"]["options"]
    assert oc["provider"]["openalice-session"]["npm"] == "@ai-sdk/anthropic"
    assert options["baseURL"] == "https://api.minimaxi.com/anthropic/v1"
    assert options["headers"] == {"Authorization": "Bearer {env:OPENALICE_SESSION_KEY}"}  # bearer host
    with pytest.raises(InvalidInput) as err:
        project("codex", bind("codex", vault("mm", wireShape="anthropic")), ws)
    assert err.value.code == "credential_incompatible"


def test_items3_4_model_registration_facts(ws, run_dir):
    add("g", "google")
    from openalice import credentials

    from .conftest import NOW

    credentials.set_model_override("g", "gemini-3.1-flash-lite", context_window=1_000_000, reasoning=False, now=NOW)
    project("pi", bind("pi", vault("g"), "gemini-3.1-flash-lite"), ws, run_dir=run_dir)
    model = json.loads((run_dir / "pi-agent" / "models.json").read_text())["providers"]["openalice-session"]["models"][0]
    assert (model["contextWindow"], model["reasoning"]) == (1_000_000, True)
    add("mm", "minimax")
    credentials.set_model_override("mm", "MiniMax-M2.7", context_window=1_000_000, now=NOW)
    oc = json.loads(project("opencode", bind("opencode", vault("mm"), "MiniMax-M2.7"), ws)
                    .env["OPENCODE_CONFIG_CONTENT"])
    assert oc["provider"]["openalice-session"]["models"]["MiniMax-M2.7"]["limit"]["context"] == 204_800
    add("cu", "custom", base_url="http://127.0.0.1:9/v1", wire_specs=["openai-chat"])
    oc = json.loads(project("opencode", bind("opencode", vault("cu"), "mystery"), ws).env["OPENCODE_CONFIG_CONTENT"])
    assert oc["provider"]["openalice-session"]["models"]["mystery"] == {}  # unknown: keys omitted


# -- argv against the real CLIs ---------------------------------------------------------------------

def _help_flags(name):
    import re

    text = (FIXTURES / "help" / name).read_text()
    return set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", text))


HELP_FOR = {
    ("claude", "headless", False): "claude.txt", ("claude", "headless", True): "claude.txt",
    ("claude", "interactive", False): "claude.txt", ("claude", "interactive", True): "claude.txt",
    ("codex", "headless", False): "codex.txt", ("codex", "headless", True): "codex.txt",
    ("codex", "interactive", False): "codex-toplevel.txt", ("codex", "interactive", True): "codex-resume.txt",
    ("opencode", "headless", False): "opencode.txt", ("opencode", "headless", True): "opencode.txt",
    ("opencode", "interactive", False): "opencode-toplevel.txt",
    ("opencode", "interactive", True): "opencode-toplevel.txt",
    ("pi", "headless", False): "pi.txt", ("pi", "headless", True): "pi.txt",
    ("pi", "interactive", False): "pi.txt", ("pi", "interactive", True): "pi.txt",
}


def _flags_before_separator(argv):
    out = []
    for token in argv[1:]:
        if token == "--":
            break
        if token.startswith("-"):
            out.append(token.split("=", 1)[0])
    return out


@pytest.mark.parametrize("agent", BUILTINS)
@pytest.mark.parametrize("mode", ["headless", "interactive"])
@pytest.mark.parametrize("resume", [False, True])
@pytest.mark.parametrize("credential", ["native", "vault"])
def test_every_flag_is_one_the_real_cli_accepts(ws, run_dir, agent, mode, resume, credential):
    add("v", "openrouter")
    effort = {"claude": "xhigh", "codex": "xhigh", "opencode": "high", "pi": "none"}[agent]
    b = bind(agent, vault("v") if credential == "vault" else None, "some-model", effort)
    p = project(agent, b, ws, mode=mode, run_dir=run_dir, native_session_id="0199aaaa-bbbb" if resume else None,
                prompt="say hi" if mode == "headless" else "hello")
    accepted = _help_flags(HELP_FOR[(agent, mode, resume)])
    unknown = [f for f in _flags_before_separator(p.argv) if f not in accepted]
    assert unknown == [], (p.argv, unknown)


def test_effort_tiers_match_the_cli_help():
    import re

    claude = (FIXTURES / "help" / "claude.txt").read_text()
    levels = re.search(r"--effort <level>\s+Effort level.*?\(([^)]*)\)", claude, re.S).group(1)
    assert tuple(x.strip() for x in levels.replace("\n", " ").split(",")) == \
        agents.get_adapter("claude").capabilities.efforts
    pi = (FIXTURES / "help" / "pi.txt").read_text()
    pi_levels = re.search(r"--thinking <level>\s+Set thinking level: ([a-z, ]+)", pi).group(1).split(", ")
    mapped = ["off" if e == "none" else e for e in agents.get_adapter("pi").capabilities.efforts]
    assert mapped == pi_levels
    opencode = (FIXTURES / "help" / "opencode.txt").read_text()
    assert '--format' in opencode and '"json"' in opencode and "--variant" in opencode
    codex = (FIXTURES / "help" / "codex-resume.txt").read_text()
    assert "danger-full-access" in codex and "never:" in codex


def _readme_argv(cli):
    import re

    for line in (FIXTURES / "README.md").read_text().splitlines():
        if line.startswith(f"| {cli} |"):
            command = re.findall(r"`([^`]+)`", line.split("|")[3])[0]
            return shlex.split(command)
    raise AssertionError(cli)


def _normalize(tokens, provider_ids):
    out = []
    for t in tokens:
        for pid in provider_ids:
            t = t.replace(f"model_provider={pid}", "model_provider=ID").replace(f"{pid}/", "ID/")
        if t.startswith("model_providers."):
            t = "PROVIDER_TABLE"
        out.append(t)
    return out


def test_headless_argv_is_the_one_that_completed_real_turns(ws, run_dir):
    """Ours = the recorded working argv + documented additions (each also in the CLI's --help)."""
    ws_dir, prompt, model = str(ws.root), "say hi", "fake-model"
    add("fake-anthropic", "custom", base_url="http://127.0.0.1:4000", wire_specs=["anthropic"])
    add("fake-openai", "custom", base_url="http://127.0.0.1:4000/v1", wire_specs=["openai-responses"])
    add("fake-chat", "custom", base_url="http://127.0.0.1:4000/v1", wire_specs=["openai-chat"])
    subst = {"<dir>": ws_dir, "<model>": model, "<prompt>": prompt, "<t>": "resume-calm-amber-river-abcdef",
             "fake/<model>": f"fake/{model}"}

    def joined_title(tokens):  # ours passes "--title=T" as one token (a title may start with '-')
        return [t for t in tokens if not t.startswith("--title=")] + [
            x for t in tokens if t.startswith("--title=") for x in ("--title", t.split("=", 1)[1])]

    def readme(cli):
        return [subst.get(t, t.replace("<model>", model)) for t in _readme_argv(cli)]

    claude = project("claude", bind("claude", None, model, "high"), ws).argv
    assert [t for t in claude if t != "--"] == readme("claude")

    codex = project("codex", bind("codex", vault("fake-openai"), model, "high"), ws).argv
    i = codex.index("-c", codex.index("-C"))  # the pinned shell PATH (see the test below)
    assert codex[i + 1].startswith("shell_environment_policy.set.PATH=")
    codex = codex[:i] + codex[i + 2:]
    assert _normalize([t for t in codex if t != "--"], ["openalice_session"]) == _normalize(readme("codex"), ["fake"])
    table = next(t for t in codex if t.startswith("model_providers."))
    assert 'base_url="http://127.0.0.1:4000/v1"' in table and 'env_key="OPENALICE_SESSION_KEY"' in table

    opencode = project("opencode", bind("opencode", vault("fake-chat"), model, "high"), ws)
    assert _normalize(joined_title([t for t in opencode.argv if t != "--auto"]), ["openalice-session"]) == \
        _normalize(readme("opencode"), ["fake"])
    assert opencode.stdin == prompt.encode()

    pi = project("pi", bind("pi", vault("fake-openai"), model, "high"), ws, run_dir=run_dir).argv
    i = pi.index("--session-dir")
    assert pi[:i] + pi[i + 2:] == ["openalice-session" if t == "fake" else t for t in readme("pi")]


# -- per-engine details -------------------------------------------------------------------------

def test_claude_env_and_resume(ws, monkeypatch):
    add("a", "custom", secret="sk-a", base_url="http://127.0.0.1:4000", wire_specs=["anthropic"])
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    p = project("claude", bind("claude", vault("a"), "m"), ws, native_session_id="28413c41-55c0")
    assert p.argv[-4:] == ["--resume", "28413c41-55c0", "--", "say hi"]
    assert p.env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:4000" and p.env["ANTHROPIC_API_KEY"] == "sk-a"
    assert p.env["IS_SANDBOX"] == "1" and p.stdin is None
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert "IS_SANDBOX" not in project("claude", bind("claude"), ws).env
    add("o", "anthropic")
    official = project("claude", bind("claude", vault("o")), ws)
    assert "ANTHROPIC_BASE_URL" not in official.env and official.env["ANTHROPIC_API_KEY"] == "sk-test"


def test_claude_subscription_token(ws):
    add("sub", "anthropic", secret="oauth-token-1", auth_type="subscription")
    p = project("claude", bind("claude", vault("sub")), ws)
    assert p.env["CLAUDE_CODE_OAUTH_TOKEN"] == "oauth-token-1"
    assert "ANTHROPIC_API_KEY" not in p.env  # the ambient key is dropped for a vault run
    with pytest.raises(InvalidInput) as err:
        project("codex", bind("codex", vault("sub")), ws)
    assert err.value.code == "credential_incompatible"


def test_codex_headless_resume_and_interactive_full_access(ws):
    b = bind("codex", None, "gpt-5.5", "high")
    resumed = project("codex", b, ws, native_session_id="019a-thread")
    i = resumed.argv.index("--dangerously-bypass-approvals-and-sandbox")
    assert resumed.argv[i + 1:] == ["resume", "019a-thread", "--", "say hi"]
    for native in (None, "019a-thread"):
        p = project("codex", b, ws, mode="interactive", prompt=None, native_session_id=native)
        joined = " ".join(p.argv)
        assert "--sandbox danger-full-access --ask-for-approval never" in joined
        assert (p.argv[1] == "resume") == (native is not None)
    prompt_with_dash = project("codex", b, ws, prompt="-rf everything")
    assert prompt_with_dash.argv[-2:] == ["--", "-rf everything"]


def test_opencode_prompt_on_stdin_and_session(ws):
    p = project("opencode", bind("opencode", None, "anthropic/claude-x"), ws, prompt="--version please",
                native_session_id="ses_dd45")
    assert p.stdin == b"--version please" and "--version please" not in p.argv
    assert p.argv[p.argv.index("-s") + 1] == "ses_dd45" and not any(a.startswith("--title") for a in p.argv)
    fresh = project("opencode", bind("opencode"), ws, mode="interactive", prompt="-x marks the spot")
    assert "--prompt=-x marks the spot" in fresh.argv
    assert p.env["OPENCODE_DISABLE_AUTOUPDATE"] == "1"
    assert "OPENCODE_CONFIG_CONTENT" not in p.env  # ambient stale config is stripped, none projected (native)


def test_pi_vault_config_only_in_the_run_dir(ws, run_dir, tmp_path):
    add("p", "custom", secret="sk-pi", base_url="http://127.0.0.1:4000/v1", wire_specs=["openai-responses"])
    home = tmp_path / "home"
    p = project("pi", bind("pi", vault("p"), "fake-model", "high"), ws, run_dir=run_dir,
                base_env={**BASE_ENV, "HOME": str(home)}, prompt="@etc/passwd please")
    agent_dir = run_dir / "pi-agent"
    assert p.env["PI_CODING_AGENT_DIR"] == str(agent_dir) and p.env["OPENALICE_SESSION_KEY"] == "sk-pi"
    doc = json.loads((agent_dir / "models.json").read_text())
    assert doc == {"providers": {"openalice-session": {
        "baseUrl": "http://127.0.0.1:4000/v1", "api": "openai-responses", "apiKey": "OPENALICE_SESSION_KEY",
        "models": [{"id": "fake-model", "reasoning": True}]}}}  # the recorded working config
    assert oct((agent_dir / "models.json").stat().st_mode & 0o777) == "0o600"
    bucket = "--" + str(ws.root).lstrip("/").replace("/", "-") + "--"
    assert p.argv[p.argv.index("--session-dir") + 1] == str(home / ".pi" / "agent" / "sessions" / bucket)
    assert p.argv[-1] == " @etc/passwd please"  # never read as an @file argument
    assert not (home / ".pi").exists()  # the user's pi config is never written
    with pytest.raises(UsageError) as err:
        project("pi", bind("pi", vault("p"), "fake-model"), ws)
    assert err.value.code == "run_dir_required"


def test_env_strips_ambient_plumbing_and_puts_shims_first(ws):
    p = project("codex", bind("codex"), ws)
    for name in ("CLAUDE_CODE_ENTRYPOINT", "VSCODE_PID", "OPENALICE_MCP_URL", "OPENALICE_TOOL_URL",
                 "OPENCODE_CONFIG_CONTENT"):
        assert name not in p.env
    assert p.env["ALICE_RUN_ID"] == "run-AbCdEf12" and p.env["ALICE_WORKSPACE_ID"] == "ws"
    assert p.env["OPENAI_API_KEY"] == "ambient-openai-key"  # native auth keeps the user's own environment
    parts = p.env["PATH"].split(os.pathsep)
    # The workspace's shims, then the toolkit's tools, then the caller's PATH.
    assert parts[:2] == [str(ws.root / ".alice" / "bin"), str(agents.shims_dir())]
    assert parts[2:] == ["/usr/local/bin", "/usr/bin", "/bin"]
    assert (agents.shims_dir() / "alice").exists() and (ws.root / ".alice" / "bin" / "alice").exists()
    interactive = project("codex", bind("codex"), ws, mode="interactive", prompt=None, run_env={})
    assert "ALICE_RUN_ID" not in interactive.env  # a parent run's identity never leaks into a child
    add("x", "openai")
    vault_run = project("codex", bind("codex", vault("x")), ws)
    assert "OPENAI_API_KEY" not in vault_run.env and vault_run.env["OPENALICE_SESSION_KEY"] == "sk-test"


def test_codex_pins_the_run_path_for_its_shell_tool(ws):
    """codex's shell tool takes its environment from a login-shell snapshot, whose /etc/profile
    resets PATH; the policy pin keeps the toolkit's tools (``alice``) first, in every mode."""
    for mode, prompt in (("headless", "say hi"), ("interactive", None)):
        p = project("codex", bind("codex"), ws, mode=mode, prompt=prompt,
                    base_env={**BASE_ENV, "PATH": '/opt/a "b":/usr/bin'})
        pins = [p.argv[i + 1] for i, t in enumerate(p.argv[:-1])
                if t == "-c" and p.argv[i + 1].startswith("shell_environment_policy.set.PATH=")]
        assert pins == ["shell_environment_policy.set.PATH=" + json.dumps(p.env["PATH"])], p.argv
        assert p.env["PATH"].split(os.pathsep) == [str(ws.root / ".alice" / "bin"), str(agents.shims_dir()),
                                                   '/opt/a "b"', "/usr/bin"]


def test_shims_first_without_duplicates():
    shims = str(agents.shims_dir())
    assert agents.compose_path(shims, f"/a:{shims}::/b") == f"{shims}:/a:/b"
    assert agents.run_path("/w", f"/w/.alice/bin:/a:{shims}") == f"/w/.alice/bin:{shims}:/a"


def test_missing_credential_and_agent_mismatch(ws):
    with pytest.raises(NotFound) as err:
        project("pi", bind("pi", vault("deleted")), ws)
    assert err.value.code == "credential_not_found"
    with pytest.raises(InvalidInput) as err:
        project("codex", bind("claude"), ws)
    assert err.value.code == "agent_mismatch"
    with pytest.raises(UsageError):
        project("codex", bind("codex"), ws, prompt="")
    with pytest.raises(InvalidInput):
        project("codex", bind("codex"), ws, native_session_id="--last")


def test_capabilities_are_declared():
    for name in BUILTINS:
        caps = agents.get_adapter(name).capabilities.to_dict()
        assert caps["headless"] and caps["resume"] and caps["wires"] and caps["efforts"]
    assert agents.get_adapter("claude").capabilities.subscription is True
    assert agents.get_adapter("opencode").capabilities.prompt == "stdin"


# -- wrapper engines ----------------------------------------------------------------------------

@pytest.fixture
def catalog(monkeypatch, tmp_path):
    """A real harness-adapter catalog file with one wrapper engine, 'north'."""
    wrapper = tmp_path / "wrappers" / "north.sh"
    wrapper.parent.mkdir()
    wrapper.write_text("#!/bin/sh\n")
    wrapper.chmod(0o755)
    doc = {"version": "adapters/v1", "adapters": [
        {"id": "north", "kind": "cli", "wrapper": "wrappers/north.sh", "models": ["n-1"],
         "envFile": "wrappers/NORTH.env"}]}
    path = tmp_path / "adapters.json"
    path.write_text(json.dumps(doc))
    monkeypatch.setenv("HARNESS_CATALOG", str(path))
    return wrapper


def test_wrapper_engine_argv_and_stdin(ws, catalog):
    adapter = agents.get_adapter("north")
    assert adapter.capabilities.stream == "wrapper-jsonl" and not adapter.capabilities.interactive
    p = adapter.project(bind("north", None, "n-1", "high"), workspace=ws.root, prompt="-do it", run_env=RUN_ENV,
                        base_env=BASE_ENV, native_session_id="sess-9")
    assert p.argv == [str(catalog), "--model", "n-1", "--effort", "high", "--resume", "sess-9"]
    assert p.stdin == b"-do it"
    # the wrapper sources its own env file: it is told where, never given a secret
    assert p.env["HARNESS_ENV_FILE"] == str(catalog.parent / "NORTH.env")
    assert p.env["HARNESS_ADAPTER_ID"] == "north"
    with pytest.raises(InvalidInput) as err:
        adapter.project(bind("north"), workspace=ws.root, prompt="x", base_env=BASE_ENV)
    assert err.value.code == "model_required"
    add("v", "openai")
    with pytest.raises(InvalidInput) as err:
        adapter.project(bind("north", vault("v"), "n-1"), workspace=ws.root, prompt="x", base_env=BASE_ENV)
    assert err.value.code == "credential_incompatible"
    with pytest.raises(NotFound) as err:
        agents.get_adapter("southpole")
    assert err.value.code == "unknown_agent"


def test_claude_prompt_goes_after_the_separator_verbatim(ws):
    # Checked with claude 2.1.197: after "--" neither "-x ..." nor "update" is read as a flag or command.
    for prompt in ("update", "-x say hi"):
        assert project("claude", bind("claude"), ws, prompt=prompt).argv[-2:] == ["--", prompt]


def test_explicit_effort_on_an_unknown_model_registers_it_as_reasoning(ws, run_dir):
    """pi and opencode drop an effort for a model registered without reasoning; an explicit
    effort is the user saying the model reasons (the recorded working pi config did the same)."""
    add("cu", "custom", base_url="http://127.0.0.1:9/v1", wire_specs=["openai-chat"])
    project("pi", bind("pi", vault("cu"), "fake-model", "high"), ws, run_dir=run_dir)
    models_json = json.loads((run_dir / "pi-agent" / "models.json").read_text())
    assert models_json["providers"]["openalice-session"]["models"] == [{"id": "fake-model", "reasoning": True}]
    project("pi", bind("pi", vault("cu"), "fake-model", "none"), ws, run_dir=run_dir)
    models_json = json.loads((run_dir / "pi-agent" / "models.json").read_text())
    assert models_json["providers"]["openalice-session"]["models"] == [{"id": "fake-model"}]
    oc = json.loads(project("opencode", bind("opencode", vault("cu"), "fake-model", "high"), ws)
                    .env["OPENCODE_CONFIG_CONTENT"])
    assert oc["provider"]["openalice-session"]["models"]["fake-model"] == {"reasoning": True}
    from openalice import credentials

    from .conftest import NOW

    credentials.set_model_override("cu", "fake-model", reasoning=False, now=NOW)  # the user's word wins
    oc = json.loads(project("opencode", bind("opencode", vault("cu"), "fake-model", "high"), ws)
                    .env["OPENCODE_CONFIG_CONTENT"])
    assert oc["provider"]["openalice-session"]["models"]["fake-model"] == {"reasoning": False}
