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


# -- issue 16: no copy of a secret outlives its file ----------------------------------------

KEY = "sk-leftover-canary-3b9e"


def leftover(env_file, pid: int):
    """A temp copy of the env file as a writer killed mid-write leaves it."""
    from openalice.core import fs

    path = env_file.parent / f"{fs.TEMP_PREFIX}{env_file.name}.{pid}.{fs.temps._HOST}.deadbeef"
    path.write_text(f"API_KEY='{KEY}'\n")
    return path


@pytest.mark.parametrize("how", ["unset", "remove", "set"])
def test_under_the_lock_every_temp_of_the_env_file_goes_at_once(tmp_path, how):
    env_file = tmp_path / "vault" / "k.env"
    secrets.set_env_var(env_file, "API_KEY", KEY)
    # Young, and its pid looks alive (our parent): only the lock says it is a leftover.
    temp = leftover(env_file, os.getppid())
    neighbour = leftover(tmp_path / "vault" / "other.env", os.getppid())
    if how == "unset":
        assert secrets.unset_env_var(env_file, "API_KEY") is True
    elif how == "remove":
        assert secrets.remove_env_file(env_file) is True
        assert not env_file.exists()
    else:
        secrets.set_env_var(env_file, "API_KEY", "sk-new")
    assert not temp.exists()
    assert neighbour.exists()  # another file's temp: not this lock's to judge
    if how != "set":
        hits = [p for p in tmp_path.rglob("*") if p.is_file() and KEY.encode() in p.read_bytes()
                and p != neighbour]
        assert hits == []


def test_unset_and_remove_clean_up_when_only_a_temp_is_left(tmp_path):
    env_file = tmp_path / "vault" / "k.env"
    env_file.parent.mkdir()
    temp = leftover(env_file, os.getppid())  # the very first write was killed
    assert secrets.unset_env_var(env_file, "API_KEY") is False
    assert not temp.exists()
    temp = leftover(env_file, os.getppid())
    assert secrets.remove_env_file(env_file) is True
    assert not temp.exists()
    assert secrets.remove_env_file(tmp_path / "nowhere" / "k.env") is False


def test_signals_wait_until_the_secret_write_is_done(tmp_path):
    """SIGTERM sent during the write arrives after it: the file is whole, no temp is left."""
    import signal
    import sys
    import textwrap

    script = textwrap.dedent(f"""
        import os, signal
        from openalice.core import fs, secrets
        real = fs.writes.write_all
        def write_then_signal(fd, data):
            os.kill(os.getpid(), signal.SIGTERM)  # arrives mid-write
            real(fd, data)
        fs.writes.write_all = write_then_signal
        secrets.set_env_var({str(tmp_path / "k.env")!r}, "API_KEY", "sk-whole")
        print("not reached: SIGTERM ends the process once the write is done")
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.returncode == -signal.SIGTERM, out
    assert (tmp_path / "k.env").read_text() == "API_KEY='sk-whole'\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".k.env.lock", "k.env"]
