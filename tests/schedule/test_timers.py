"""install-timer: definitions with absolute paths, idempotent installation."""

from __future__ import annotations

import os
import plistlib
import stat
import sys
from pathlib import Path

from openalice.schedule import timers

ENV = {"HOME": "/home/u", "OPENALICE_HOME": "/data/alice home", "PATH": "/opt/bin:/usr/bin",
       "ALICE_NOW": "2026-01-01T00:00:00Z"}
CMD = ["/opt/venv/bin/alice-schedule"]


def test_tool_command_is_absolute():
    command = timers.tool_command()
    assert all(os.path.isabs(part) for part in command)
    assert command[-1].endswith("alice-schedule") and os.path.exists(command[-1])
    if len(command) == 2:  # the checkout launcher: the interpreter is named
        assert command[0] == os.path.abspath(sys.executable)


def test_cron_definition():
    spec = timers.definition("cron", environ=ENV, command=CMD)
    block = spec["files"][0]["content"]
    marker, line = block.splitlines()
    assert marker == timers.CRON_MARKER
    # OPENALICE_SCAN_TIMER marks the scans the line starts (doctor: "it fires").
    assert line == ("* * * * * OPENALICE_HOME='/data/alice home' PATH=/opt/bin:/usr/bin OPENALICE_SCAN_TIMER=cron "
                    "/opt/venv/bin/alice-schedule scan >> '/data/alice home/state/schedule/cron.log' 2>&1")
    assert "ALICE_NOW" not in block  # a frozen clock must never leak into a timer
    # A catalog chosen in the shell must reach the timer too, or its engines are unknown there.
    carried = timers.definition("cron", environ={**ENV, "HARNESS_CATALOG": "/cat/./adapters.json"},
                                command=CMD)["environment"]
    assert carried["HARNESS_CATALOG"] == "/cat/adapters.json"
    assert "%" not in timers.cron_line(["/x/100%/alice-schedule"], {}, Path("/l")).replace("\\%", "")


def test_merge_crontab_is_idempotent_and_keeps_other_lines():
    block = timers.cron_block(CMD, {}, Path("/l"))
    mine = "MAILTO=me\n0 5 * * * backup\n"
    once = timers.merge_crontab(mine, block)
    assert once == mine + block
    assert timers.merge_crontab(once, block) == once
    other = timers.cron_block(["/new/alice-schedule"], {}, Path("/l"))
    replaced = timers.merge_crontab(once, other)
    assert replaced == mine + other and "/opt/venv" not in replaced
    assert timers.merge_crontab("", block) == block


def test_systemd_definition():
    spec = timers.definition("systemd", environ=ENV, command=CMD)
    files = {Path(f["path"]).name: f for f in spec["files"]}
    assert set(files) == {"openalice-schedule.service", "openalice-schedule.timer"}
    assert all(f["path"].startswith("/home/u/.config/systemd/user/") for f in spec["files"])
    service = files["openalice-schedule.service"]["content"]
    assert "ExecStart=/opt/venv/bin/alice-schedule scan\n" in service
    assert 'Environment="OPENALICE_HOME=/data/alice home"\n' in service
    assert 'Environment="OPENALICE_SCAN_TIMER=systemd"\n' in service
    assert "Type=oneshot" in service and "KillMode=process" in service
    timer = files["openalice-schedule.timer"]["content"]
    assert "OnCalendar=minutely\n" in timer and "Persistent=true\n" in timer
    assert "WantedBy=timers.target" in timer
    assert spec["enable"][-1] == ["systemctl", "--user", "enable", "--now", "openalice-schedule.timer"]
    xdg = timers.definition("systemd", environ={**ENV, "XDG_CONFIG_HOME": "/cfg"}, command=CMD)
    assert xdg["files"][0]["path"].startswith("/cfg/systemd/user/")


