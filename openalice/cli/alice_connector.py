"""``alice connector add|list|show|remove|enable|disable|test|deliver|run``."""

from __future__ import annotations

from ._dispatch import Context, add_verb

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    import argparse

KINDS = ("telegram", "webhook", "email", "desktop")


def register(sub, common) -> None:
    group = sub.add_parser(
        "connector", help="deliver Inbox reports to Telegram, webhooks, e-mail, the desktop",
        description="Connectors deliver every new Inbox entry where the person is, and a Telegram "
                    "chat talks to the workspace. Records in $OPENALICE_HOME/connectors/ hold no "
                    "secret; the bot token, signing secret or SMTP password is read from stdin "
                    "and kept in the vault (0600). See docs/connectors.md.",
        epilog="examples:\n  printf '%s' \"$BOT_TOKEN\" | alice connector add telegram phone "
               "--chat-id 123456789 --workspace notes\n  alice connector test phone\n"
               "  alice connector list\n")
    verbs = group.add_subparsers(dest="connector_verb", metavar="VERB", required=True)

    p = add_verb(verbs, "add", cmd_add, common=common,
                 help="add a connector (its secret, if any, on stdin)",
                 examples="  printf '%s' \"$BOT_TOKEN\" | alice connector add telegram phone "
                          "--chat-id 123456789 --workspace notes\n"
                          "  alice connector add webhook ops --url https://hooks.example.com/x "
                          "--format slack\n"
                          "  printf '%s' \"$SIGNING\" | alice connector add webhook ci --url "
                          "https://ci.example.com/hook --sign\n"
                          "  printf '%s' \"$SMTP_PW\" | alice connector add email mail --smtp "
                          "smtp.example.com:587 --from alice@example.com --to me@example.com "
                          "--user alice\n"
                          "  alice connector add desktop bell")
    p.add_argument("kind", metavar="KIND", choices=KINDS, help="telegram, webhook, email or desktop")
    p.add_argument("name", metavar="NAME", help="1-64 of a-z, 0-9, '-'")
    p.add_argument("--workspace", action="append", default=[], metavar="W",
                   help="deliver only this workspace's entries (repeatable; default: every "
                        "workspace). A Telegram connector's first workspace is the chat's")
    p.add_argument("--chat-id", action="append", default=[], metavar="ID",
                   help="telegram: a chat id allowed to receive and to write (repeatable)")
    p.add_argument("--api-base", metavar="URL",
                   help="telegram: a self-hosted Bot API server (default https://api.telegram.org)")
    p.add_argument("--url", metavar="URL", help="webhook: where to POST")
    p.add_argument("--format", choices=("json", "slack", "discord"), help="webhook: the document")
    p.add_argument("--sign", action="store_true",
                   help="webhook: read a signing secret from stdin and sign every request")
    p.add_argument("--smtp", metavar="HOST[:PORT]", help="email: the SMTP server")
    p.add_argument("--from", dest="sender", metavar="ADDR", help="email: the sender")
    p.add_argument("--to", action="append", default=[], metavar="ADDR",
                   help="email: a recipient (repeatable)")
    p.add_argument("--starttls", action="store_true", help="email: STARTTLS (the default)")
    p.add_argument("--ssl", action="store_true", help="email: SMTP over TLS (port 465)")
    p.add_argument("--user", metavar="U", help="email: log in as U (password on stdin)")
    p.add_argument("--skip-silent", action="store_true",
                   help="skip entries marked [[no-reply]]")
    p.add_argument("--backfill", action="store_true",
                   help="deliver the entries already in the Inbox too (default: only new ones)")
    p.add_argument("--replace", action="store_true", help="replace a connector of this name")

    add_verb(verbs, "list", cmd_list, common=common, help="list connectors and their delivery state",
             examples="  alice connector list\n  alice connector list --json")
    for verb, handler, text in (
            ("show", cmd_show, "one connector: its record and delivery state"),
            ("remove", cmd_remove, "remove a connector, its secret and its delivery state"),
            ("enable", cmd_enable, "deliver again (entries that arrived meanwhile are sent)"),
            ("disable", cmd_disable, "stop delivering (the cursor stays where it is)"),
            ("test", cmd_test, "send one test message now and say what the other side answered")):
        p = add_verb(verbs, verb, handler, common=common, help=text,
                     examples=f"  alice connector {verb} phone")
        p.add_argument("name", metavar="NAME")

    p = add_verb(verbs, "deliver", cmd_deliver, common=common,
                 help="send what is due now (every enabled connector, or the named ones)",
                 examples="  alice connector deliver\n  alice connector deliver phone --json\n"
                          "  alice connector deliver phone --retry-failed")
    p.add_argument("names", metavar="NAME", nargs="*")
    p.add_argument("--budget", type=float, default=None, metavar="S",
                   help="stop starting new sends after S seconds")
    p.add_argument("--retry-failed", action="store_true",
                   help="first put the entries given up on back in the queue (a fresh 24 hours)")

    p = add_verb(verbs, "run", cmd_run, common=common,
                 help="a foreground sender: deliver and long-poll Telegram until SIGTERM",
                 examples="  alice connector run\n  alice connector run phone --poll 25")
    p.add_argument("names", metavar="NAME", nargs="*")
    p.add_argument("--poll", type=int, default=25, metavar="S",
                   help="seconds a Telegram long poll (or an idle wait) lasts (1-50, default 25)")
    p.add_argument("--once", action="store_true", help="one round, then exit")


