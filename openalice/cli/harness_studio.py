"""``alice-harness studio start|stop|restart|status|logs``: the workspace's supervised web surface."""

from __future__ import annotations

from openalice.core.errors import Unavailable, UsageError

from ._args import type_error
from ._dispatch import Context, add_verb, workspace_option

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    import argparse


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise type_error(f"not a number of seconds: {text!r}") from None
    if not (0 < value <= 3600):
        raise type_error("must be more than 0 and at most 3600 seconds")
    return value


def _launch_args(p) -> None:
    p.add_argument("--ready-timeout", metavar="S", type=_seconds, default=None,
                   help="seconds to wait for readinessPath to answer 2xx (default 60)")
    p.add_argument("--no-wait", action="store_true", help="return once the supervisor is started (phase starting)")
    _grace_arg(p)


def _grace_arg(p) -> None:
    p.add_argument("--grace", metavar="S", type=_seconds, default=None,
                   help="seconds between SIGTERM and SIGKILL when stopping a generation (default 4)")


def register(sub, common) -> None:
    group = sub.add_parser(
        "studio", help="start, stop, restart, inspect the workspace's Studio web surface",
        description="A Harness workspace declares its web app in harness.json (capabilities.studio). "
                    "'start' runs it supervised, on loopback ports it allocates, and once readinessPath "
                    "answers 2xx publishes an opaque host oa-surface-<24 hex>.localhost that "
                    "'alice-harness proxy' serves. State: $OPENALICE_HOME/state/studio/<workspace-id>/.",
        epilog="examples:\n  alice-harness studio start --workspace notes\n  alice-harness studio status --json\n"
               "  alice-harness studio logs\n  alice-harness studio stop\n")
    verbs = group.add_subparsers(dest="studio_verb", metavar="VERB", required=True)

    p = add_verb(verbs, "start", cmd_start, common=common,
                 help="start the Studio and wait until it is ready (exit 3 if it fails); idempotent",
                 examples="  alice-harness studio start\n  alice-harness studio start --ready-timeout 120\n"
                          "  alice-harness studio start --no-wait --json")
    workspace_option(p, from_run=False)
    _launch_args(p)

    p = add_verb(verbs, "stop", cmd_stop, common=common,
                 help="withdraw the route, then stop every process of the generation (TERM, grace, KILL)",
                 examples="  alice-harness studio stop\n  alice-harness studio stop --grace 1 --json")
    workspace_option(p, from_run=False)
    _grace_arg(p)

    p = add_verb(verbs, "restart", cmd_restart, common=common,
                 help="stop the current generation and start a new one (new ports, new host)",
                 examples="  alice-harness studio restart\n  alice-harness studio restart --json")
    workspace_option(p, from_run=False)
    _launch_args(p)

    p = add_verb(verbs, "status", cmd_status, common=common,
                 help="phase, generation, host, ports, pid and error of the Studio",
                 examples="  alice-harness studio status\n  alice-harness studio status --workspace notes --json")
    workspace_option(p, from_run=False)

    p = add_verb(verbs, "logs", cmd_logs, common=common,
                 help="the last 64 KiB of the Studio's output, redacted",
                 examples="  alice-harness studio logs\n  alice-harness studio logs --bytes 4096 --json")
    workspace_option(p, from_run=False)
    p.add_argument("--bytes", type=int, default=None, metavar="N", help="show at most N bytes (<= 65536)")


def _human_status(d: dict) -> str:
    line = f"studio {d['workspace']}: {d['phase']} (generation {d['generation']})"
    if d["phase"] == "ready":
        line += f"\n  host  {d['host']}"
        line += f"\n  url   {d['url']}" if d.get("url") else "\n  url   (start 'alice-harness proxy' to open it)"
    if d.get("pid"):
        line += f"\n  pid   {d['pid']} (process group), supervisor {d['supervisorPid']}"
    if d.get("ports"):
        line += "\n  ports " + ", ".join(f"{k}={v}" for k, v in d["ports"].items())
    if d.get("lastError"):
        line += f"\n  error {d['lastError']}"
    return line


def _options(args) -> dict:
    from openalice import studio  # lazy: per verb, so start-up and --help load no domain module

    options = {"grace": args.grace if getattr(args, "grace", None) is not None else studio.GRACE}
    if hasattr(args, "ready_timeout"):
        options["ready_timeout"] = args.ready_timeout if args.ready_timeout is not None else studio.READY_TIMEOUT
        options["wait"] = not args.no_wait
    return options


def _finish(view: dict, ctx: Context, waited: bool) -> int:
    """Print the status; a launch that did not get ready is an error (exit 3) carrying the status."""
    if view["phase"] == "failed" or (waited and view["phase"] != "ready"):
        raise Unavailable(view.get("lastError") or f"Studio did not become ready (it is {view['phase']})",
                          code=view.get("lastErrorCode") or "studio_not_ready", details={"status": view})
    ctx.emit(view, _human_status)
    return 0


def cmd_start(args: argparse.Namespace, ctx: Context) -> int:
    return _launch(args, ctx, "start")


def cmd_restart(args: argparse.Namespace, ctx: Context) -> int:
    return _launch(args, ctx, "restart")


def _launch(args: argparse.Namespace, ctx: Context, verb: str) -> int:
    from openalice import studio, workspaces  # lazy: per verb, so start-up and --help load no domain module

    ws = workspaces.resolve(args.workspace)
    options = _options(args)
    view = getattr(studio, verb)(ws, now=ctx.now(), **options)
    return _finish(view, ctx, options["wait"])


def cmd_stop(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import studio, workspaces  # lazy: per verb, so start-up and --help load no domain module

    ws = workspaces.resolve(args.workspace)
    view = studio.stop(ws, now=ctx.now(), **_options(args))
    ctx.emit(view, _human_status)
    return 0


def cmd_status(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import studio, workspaces  # lazy: per verb, so start-up and --help load no domain module

    ws = workspaces.resolve(args.workspace)
    ctx.emit(studio.status(ws, now=ctx.now()), _human_status)
    return 0


def cmd_logs(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import studio, workspaces  # lazy: per verb, so start-up and --help load no domain module

    if args.bytes is not None and not (1 <= args.bytes <= 65536):
        raise UsageError("--bytes must be between 1 and 65536", field="--bytes", code="usage")
    ws = workspaces.resolve(args.workspace)
    shown = studio.logs(ws, limit=args.bytes)

    def human(d: dict) -> str:
        head = "" if not d["truncated"] else f"[... older output in {d['file']} not shown]\n"
        return head + (d["text"].rstrip("\n") if d["text"] else "(no Studio output yet)")

    ctx.emit(shown, human)
    return 0
