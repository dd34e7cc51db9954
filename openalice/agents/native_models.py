"""The models an agent CLI offers under its native login (the seed's
NativeAIProvider): bounded discovery by the CLI itself, never reading a token.

| CLI | command | output |
| --- | --- | --- |
| opencode | ``opencode models`` | one ``provider/model`` per line |
| pi | ``pi --list-models`` | a table ``provider model context ...`` ("No models available" without a login) |

claude and codex (pinned versions) have no such command: :func:`list_models`
refuses them (``cannot_list_models``, exit 3) and names ``--model``.  The
caller caches the ids (:func:`openalice.credentials.catalog.refresh_native`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from openalice.core import executables, patterns
from openalice.core.errors import Unavailable

__all__ = ["LISTERS", "list_models", "parse"]

LISTERS = {"opencode": ("models",), "pi": ("--list-models",)}
_ANSI = patterns.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_ID = patterns.compile(r"^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,255}$")


def parse(agent: str, text: str) -> list[str]:
    """Model ids from a listing (``provider/model``)."""
    ids: list[str] = []
    for raw in _ANSI.sub("", text).splitlines():
        line = raw.strip()
        if not line:
            continue
        if agent == "opencode":
            if "/" in line and _ID.match(line):
                ids.append(line)
        elif agent == "pi":
            cells = line.split()
            if len(cells) >= 2 and cells[:2] != ["provider", "model"] and _ID.match(cells[0]) \
                    and _ID.match(cells[1]):
                ids.append(f"{cells[0]}/{cells[1]}")
    return list(dict.fromkeys(ids))


def list_models(agent: str, env: Mapping[str, str], *, timeout: float = 30.0) -> list[str]:
    """Ask ``agent``'s CLI for its models (stopped after ``timeout`` seconds)."""
    if agent not in LISTERS:
        raise Unavailable(f"{agent} cannot list its models under native login (no listing command in the "
                          "pinned version); name a model with --model, or use a credential: "
                          "'alice models refresh SLUG'", code="cannot_list_models")

    from .login import run_bounded  # lazy: only a refresh runs the CLI

    exe = executables.which(agent, path=env.get("PATH", os.defpath))
    if exe is None:
        raise Unavailable(f"'{agent}' is not on PATH", code="agent_not_installed")
    command = f"'{agent} {' '.join(LISTERS[agent])}'"
    try:
        answered = run_bounded([exe, *LISTERS[agent]], env, timeout)
    except OSError as exc:
        raise Unavailable(f"cannot run {agent}: {exc.strerror or exc}", code="refresh_failed") from None
    if answered is None:
        raise Unavailable(f"{command} did not answer within {timeout:g} s", code="refresh_failed")
    code, out, err = answered
    if agent == "pi" and "no models available" in (out + err).lower():
        raise Unavailable("pi lists no models: it is not logged in to any provider (run `pi` and type "
                          "`/login`, or set a provider's API key variable)", code="not_logged_in")
    if code != 0:
        raise Unavailable(f"{command} exited {code}", code="refresh_failed")
    return parse(agent, out)
