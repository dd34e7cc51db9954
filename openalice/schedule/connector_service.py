"""The service that runs ``alice connector run`` (``install-timer --connectors``):
a systemd user service or a launchd agent beside the scan's timer (docs/connectors.md)."""

from __future__ import annotations

import plistlib
from pathlib import Path

__all__ = ["CONNECTORS_UNIT", "CONNECTORS_LABEL", "connectors_service", "connectors_plist"]


CONNECTORS_UNIT = "openalice-connectors"
CONNECTORS_LABEL = "dev.openalice.connectors"


def _alice_command(command: list[str]) -> list[str]:
    """``alice`` beside the ``alice-schedule`` the timer runs (same install)."""
    last = Path(command[-1])
    return [*command[:-1], str(last.with_name("alice"))]


def connectors_service(command: list[str], env: dict[str, str]) -> str:
    """The systemd user service of ``alice connector run`` (docs/connectors.md)."""
    from .timers import systemd_environment, systemd_words  # lazy: timers imports this module

    environment = systemd_environment(env)
    alice = systemd_words(_alice_command(command))
    return ("[Unit]\nDescription=OpenAlice: deliver Inbox reports and talk to Telegram "
            "(alice connector run)\n\n[Service]\nType=simple\n" + environment
            + f"ExecStart={(alice + ' connector run').replace('%', '%%')}\n"
            "Restart=on-failure\nRestartSec=30\nKillSignal=SIGTERM\n\n"
            "[Install]\nWantedBy=default.target\n")


def connectors_plist(command: list[str], env: dict[str, str], log: Path) -> str:
    data = {"Label": CONNECTORS_LABEL, "ProgramArguments": [*_alice_command(command), "connector", "run"],
            "KeepAlive": True, "RunAtLoad": True, "EnvironmentVariables": dict(env),
            "StandardOutPath": str(log), "StandardErrorPath": str(log)}
    return plistlib.dumps(data, sort_keys=False).decode("utf-8")