def test_launchd_definition():
    spec = timers.definition("launchd", environ=ENV, command=CMD)
    item = spec["files"][0]
    assert item["path"] == "/home/u/Library/LaunchAgents/dev.openalice.schedule.plist"
    plist = plistlib.loads(item["content"].encode())
    assert plist["ProgramArguments"] == [*CMD, "scan"]
    assert plist["StartInterval"] == 60 and plist["Label"] == "dev.openalice.schedule"
    assert plist["EnvironmentVariables"]["OPENALICE_HOME"] == "/data/alice home"
    assert plist["EnvironmentVariables"]["OPENALICE_SCAN_TIMER"] == "launchd"


def _fake_crontab(bin_dir: Path, store: Path) -> None:
    script = bin_dir / "crontab"
    script.write_text(f"""#!/bin/sh
if [ "$1" = "-l" ]; then
  if [ -f '{store}' ]; then cat '{store}'; exit 0; fi
  echo "no crontab for $(id -un)" >&2; exit 1
fi
if [ "$1" = "-" ]; then cat > '{store}'; exit 0; fi
exit 2
""")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)


def test_cron_write_merges_into_the_user_crontab(cli, tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    store = tmp_path / "crontab.txt"
    _fake_crontab(bin_dir, store)
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}"}
    r = cli("alice-schedule", "install-timer", "--cron", "--write", "--json", env=env)
    assert r.returncode == 0, r
    first = store.read_text()
    assert first.count(timers.CRON_MARKER) == 1 and " scan >> " in first
    assert r.json()["written"] == ["crontab"]
    store.write_text("MAILTO=me\n" + first)
    r = cli("alice-schedule", "install-timer", "--cron", "--write", env=env)
    assert r.returncode == 0, r
    assert store.read_text() == "MAILTO=me\n" + first  # idempotent, other lines kept


def test_cron_write_without_crontab_is_unavailable(cli, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    python_dir = os.path.dirname(sys.executable)  # the checkout launcher needs python3
    assert not os.path.exists(os.path.join(python_dir, "crontab"))
    r = cli("alice-schedule", "install-timer", "--cron", "--write", "--json",
            env={"PATH": f"{empty}:{python_dir}"})
    assert r.returncode == 3 and r.json()["error"]["code"] == "timer_tool_missing"


def test_systemd_and_launchd_write_to_the_users_standard_places(cli, isolated_homes):
    home = Path(isolated_homes["HOME"])
    r = cli("alice-schedule", "install-timer", "--systemd", "--write", "--json")
    assert r.returncode == 0, r
    unit_dir = home / ".config" / "systemd" / "user"
    assert sorted(p.name for p in unit_dir.iterdir()) == ["openalice-schedule.service",
                                                          "openalice-schedule.timer"]
    assert r.json()["enabled"] is False
    r = cli("alice-schedule", "install-timer", "--systemd", "--write")
    assert "systemctl --user enable --now openalice-schedule.timer" in r.stdout
    r = cli("alice-schedule", "install-timer", "--launchd", "--write", "--json")
    assert r.returncode == 0, r
    plist = home / "Library" / "LaunchAgents" / "dev.openalice.schedule.plist"
    assert plistlib.loads(plist.read_bytes())["StartInterval"] == 60


def test_install_timer_usage_errors(cli):
    assert cli("alice-schedule", "install-timer").returncode == 2
    assert cli("alice-schedule", "install-timer", "--cron", "--systemd").returncode == 2
    r = cli("alice-schedule", "install-timer", "--cron", "--enable", "--json")
    assert r.returncode == 2 and r.json()["error"]["code"] == "usage"
    r = cli("alice-schedule", "install-timer", "--launchd")
    assert r.returncode == 0 and "<key>StartInterval</key>" in r.stdout


def test_install_timer_json_matches_its_schema(cli, isolated_homes):
    from openalice.core.resources import schema
    from openalice.core.schema import Validator

    validator = Validator(schema("schedule-install-timer"))
    for kind in ("--cron", "--systemd", "--launchd"):
        printed = cli("alice-schedule", "install-timer", kind, "--json")
        assert printed.returncode == 0, printed
        assert validator.errors(printed.json()) == [], kind
    written = cli("alice-schedule", "install-timer", "--systemd", "--write", "--json")
    assert validator.errors(written.json()) == []
    assert validator.errors({"unexpected": True}) != []


def _fake_tool(bin_dir: Path, name: str, body: str) -> None:
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / name
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(0o755)


def test_launchd_enable_without_launchctl_writes_nothing(cli, isolated_homes, tmp_path):
    home = Path(isolated_homes["HOME"])
    python_dir = os.path.dirname(sys.executable)
    empty = tmp_path / "empty"
    empty.mkdir()
    r = cli("alice-schedule", "install-timer", "--launchd", "--write", "--enable", "--json",
            env={"PATH": f"{empty}:{python_dir}"})
    assert r.returncode == 3 and r.json()["error"]["code"] == "timer_tool_missing", r
    assert not (home / "Library").exists()  # no plist, no LaunchAgents directory


def test_a_failed_enable_puts_the_files_back(cli, isolated_homes, tmp_path):
    home = Path(isolated_homes["HOME"])
    bin_dir = tmp_path / "bin"
    calls = tmp_path / "calls"
    _fake_tool(bin_dir, "systemctl", f'echo "$*" >> {calls}\n'
                                     'case "$*" in *enable*) echo "Failed to connect to bus" >&2; exit 1;; esac\n')
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}"}
    unit_dir = home / ".config" / "systemd" / "user"
    r = cli("alice-schedule", "install-timer", "--systemd", "--write", "--enable", "--json", env=env)
    assert r.returncode == 1 and r.json()["error"]["code"] == "timer_tool_failed", r
    assert "Failed to connect to bus" in r.json()["error"]["message"]
    assert not (home / ".config").exists()  # new files and the directories made for them are gone
    assert calls.read_text().splitlines()[-1] == "--user daemon-reload"  # systemd forgets them again
    # An earlier installation is restored byte for byte, not deleted.
    unit_dir.mkdir(parents=True)
    (unit_dir / "openalice-schedule.service").write_text("old service\n")
    r = cli("alice-schedule", "install-timer", "--systemd", "--write", "--enable", env=env)
    assert r.returncode == 1, r
    assert sorted(p.name for p in unit_dir.iterdir()) == ["openalice-schedule.service"]
    assert (unit_dir / "openalice-schedule.service").read_text() == "old service\n"


