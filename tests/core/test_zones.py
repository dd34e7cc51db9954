import os
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from openalice.core import zones
from openalice.core.errors import InvalidInput
from openalice.core.zones import machine_zone, machine_zone_key, resolve_zone, zone_label

MESSAGE = "timezone must be `local` or a valid IANA timezone"
# The machine-zone tests point a fake /etc/localtime at the system database.
needs_system_tzdata = pytest.mark.skipif(not os.path.isdir("/usr/share/zoneinfo/Europe"),
                                         reason="no system zone database at /usr/share/zoneinfo")


@pytest.mark.parametrize("name", ["America/New_York", "Europe/Dublin", "Australia/Lord_Howe",
                                  "Asia/Kolkata", "Pacific/Chatham", "UTC", "Etc/GMT+5", "EST5EDT"])
def test_iana_names_resolve(name):
    zone = resolve_zone(name)
    assert isinstance(zone, ZoneInfo)
    assert zone.key == name


def test_lookups_are_cached():
    assert resolve_zone("Europe/London") is resolve_zone("Europe/London")


@pytest.mark.parametrize("name", [
    "", " ", "New York-ish", "Mars/Olympus", "america/new_york", "America/", "/America/New_York",
    "../etc/passwd", "/etc/localtime", "America/../Europe/Paris", "./UTC", "America\\New_York",
    "America/New_York\x00", "localtime", "posixrules", "posix/UTC", "right/UTC", "zone.tab",
    "LOCAL", "America", "x" * 300,
])
def test_unknown_or_crafted_names_are_refused(name):
    # Item 26: an unknown zone is an error, never a silent fallback.
    with pytest.raises(InvalidInput) as caught:
        resolve_zone(name)
    assert caught.value.code == "bad_timezone"
    assert caught.value.message == MESSAGE
    assert caught.value.exit_code == 2


@pytest.mark.parametrize("value", [0, 1.5, ["UTC"], b"UTC"])
def test_non_strings_are_refused(value):
    with pytest.raises(InvalidInput) as caught:
        resolve_zone(value)
    assert caught.value.code == "bad_timezone"


def test_local_and_none_follow_the_tz_variable(monkeypatch):
    monkeypatch.setenv("TZ", "Asia/Kolkata")
    assert resolve_zone("local").key == "Asia/Kolkata"
    assert resolve_zone(None).key == "Asia/Kolkata"
    monkeypatch.setenv("TZ", ":Europe/Dublin")  # POSIX `:key` form
    assert resolve_zone("local").key == "Europe/Dublin"
    assert zone_label("local") == "local (Europe/Dublin)"


@needs_system_tzdata
def test_symlink_target_names_the_machine_zone(tmp_path):
    link = tmp_path / "localtime"
    os.symlink("/usr/share/zoneinfo/Pacific/Chatham", link)
    assert machine_zone_key(environ={}, localtime=str(link)) == "Pacific/Chatham"
    assert machine_zone(environ={}, localtime=str(link)).key == "Pacific/Chatham"


@needs_system_tzdata
def test_relative_symlink_target_is_understood(tmp_path):
    (tmp_path / "share" / "zoneinfo" / "Asia").mkdir(parents=True)
    target = tmp_path / "share" / "zoneinfo" / "Asia" / "Kolkata"
    target.write_bytes(open("/usr/share/zoneinfo/Asia/Kolkata", "rb").read())
    (tmp_path / "etc").mkdir()
    link = tmp_path / "etc" / "localtime"
    os.symlink("../share/zoneinfo/Asia/Kolkata", link)
    assert machine_zone_key(environ={}, localtime=str(link)) == "Asia/Kolkata"


@needs_system_tzdata
def test_tz_variable_that_is_not_a_key_falls_back_to_localtime(tmp_path):
    link = tmp_path / "localtime"
    os.symlink("/usr/share/zoneinfo/Europe/London", link)
    assert machine_zone_key(environ={"TZ": "EST+5"}, localtime=str(link)) == "Europe/London"
    assert machine_zone_key(environ={"TZ": "../../etc/passwd"}, localtime=str(link)) == "Europe/London"


@needs_system_tzdata
def test_plain_localtime_file_is_read_when_no_key_is_known(tmp_path):
    copy = tmp_path / "localtime"
    copy.write_bytes(open("/usr/share/zoneinfo/America/New_York", "rb").read())
    zone = machine_zone(environ={}, localtime=str(copy))
    assert machine_zone_key(environ={}, localtime=str(copy)) == "localtime"
    winter = datetime(2024, 1, 15, 12, tzinfo=timezone.utc).astimezone(zone)
    summer = datetime(2024, 7, 15, 12, tzinfo=timezone.utc).astimezone(zone)
    assert winter.utcoffset() == timedelta(hours=-5)
    assert summer.utcoffset() == timedelta(hours=-4)


def test_nothing_usable_means_utc(tmp_path):
    missing = tmp_path / "nope"
    assert machine_zone_key(environ={}, localtime=str(missing)) == "UTC"
    assert machine_zone(environ={}, localtime=str(missing)).utcoffset(None) == timedelta(0)
    garbage = tmp_path / "garbage"
    garbage.write_bytes(b"not a tzif file")
    assert machine_zone_key(environ={}, localtime=str(garbage)) == "UTC"


def test_zone_label():
    assert zone_label("Asia/Kolkata") == "Asia/Kolkata"
    assert zone_label(None).startswith("local (")
    with pytest.raises(InvalidInput):
        zone_label("Nowhere/Land")


def test_module_exports_only_its_api():
    assert set(zones.__all__) == {"LOCAL", "resolve_zone", "zone_label", "machine_zone", "machine_zone_key"}
