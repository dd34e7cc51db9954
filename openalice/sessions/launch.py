"""Opening a session: its real CLI in the foreground, owning the terminal.

:func:`plan_open` projects the frozen binding for the interactive surface (the
same adapter projection a scheduled run uses, ``mode="interactive"``: the
process-local full-access and auto-approval flags on fresh launch and resume,
the workspace's shims first on ``PATH``, secrets only in the child's
environment), resumes the engine's own session when one is recorded, and names
a new one up front where the engine accepts that.  :func:`run_open` starts it,
records what becomes known (the native id, the last launch, the ``recent``
choice), journals ``session.opened``/``session.closed`` and returns the CLI's
exit status.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from openalice import agents
from openalice.core import executables, fs
from openalice.core.errors import AliceError, InvalidInput, Unavailable
from openalice.core.records import field, record_class

from . import native_ids
from .native import native_session_id, record_launch, record_native_session
from .resolve import remember_recent
from .store import load_session

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from datetime import datetime
    from typing import Any, Callable, Mapping, Sequence

__all__ = ["OpenPlan", "plan_open", "run_open", "describe_plan", "open_new", "chat_session", "private_run_dir",
           "POLL_SECONDS"]

POLL_SECONDS = 0.5           # how often a live finder looks for the engine's new session id


@record_class(frozen=True)
class OpenPlan:
    """One interactive launch of a session, ready to start."""

    resume_id: str
    agent: str
    surface: str                       # "interactive" (a workspace's session) or "manager"
    argv: list
    cwd: str
    native_id: str | None              # the engine's id: resumed, or given up front
    resumed: bool                      # True: the engine's own conversation continues
    secret_names: tuple                # variables of env that hold secrets (names only, for display)
    set_names: tuple                   # variables the toolkit sets or changes (names only)
    binding: Any = None                # the frozen SessionBinding it projects
    env: dict = field(repr=False, default_factory=dict)


def _workspace_path(home: Any) -> Path:
    return Path(home.root if hasattr(home, "root") else home)


def plan_open(home: Any, resume_id: str, *, surface: str = "interactive", cwd: os.PathLike | str | None = None,
              extra_args: Sequence[str] = (), run_env: Mapping[str, str] | None = None,
              base_env: Mapping[str, str] | None = None, run_dir: os.PathLike | str | None = None) -> OpenPlan:
    """The launch of session ``resume_id`` of ``home`` (a workspace, or the manager's home).

    Refused before anything starts: an agent with no interactive mode (exit 2,
    ``not_interactive``), a CLI not on ``PATH`` (exit 3, ``agent_missing``), a
    credential that is gone or has no key (exit 2/3, from the projection).
    """
    binding = load_session(home, resume_id)
    adapter = agents.get_adapter(binding.agent)
    adapter.check_mode("interactive")
    base = dict(os.environ if base_env is None else base_env)
    workdir = Path(cwd) if cwd is not None else _workspace_path(home)
    native = native_session_id(home, resume_id)
    extra = [str(a) for a in extra_args]
    for arg in extra:
        if "\x00" in arg:
            raise InvalidInput("an extra argument contains a NUL byte", field="EXTRA_ARGS", code="bad_argument")
    run_env = dict(run_env or {})
    if native is None and binding.agent not in agents.BUILTIN and run_dir is not None:
        # A catalog wrapper may tell the engine's new id through a file of the launch's own.
        session_file = Path(run_dir) / "native-session-id"
        session_file.unlink(missing_ok=True)
        run_env[native_ids.SESSION_FILE_VAR] = str(session_file)
    projection = adapter.project(binding, mode="interactive", native_session_id=native, workspace=workdir,
                                 run_env=run_env, base_env=base, run_dir=run_dir)
    argv = list(projection.argv)
    given = None
    if native is None and binding.agent in native_ids.UP_FRONT:
        given = native_ids.fresh_native_id()
        argv += [native_ids.UP_FRONT[binding.agent], given]
    argv += extra
    env = dict(projection.env)
    require_installed(binding.agent, argv[0], env.get("PATH"))
    changed = tuple(sorted(k for k, v in env.items() if base.get(k) != v))
    return OpenPlan(resume_id=resume_id, agent=binding.agent, surface=surface, argv=argv, cwd=str(workdir),
                    native_id=native or given, resumed=native is not None,
                    secret_names=tuple(projection.secret_names), set_names=changed, binding=binding, env=env)


def require_installed(agent: str, executable: str, path: str | None) -> str:
    """The CLI's path, or exit 3 ``agent_missing`` before anything is created or started."""
    found = executables.which(executable, path=path)
    if found is None:
        raise Unavailable(f"{agent} is not installed: {executable!r} is not on PATH", field="agent",
                          code="agent_missing",
                          details={"hint": f"install {executable} (docs/real-agents.md), or use another agent"})
    return found


def describe_plan(plan: OpenPlan) -> dict:
    """What ``open`` would run, secret-free: argv, cwd, and the variables it sets by name only."""
    return {"argv": list(plan.argv), "cwd": plan.cwd, "setsEnv": list(plan.set_names),
            "secretEnv": list(plan.secret_names), "nativeSessionId": plan.native_id, "resumes": plan.resumed}


def _journal(kind: str, payload: dict, now: datetime, warn: Callable[[str], None] | None) -> None:
    """A launch's fact; a journal that cannot be written never takes the person's session down."""
    from openalice import journal  # lazy: a launch's facts only

    try:
        journal.record(kind, payload, now=now)
    except (AliceError, OSError) as exc:
        if warn is not None:
            warn(f"{kind} was not journalled: {exc}")


def run_open(home: Any, plan: OpenPlan, *, now: Callable[[], datetime], workspace_id: str | None = None,
             warn: Callable[[str], None] | None = None) -> int:
    """Start ``plan`` in the foreground and wait; the CLI's exit status (128+N when killed by signal N).

    The terminal belongs to the CLI: this process ignores the keyboard's
    SIGINT/SIGQUIT while it waits (the CLI gets them), and passes SIGTERM and
    SIGHUP on.  A new engine session id is recorded as soon as it is known.
    """
    import subprocess  # lazy: only a launch spawns
    import threading  # lazy: only a launch watches for the engine's id

    started = now()
    payload: dict[str, Any] = {"resumeId": plan.resume_id, "agent": plan.agent, "surface": plan.surface,
                               "resumes": plan.resumed}
    if workspace_id:
        payload["workspaceId"] = workspace_id
    if plan.native_id:
        payload["nativeSessionId"] = plan.native_id
    if plan.native_id and not plan.resumed:
        record_native_session(home, plan.resume_id, plan.native_id, started)
    since = time.time() - 1.0
    finder = None if plan.native_id else native_ids.finder_for(plan.agent, plan.env)
    found: dict[str, str] = {}

    def look() -> None:
        if finder is None or found:
            return
        value = finder[0](plan.env, plan.argv, Path(plan.cwd), since)
        if value:
            try:
                record_native_session(home, plan.resume_id, value, now())
            except InvalidInput:
                return
            found["id"] = value

    try:
        child = subprocess.Popen(plan.argv, cwd=plan.cwd, env=plan.env)
    except OSError as exc:
        raise Unavailable(f"could not start {plan.argv[0]}: {exc.strerror or exc}", field="agent",
                          code="agent_missing") from None
    record_launch(home, plan.resume_id, surface=plan.surface, now=started)
    if plan.surface == "interactive" and plan.binding is not None:
        try:
            remember_recent(home, plan.binding, surface="interactive")
        except AliceError as exc:  # an invalid settings file is never overwritten; the launch goes on
            if warn is not None:
                warn(f"the recent choice was not recorded: {exc}")
    _journal("session.opened", payload, started, warn)
    stop = threading.Event()
    watcher = None
    if finder is not None and finder[1]:
        def watch() -> None:
            while not stop.wait(POLL_SECONDS) and not found:
                look()
        watcher = threading.Thread(target=watch, name="native-id", daemon=True)
        watcher.start()
    previous = {}
    for sig in (signal.SIGINT, signal.SIGQUIT):
        previous[sig] = signal.signal(sig, signal.SIG_IGN)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        previous[sig] = signal.signal(sig, lambda number, _frame: child.send_signal(number))
    try:
        code = child.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        stop.set()
        if watcher is not None:
            watcher.join(timeout=5)
    look()
    status = 128 - code if code < 0 else code
    ended = now()
    record_launch(home, plan.resume_id, surface=plan.surface, now=ended, exit_status=status)
    closed = {k: payload[k] for k in ("resumeId", "agent", "surface", "workspaceId") if k in payload}
    closed["exitStatus"] = status
    if found or plan.native_id:
        closed["nativeSessionId"] = found.get("id") or plan.native_id
    _journal("session.closed", closed, ended, warn)
    return status


def private_run_dir(state_root: os.PathLike | str, resume_id: str) -> Path:
    """A 0700 directory for what an engine must be given as a file (pi's ``models.json``, no key)."""
    return fs.ensure_dir(Path(state_root) / "sessions-open" / resume_id, 0o700)


def open_new(ws: Any, *, surface: str = "interactive", agent: str | None = None, credential: str | None = None,
             native_credential: bool = False, model: str | None = None, effort: str | None = None,
             display_name: str | None = None, now: datetime) -> Any:
    """A new session for ``alice session open --new``: explicit choices, then the workspace's
    interactive preferences (fixed, else recent), frozen with ``bornOn: interactive``."""
    from .resolve import resolve_binding  # lazy: only a new session resolves preferences
    from .store import create_session  # lazy: as above

    resolved = resolve_binding(ws, surface="interactive", agent=agent, credential=credential,
                               native_credential=native_credential, model=model, effort=effort)
    adapter = agents.get_adapter(resolved["agent"])
    adapter.check_mode("interactive")
    require_installed(resolved["agent"], adapter.capabilities.executable, os.environ.get("PATH"))
    return create_session(ws, agent=resolved["agent"], credential=resolved["credential"],
                          model=resolved.get("model"), effort=resolved.get("reasoningEffort"),
                          display_name=display_name, now=now, born_on=surface)


def chat_session(ws: Any, *, now: datetime) -> tuple[Any, bool]:
    """The workspace's default interactive session and whether it was created now.

    The default is what the settings' interactive default resolves to (fixed,
    else recent, else the first interactive agent): the most recently launched
    session born on the interactive surface with exactly that binding, or a
    new one on first use.  A changed default therefore starts a new chat; the
    old one stays openable by its id.
    """
    from .native import session_state  # lazy: only chat looks for its default session
    from .resolve import resolve_binding  # lazy: as above
    from .store import create_session, list_sessions, make_binding  # lazy: as above

    resolved = resolve_binding(ws, surface="interactive")
    wanted = make_binding(resume_id="resume-probe", agent=resolved["agent"], credential=resolved["credential"],
                          model=resolved.get("model"), effort=resolved.get("reasoningEffort")).runtime()
    found, _problems = list_sessions(ws)
    candidates = [b for b in found if b.born_on == "interactive" and b.runtime() == wanted]
    if candidates:
        def last(b: Any) -> str:
            return ((session_state(ws, b.resume_id).get("lastLaunch") or {}).get("at") or b.created_at or "")
        return max(candidates, key=last), False
    return create_session(ws, agent=resolved["agent"], credential=resolved["credential"],
                          model=resolved.get("model"), effort=resolved.get("reasoningEffort"),
                          now=now, born_on="interactive"), True
