"""``alice-harness proxy``: serve ready Studio surfaces on 127.0.0.1, routed by Host."""

from __future__ import annotations

from ._args import type_error
from ._dispatch import Context, add_verb

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    import argparse


def _port(text: str) -> int:
    if not text.isdigit() or not 0 <= int(text) <= 65535:
        raise type_error(f"not a port number: {text!r}")
    return int(text)


def register(sub, common) -> None:
    p = add_verb(
        sub, "proxy", cmd_proxy, common=common,
        help="serve ready Studio surfaces on 127.0.0.1 by Host header (runs until interrupted)",
        description="Routes http://oa-surface-<24 hex>.localhost:PORT/ to the ready generation that published "
                    "that host; unknown hosts get 404, a failing app 502. Binds 127.0.0.1 only. OpenAlice's own "
                    "cookies and headers and Authorization are never forwarded (the app's cookies are). "
                    "The first line on stdout says where it listens "
                    "(with --json: one JSON document); SIGINT or SIGTERM stops it.",
        examples="  alice-harness proxy                  # port 47331\n"
                 "  alice-harness proxy --port 0 --json  # any free port; the document names it\n"
                 "  curl http://$(alice-harness studio status --json | jq -r .host):47331/")
    p.add_argument("--port", type=_port, default=None, metavar="P", help="port on 127.0.0.1 (default 47331; 0: any)")
    p.add_argument("--workspace", metavar="PATH|ID",
                   help="serve only this workspace's surfaces (default: every workspace on this machine)")
    p.add_argument("--quiet", action="store_true", help="do not report upstream failures on stderr")


def cmd_proxy(args: argparse.Namespace, ctx: Context) -> int:
    import signal  # lazy: only the proxy verb needs signal handling
    import threading  # lazy: only the proxy verb starts threads

    from openalice.core import clock  # lazy: per verb, so start-up and --help load no domain module
    from openalice.studio import proxy  # lazy: per verb, so start-up and --help load no domain module

    workspace = None
    if args.workspace:
        from openalice import workspaces  # lazy: per verb, so start-up and --help load no domain module

        workspace = workspaces.resolve(args.workspace).id
    server = proxy.make_server(proxy.DEFAULT_PORT if args.port is None else args.port, workspace=workspace,
                               verbose=not args.quiet)
    stopping = threading.Event()

    def stop(_signum, _frame) -> None:
        if not stopping.is_set():
            stopping.set()
            threading.Thread(target=server.shutdown, daemon=True).start()

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, stop)
    proxy.record_running(server, clock.to_iso(ctx.now()))
    document = {"listening": True, "host": proxy.BIND_HOST, "port": server.port,
                "url": f"http://{proxy.BIND_HOST}:{server.port}/", "workspace": workspace,
                "hostPattern": f"oa-surface-<24 hex>.localhost:{server.port}"}
    if ctx.json:
        import json  # lazy: only --json output needs it

        # One compact line, flushed: a caller reads exactly one line to learn the port.
        ctx.stdout.write(json.dumps(document) + "\n")
    else:
        ctx.stdout.write(f"alice-harness proxy: serving Studio surfaces on {document['url']} "
                         f"(Host: {document['hostPattern']})\n")
    ctx.stdout.flush()
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
        proxy.forget_running()
    return 0
