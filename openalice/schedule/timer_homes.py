"""Which home each installed timer scans, and whether it marks its scans.

``install-timer`` writes one definition per kind (a crontab line, a systemd
unit, a launchd plist), each carrying ``OPENALICE_HOME`` when it was set and
``OPENALICE_SCAN_TIMER=<kind>`` (:data:`.fastpath.TIMER_VAR`).  A timer is
*ours* only when the home it scans is this one: a crontab line another
``OPENALICE_HOME`` installed scans that home, not this one.  A definition
without the mark was written by an older version: its scans cannot be told
from manual ones.
"""

from __future__ import annotations

import os
import plistlib
import re
import shlex
from collections.abc import Mapping

from openalice.core import patterns

from . import timers
from .fastpath import TIMER_VAR

__all__ = ["survey", "definition_env"]

_ASSIGNMENT = patterns.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def _cron_env(line: str) -> dict[str, str]:
    try:
        words = shlex.split(line)
    except ValueError:
        return {}
    env = {}
    for word in words[5:]:          # after the five time fields: NAME=VALUE ... command
        if not _ASSIGNMENT.match(word):
            break
        name, _, value = word.partition("=")
        env[name] = value.replace("\\%", "%")
    return env


def _systemd_env(path: str) -> dict[str, str]:
    service = path[: -len(".timer")] + ".service" if path.endswith(".timer") else path
    try:
        text = open(service, encoding="utf-8").read()
    except OSError:
        return {}
    env = {}
    for line in text.splitlines():
        match = re.fullmatch(r'Environment="((?:[^"\\]|\\.)*)"', line.strip())
        if match:
            name, _, value = re.sub(r"\\(.)", r"\1", match.group(1)).partition("=")
            env[name] = value
    return env


def _launchd_env(path: str) -> dict[str, str]:
    try:
        with open(path, "rb") as handle:
            data = plistlib.load(handle)
    except (OSError, plistlib.InvalidFileException, ValueError):
        return {}
    env = data.get("EnvironmentVariables") if isinstance(data, dict) else None
    return {str(k): str(v) for k, v in env.items()} if isinstance(env, dict) else {}


def definition_env(found: Mapping[str, str]) -> dict[str, str]:
    """The environment an installed timer gives its scan (from the line or the file)."""
    if found["kind"] == "cron":
        return _cron_env(found.get("line", ""))
    if found["kind"] == "systemd":
        return _systemd_env(found["where"])
    return _launchd_env(found["where"])


def _real(path: str) -> str:
    return os.path.realpath(os.path.abspath(os.path.expanduser(path)))


def survey(environ: Mapping[str, str] | None = None) -> list[dict]:
    """``timers.installed`` plus, per timer, ``home`` (the ``OPENALICE_HOME`` it
    scans), ``ours`` (that home is this one) and ``marks`` (it sets the mark)."""
    environ = os.environ if environ is None else environ
    here = _real(str(timers.alice_home(environ)))
    default = str(timers.user_home(environ) / ".openalice")
    out = []
    for found in timers.installed(environ):
        env = definition_env(found)
        home = _real(env.get("OPENALICE_HOME") or default)
        out.append({"kind": found["kind"], "where": found["where"], "home": home, "ours": home == here,
                    "marks": env.get(TIMER_VAR) == found["kind"]})
    return out