def _summary_line(rec: dict) -> str:
    d = rec.get("delivery") or {}
    flags = "" if rec["enabled"] else " (disabled)"
    where = ", ".join(rec["workspaces"]) or "every workspace"
    return (f"{rec['name']}  {rec['kind']}{flags}  {where}  sent {d.get('sent', 0)}, "
            f"pending {d.get('pending', 0)}, failed {d.get('failed', 0)}")


def cmd_add(args: argparse.Namespace, ctx: Context) -> int:
    # lazy: a verb's domain modules load only when that verb runs
    from openalice import workspaces
    from openalice.connectors import admin
    from openalice.core import secrets

    workspaces.authorize_write(workspaces.Caller.of_process(), None, scope="vault")
    rec = admin.build_record(
        args.kind, args.name, workspace_ids=[workspaces.get(w).id for w in args.workspace],
        skip_silent=args.skip_silent, chat_ids=args.chat_id, api_base=args.api_base, url=args.url,
        fmt=args.format, sign=args.sign, smtp=args.smtp, sender=args.sender, to=args.to,
        starttls=args.starttls, ssl=args.ssl, user=args.user)
    secret = None
    if admin.needs_secret(args.kind, sign=args.sign, user=args.user):
        what = {"telegram": "bot token", "webhook": "signing secret", "email": "SMTP password"}
        secret = secrets.read_secret(None, prompt=f"{what[args.kind]} for {args.name} (hidden): ",
                                     stdin=ctx.stdin)
    stored = admin.add(rec, secret=secret, backfill=args.backfill, replace=args.replace,
                       now=ctx.now())
    ctx.emit({"connector": stored},
             lambda d: f"added: {_summary_line(d['connector'])}\n"
                       f"next: alice connector test {d['connector']['name']}")
    return 0


def cmd_list(args: argparse.Namespace, ctx: Context) -> int:
    from openalice.connectors import admin  # lazy: per verb

    data = admin.listing()

    def human(d: dict) -> str:
        lines = [_summary_line(r) for r in d["connectors"]] or ["no connectors"]
        lines += [f"INVALID {p['file']}: {p['field']}: {p['message']}" for p in d["problems"]]
        return "\n".join(lines)

    ctx.emit(data, human)
    if data["problems"]:
        ctx.failing("invalid_connectors", f"{len(data['problems'])} connector file(s) cannot be read")
        return 2
    return 0


def cmd_show(args: argparse.Namespace, ctx: Context) -> int:
    from openalice.connectors import admin  # lazy: per verb

    data = admin.show(args.name)

    def human(d: dict) -> str:
        rec, delivery = d["connector"], d["connector"]["delivery"]
        lines = [_summary_line(rec), f"secret: {'stored' if rec['hasSecret'] else 'none'}"]
        for item in delivery.get("failedItems", []):
            lines.append(f"FAILED {item['id']}: {item['error']}")
        for item in delivery.get("queue", []):
            lines.append(f"pending {item['id']} (tries {item['tries']})"
                         + (f": {item['lastError']}" if item.get("lastError") else ""))
        return "\n".join(lines)

    ctx.emit(data, human)
    return 0


def cmd_remove(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import workspaces  # lazy: per verb
    from openalice.connectors import admin  # lazy: per verb

    workspaces.authorize_write(workspaces.Caller.of_process(), None, scope="vault")
    rec = admin.remove(args.name)
    ctx.emit({"connector": rec, "removed": True}, lambda d: f"removed: {args.name}")
    return 0


def _toggle(args, ctx: Context, enabled: bool) -> int:
    from openalice import workspaces  # lazy: per verb
    from openalice.connectors import admin  # lazy: per verb

    workspaces.authorize_write(workspaces.Caller.of_process(), None, scope="vault")
    rec = admin.set_enabled(args.name, enabled, now=ctx.now())
    ctx.emit({"connector": rec}, lambda d: _summary_line(d["connector"]))
    return 0


def cmd_enable(args: argparse.Namespace, ctx: Context) -> int:
    return _toggle(args, ctx, True)


def cmd_disable(args: argparse.Namespace, ctx: Context) -> int:
    return _toggle(args, ctx, False)


def cmd_test(args: argparse.Namespace, ctx: Context) -> int:
    from openalice.connectors import admin  # lazy: per verb

    data = admin.test(args.name, now=ctx.now())
    ctx.emit(data, lambda d: (f"{args.name}: ok: {d['answer']}" if d["ok"]
                              else f"{args.name}: FAILED: {d['answer']}"))
    if not data["ok"]:
        ctx.failing("send_failed", data["answer"])
        return 3
    return 0


def cmd_deliver(args: argparse.Namespace, ctx: Context) -> int:
    from openalice.connectors import admin  # lazy: per verb

    data = admin.deliver_now(args.names or None, now=ctx.now(), budget_s=args.budget,
                             retry=args.retry_failed)

    def human(d: dict) -> str:
        return "\n".join(admin.pass_line(r) for r in d["connectors"]) or "no connectors"

    ctx.emit(data, human)
    return 0


def cmd_run(args: argparse.Namespace, ctx: Context) -> int:
    from openalice.connectors import service  # lazy: per verb

    if not 1 <= args.poll <= 50:
        from openalice.core.errors import UsageError  # lazy: only a bad value

        raise UsageError("--poll must be 1-50 seconds", field="--poll", code="bad_poll")
    data = service.run(args.names or None, poll=args.poll, once=args.once, clock_now=ctx.now,
                       log=ctx.info)
    ctx.emit(data, lambda d: f"stopped after {d['rounds']} round(s): sent {d['sent']}, "
                             f"received {d['received']}")
    return 0
