"""``alice serve``: the local web gateway and page (openalice.gateway)."""

from __future__ import annotations

import argparse
import json
import os

from ._dispatch import Context, add_verb, int_in_range


def register(sub, common) -> None:
    p = add_verb(
        sub, "serve", cmd_serve, common=common,
        help="serve the local web page: inbox, issues, runs, journal and adapters",
        description="Start the web gateway on a loopback address. The first line on stdout is "
                    "the URL to open; it carries a random token that the page exchanges for a "
                    "cookie (scripts send 'Authorization: Bearer TOKEN'). Every API route runs "
                    "the matching CLI verb with --json. Ctrl-C (SIGINT) or SIGTERM stops it. "
                    "With --json the first line is one JSON document {url, host, port, pid}. "
                    "See docs/web.md.",
        examples="  alice serve\n  alice serve --port 8765 --open\n  alice serve --port 0 --json\n"
                 "  alice serve --host 0.0.0.0 --allow-remote   # prints a warning")
    p.add_argument("--port", type=int_in_range(0, 65535, "0 picks a free port"), default=8765,
                   help="the port (default 8765; 0 picks a free one)")
    p.add_argument("--host", default="127.0.0.1",
                   help="the address to listen on (default 127.0.0.1; loopback only unless "
                        "--allow-remote)")
    p.add_argument("--allow-remote", action="store_true",
                   help="allow a non-loopback --host (the token is then the only protection)")
    p.add_argument("--open", action="store_true",
                   help="open the page in the default browser (with a one-time code, never the "
                        "token: a browser's command line is readable by every local user)")


def cmd_serve(args: argparse.Namespace, ctx: Context) -> int:
    from openalice.gateway import Gateway  # lazy: per verb, so start-up and --help load no domain module

    gateway = Gateway(host=args.host, port=args.port, allow_remote=args.allow_remote,
                      log=ctx.stderr)

    def ready() -> None:
        if ctx.json:
            ctx.stdout.write(json.dumps({"url": gateway.url, "host": gateway.host,
                                         "port": gateway.port, "pid": os.getpid()}) + "\n")
        else:
            ctx.stdout.write(gateway.url + "\n")
        ctx.stdout.flush()
        if gateway.remote:
            ctx.warn(f"listening on {args.host}, which is not a loopback address: anyone who can "
                     "reach it and learns the token can read your inbox and change your issues")
        if args.open:
            import webbrowser  # lazy: only --open starts a browser

            # Never the token: a command line (the browser's, xdg-open's) is readable by every
            # local user. The browser gets a code that works once, for a minute.
            if not webbrowser.open(gateway.one_time_url()):
                ctx.warn("could not open a browser; open the URL above by hand")

    return gateway.serve_until_signalled(on_ready=ready)