def test_install_timer_creates_the_log_directory_it_names(cli, isolated_homes):
    log_dir = Path(isolated_homes["OPENALICE_HOME"]) / "state" / "schedule"
    r = cli("alice-schedule", "install-timer", "--cron", "--json")
    assert r.returncode == 0, r
    assert r.json()["directories"] == [str(log_dir)] and r.json()["created"] == [str(log_dir)]
    assert log_dir.is_dir() and stat.S_IMODE(log_dir.stat().st_mode) == 0o700
    assert stat.S_IMODE(log_dir.parent.stat().st_mode) == 0o700
    again = cli("alice-schedule", "install-timer", "--cron")
    assert again.returncode == 0 and "# created" not in again.stdout


def test_kind_flags_have_help(cli):
    r = cli("alice-schedule", "install-timer", "--help")
    assert r.returncode == 0
    for flag, words in (("--cron", "crontab"), ("--systemd", "systemd user service"),
                        ("--launchd", "LaunchAgent")):
        line = next(l for l in r.stdout.splitlines() if l.strip().startswith(flag))
        rest = r.stdout[r.stdout.index(line):].split("\n  --", 1)[0]
        assert words in rest, (flag, rest)


def _fake_crontab_with_remove(bin_dir: Path, store: Path) -> None:
    _fake_tool(bin_dir, "crontab", f"""if [ "$1" = "-l" ]; then
  if [ -f '{store}' ]; then cat '{store}'; exit 0; fi
  echo "no crontab for $(id -un)" >&2; exit 1
fi
if [ "$1" = "-" ]; then cat > '{store}'; exit 0; fi
if [ "$1" = "-r" ]; then rm -f '{store}'; exit 0; fi
exit 2
""")


