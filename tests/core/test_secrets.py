import io
import os
import stat
import subprocess

import pytest

from openalice.core import secrets
from openalice.core.errors import InvalidInput, UsageError

NASTY = "p@ss'w\"o$(rm -rf /)`id` \\ ;&|*"


def test_value_quoting_is_safe_to_source(tmp_path):
    env_file = tmp_path / "priv" / "CODEX.env"
    secrets.set_env_var(env_file, "API_KEY", NASTY)
    secrets.set_env_var(env_file, "OTHER", "plain")
    out = subprocess.run(["sh", "-c", f". '{env_file}'; printf %s \"$API_KEY\""],
                         capture_output=True, text=True, check=True)
    assert out.stdout == NASTY
    assert secrets.load_env_file(env_file) == {"API_KEY": NASTY, "OTHER": "plain"}


def test_file_and_directory_permissions(tmp_path):
    env_file = tmp_path / "newdir" / "x.env"
    secrets.set_env_var(env_file, "K", "v")
    assert stat.S_IMODE(env_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(env_file.parent.stat().st_mode) == 0o700


def test_replace_keeps_other_lines_and_unset(tmp_path):
    env_file = tmp_path / "x.env"
    env_file.write_text("# comment\nA='1'\nB='2'\n")
    os.chmod(env_file, 0o600)
    assert secrets.set_env_var(env_file, "A", "one") is True
    assert env_file.read_text() == "# comment\nA='one'\nB='2'\n"
    assert secrets.env_file_keys(env_file) == ["A", "B"]
    assert secrets.unset_env_var(env_file, "A") is True
    assert secrets.unset_env_var(env_file, "A") is False
    assert secrets.env_file_keys(env_file) == ["B"]


@pytest.mark.parametrize("name", ["1ABC", "A-B", "", "A B", "A\n"])
def test_bad_names_refused(tmp_path, name):
    with pytest.raises(InvalidInput):
        secrets.set_env_var(tmp_path / "x.env", name, "v")
    assert not (tmp_path / "x.env").exists()


@pytest.mark.parametrize("value", ["a\nb", "a\x00b", "a\rb"])
def test_bad_values_refused(tmp_path, value):
    with pytest.raises(InvalidInput):
        secrets.set_env_var(tmp_path / "x.env", "K", value)
    assert not (tmp_path / "x.env").exists()


def test_read_secret_from_stdin_strips_one_newline():
    assert secrets.read_secret("-", stdin=io.StringIO("abc\n")) == "abc"
    with pytest.raises(InvalidInput):
        secrets.read_secret("-", stdin=io.StringIO("a\nb\n"))
    with pytest.raises(InvalidInput):
        secrets.read_secret("-", stdin=io.StringIO(""))
    with pytest.raises(UsageError):
        secrets.read_secret("sk-on-the-command-line")


def test_looks_secret():
    for name in ("api_key", "apiKey", "TOKEN", "password", "client_secret", "Authorization"):
        assert secrets.looks_secret(name), name
    for name in ("base_url", "region", "model", "timeout"):
        assert not secrets.looks_secret(name), name
