"""Any engine that follows the wrapper contract (``docs/WRAPPER-CONTRACT.md``).

``<wrapper> --model M [--effort E] [--resume SESSION_ID]`` with the prompt on
stdin; JSON Lines events on stdout.  A wrapper whose catalog entry declares
``"interactive": true`` also runs the engine in the person's terminal:
``<wrapper> --interactive --model M [--effort E] [--resume SESSION_ID]`` (and
may write the engine's new session id to ``$HARNESS_SESSION_FILE``).  ``--model`` is required (an unpinned
engine silently runs whatever it defaults to).  The wrapper sources its own
``envFile``: nothing secret is ever passed to it, and a vault credential is
refused rather than guessed at.
"""

from __future__ import annotations

import os
from pathlib import Path

from openalice.core.errors import InvalidInput

from .base import Adapter, Capabilities

__all__ = ["WrapperAdapter"]


class WrapperAdapter(Adapter):
    wire_preference = ()

    def __init__(self, name: str, wrapper: os.PathLike | str, *, efforts: tuple[str, ...] | None = None,
                 models: tuple[str, ...] = (), health: bool = False, list_models: bool = False,
                 stream: str = "wrapper-jsonl", env_file: os.PathLike | str | None = None,
                 interactive: bool = False) -> None:
        path = Path(wrapper)
        if not path.is_absolute():
            raise InvalidInput(f"wrapper path of {name!r} must be absolute, not {str(wrapper)!r}",
                               field="wrapper", code="bad_wrapper")
        self.name = name
        self.wrapper = path
        self.models = tuple(models)
        self.health = health
        self.list_models = list_models
        self.env_file = Path(env_file) if env_file else None
        self.capabilities = Capabilities(headless=True, interactive=interactive, resume=True, efforts=efforts,
                                         wires=(), stream=stream, executable=str(path),
                                         prompt="stdin")

    def _build(self, *, mode, fields, access, model, effort, prompt, native_session_id, workspace, base_env,
               run_dir):
        if not model:
            raise InvalidInput(f"engine {self.name!r} needs a model (the wrapper contract requires "
                               "--model)", field="model", code="model_required")
        argv = [str(self.wrapper)] + (["--interactive"] if mode == "interactive" else []) + ["--model", model]
        if effort:
            argv += ["--effort", effort]
        if native_session_id:
            argv += ["--resume", native_session_id]
        # The wrapper sources its own env file (the contract's secret path):
        # tell it where, by path only; no secret value passes through us.
        env = {"HARNESS_ADAPTER_ID": self.name}
        if self.env_file is not None:
            env["HARNESS_ENV_FILE"] = str(self.env_file)
        if mode == "interactive":  # the terminal stays the engine's: no prompt on stdin
            return argv, env, {}, None, []
        return argv, env, {}, prompt.encode("utf-8"), []

    def describe(self) -> dict:
        return {"name": self.name, "kind": "wrapper", "wrapper": str(self.wrapper),
                "capabilities": self.capabilities.to_dict(), "models": list(self.models)}
