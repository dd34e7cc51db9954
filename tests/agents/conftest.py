from datetime import datetime, timezone

import pytest

from openalice import credentials, sessions, workspaces

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)
BASE_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "HOME": "/home/someone",
    "LANG": "C.UTF-8",
    "CLAUDE_CODE_ENTRYPOINT": "cli",
    "VSCODE_PID": "1",
    "OPENALICE_MCP_URL": "http://127.0.0.1:1/mcp",
    "OPENALICE_TOOL_URL": "http://127.0.0.1:1/tool",
    "OPENCODE_CONFIG_CONTENT": "{\"stale\": true}",
    "ALICE_RUN_ID": "run-parent00",
    "ALICE_RESUME_ID": "resume-parent-parent-parent-aaaaaa",
    "ANTHROPIC_API_KEY": "ambient-anthropic-key",
    "OPENAI_API_KEY": "ambient-openai-key",
}
RUN_ENV = {"ALICE_RUN_ID": "run-AbCdEf12", "ALICE_RESUME_ID": "resume-calm-amber-river-abcdef",
           "ALICE_WORKSPACE_ID": "ws"}


@pytest.fixture
def ws(tmp_path):
    return workspaces.init(tmp_path / "ws", now=NOW)[0]


@pytest.fixture
def run_dir(tmp_path):
    path = tmp_path / "run"
    path.mkdir(mode=0o700)
    return path


def bind(agent, credential=None, model=None, effort=None, resume_id="resume-calm-amber-river-abcdef"):
    return sessions.make_binding(resume_id=resume_id, agent=agent, credential=credential, model=model,
                                 effort=effort)


def vault(slug, **extra):
    return {"source": "vault", "credentialSlug": slug, **extra}


def add(slug, vendor, secret="sk-test", **kw):
    return credentials.add(slug, vendor=vendor, secret=secret, now=NOW, **kw)