def test_merge_then_unmerge_gives_the_crontab_back_byte_for_byte():
    from openalice.schedule.timer_removal import unmerge_crontab

    block = timers.cron_block(CMD, {}, Path("/l"))
    for before in ("", "MAILTO=me\n", "MAILTO=me\n\n\n", "# c\n\n0 5 * * * backup  \n# end\n"):
        assert unmerge_crontab(timers.merge_crontab(before, block)) == before, repr(before)
    # Replaced where it stands: the lines after the block stay after it.
    middle = "A=1\n" + block + "0 5 * * * backup\n"
    other = timers.cron_block(["/new/alice-schedule"], {}, Path("/l"))
    assert timers.merge_crontab(middle, other) == "A=1\n" + other + "0 5 * * * backup\n"
    assert unmerge_crontab(middle) == "A=1\n0 5 * * * backup\n"


def test_uninstall_timer_cron_restores_the_crontab_byte_for_byte(cli, tmp_path):
    from openalice.core.resources import schema
    from openalice.core.schema import Validator

    validator = Validator(schema("schedule-uninstall-timer"))
    bin_dir = tmp_path / "bin"
    store = tmp_path / "crontab.txt"
    _fake_crontab_with_remove(bin_dir, store)
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}"}
    before = b"MAILTO=me\n\n# nightly\n0 5 * * * backup %H  \n\n"
    store.write_bytes(before)
    assert cli("alice-schedule", "install-timer", "--cron", "--write", env=env).returncode == 0
    assert store.read_bytes() != before and timers.CRON_MARKER in store.read_text()
    r = cli("alice-schedule", "uninstall-timer", "--cron", "--json", env=env)
    assert r.returncode == 0, r
    assert store.read_bytes() == before
    assert r.json()["removed"] == ["crontab"] and validator.errors(r.json()) == []
    again = cli("alice-schedule", "uninstall-timer", "--cron", env=env)
    assert again.returncode == 0 and "nothing removed" in again.stdout
    assert store.read_bytes() == before
    # No crontab before the install: none after the uninstall.
    store.unlink()
    assert cli("alice-schedule", "install-timer", "--cron", "--write", env=env).returncode == 0
    r = cli("alice-schedule", "uninstall-timer", "--cron", "--json", env=env)
    assert r.returncode == 0 and not store.exists(), r
    assert validator.errors(r.json()) == []


def test_uninstall_timer_systemd_and_launchd_remove_their_files(cli, isolated_homes, tmp_path):
    from openalice.core.resources import schema
    from openalice.core.schema import Validator

    validator = Validator(schema("schedule-uninstall-timer"))
    home = Path(isolated_homes["HOME"])
    bin_dir = tmp_path / "bin"
    calls = tmp_path / "calls"
    for tool in ("systemctl", "launchctl"):
        _fake_tool(bin_dir, tool, f'echo "{tool} $*" >> {calls}\n')
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}"}
    unit_dir = home / ".config" / "systemd" / "user"
    unit_dir.mkdir(parents=True)
    (unit_dir / "mine.service").write_text("keep me\n")
    assert cli("alice-schedule", "install-timer", "--systemd", "--write", env=env).returncode == 0
    r = cli("alice-schedule", "uninstall-timer", "--systemd", "--json", env=env)
    assert r.returncode == 0, r
    assert validator.errors(r.json()) == []
    assert sorted(p.name for p in unit_dir.iterdir()) == ["mine.service"]
    assert calls.read_text().splitlines() == [
        "systemctl --user disable --now openalice-schedule.timer", "systemctl --user daemon-reload"]
    assert [s["ok"] for s in r.json()["disabled"]] == [True]
    assert cli("alice-schedule", "install-timer", "--launchd", "--write", env=env).returncode == 0
    plist = home / "Library" / "LaunchAgents" / "dev.openalice.schedule.plist"
    r = cli("alice-schedule", "uninstall-timer", "--launchd", env=env)
    assert r.returncode == 0 and f"removed {plist}" in r.stdout, r
    assert not plist.exists() and calls.read_text().splitlines()[-1] == f"launchctl unload -w {plist}"
    r = cli("alice-schedule", "uninstall-timer", "--launchd", "--json", env=env)
    assert r.json() == {"kind": "launchd", "removed": [], "disabled": []}
    assert cli("alice-schedule", "uninstall-timer").returncode == 2
    assert cli("alice-schedule", "uninstall-timer", "--cron", "--systemd").returncode == 2
