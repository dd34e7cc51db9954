"""The check a workspace shim asks the real tool to make before it runs.

A shim in ``<workspace>/.alice/bin/`` runs the toolkit's tool with
``OPENALICE_SHIM_CONFIG`` naming the workspace's harness config.  The tool
(:func:`openalice.cli._run.run`) removes the variable (children never inherit
it) and calls :func:`refuse` with the command group it was asked for:

* allowed → ``None``, the command runs as usual;
* disabled → exit 4, naming the config key that disables it;
* the config is malformed → exit 2, naming the file and field (fail closed).

``--help`` and ``--version`` are never gated.
"""

from __future__ import annotations

import sys

from openalice.core import output
from openalice.core.errors import Forbidden, InvalidInput

from . import config

__all__ = ["SHIM_ENV", "refuse", "first_word"]

SHIM_ENV = "OPENALICE_SHIM_CONFIG"


def first_word(args: list[str]) -> str | None:
    for arg in args:
        if not arg.startswith("-"):
            return arg
    return None


def refuse(tool: str, args: list[str], config_path: str, *, json_mode: bool) -> int | None:
    """None if ``tool args`` may run under ``config_path``; else the exit code
    after printing the refusal (the JSON error envelope with ``--json``)."""
    if tool not in config.TOOL_GROUPS:
        return None
    group = first_word(args)
    if group is None or group == "help" or "-h" in args or "--help" in args:
        return None
    try:
        cfg = config.parse_file(config_path)
    except config.ConfigError as exc:
        err = InvalidInput(f"the workspace's harness config is malformed ({exc.reason}), so every "
                           f"{tool} command is refused", file=exc.file, field=exc.field,
                           code="harness_config_invalid",
                           details={"hint": "fix the file (see 'alice-harness config show')"})
        output.emit_error(err, json_mode=json_mode, prog=tool, stdout=sys.stdout, stderr=sys.stderr)
        return err.exit_code
    key = cfg.refusal(tool, group)
    if key is None:
        return None
    what = f"'{tool}'" if key.endswith(".enabled") else f"'{tool} {group}'"
    err = Forbidden(f"{what} is disabled in this workspace by {key}=false", file=config_path, field=key,
                    code="disabled_by_config",
                    details={"hint": f"a person can re-enable it: alice-harness config set {key}=true"})
    output.emit_error(err, json_mode=json_mode, prog=tool, stdout=sys.stdout, stderr=sys.stderr)
    return err.exit_code
