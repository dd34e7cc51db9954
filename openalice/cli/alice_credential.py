"""``alice credential add|list|remove|override``: the vault (secrets never on argv)."""

from __future__ import annotations

from ._dispatch import Context, add_verb

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    import argparse


def register(sub, common) -> None:
    group = sub.add_parser(
        "credential", help="add, list and remove provider credentials (vault)",
        description="Credentials live in $OPENALICE_HOME/vault/: a record without secrets, and the key in "
                    "a 0600 file. The key is read from stdin or a hidden prompt, never from the command "
                    "line, and is never printed. Without a credential, agents use their native login. "
                    "The vault feeds the runs the scheduler starts; the catalog wrappers of "
                    "harness-adapter read their own env files ($HARNESS_HOME/env/NAME.env) instead: "
                    "copy a vault key there with 'harness-adapter set-secret ID --from-vault SLUG'.",
        epilog="examples:\n  printf '%s' \"$KEY\" | alice credential add ds-1 --vendor deepseek\n"
               "  alice credential list\n")
    verbs = group.add_subparsers(dest="credential_verb", metavar="VERB", required=True)

    p = add_verb(verbs, "add", cmd_add, common=common,
                 help="store a credential; the key comes from stdin or a hidden prompt",
                 examples="  printf '%s' \"$ANTHROPIC_KEY\" | alice credential add anthropic-1 --vendor anthropic\n"
                          "  alice credential add proxy - --vendor custom --wire openai-chat "
                          "--base-url http://127.0.0.1:8080/v1   # '-': key on stdin\n"
                          "  alice credential add claude-sub --vendor anthropic --auth subscription")
    p.add_argument("slug", metavar="SLUG", help="name: 1-64 of a-z, 0-9, '-'")
    p.add_argument("key_source", metavar="-", nargs="?",
                   help="'-' (right after SLUG) reads the key from stdin, the default when stdin is not "
                        "a terminal; anything else is refused: keys never go on the command line")
    p.add_argument("--vendor", required=True, help="anthropic, openai, google, xai, minimax, glm, kimi, "
                                                   "deepseek, longcat, openrouter, cursor or custom")
    p.add_argument("--auth", default="api-key", choices=("api-key", "subscription"),
                   help="api-key (default) or subscription (an OAuth token, e.g. from 'claude setup-token')")
    p.add_argument("--base-url", help="endpoint base URL (default: the vendor's official endpoints)")
    p.add_argument("--wire", action="append", default=[], metavar="SHAPE[=URL]",
                   help="API shape the endpoint speaks (anthropic, google-generative-ai, openai-chat, "
                        "openai-responses); repeatable")
    p.add_argument("--label", help="a human name")
    p.add_argument("--model", help="the model to use when a session names none (lastModel)")
    p.add_argument("--replace", action="store_true", help="overwrite an existing credential of this slug")

    add_verb(verbs, "list", cmd_list, common=common, help="list credentials (presence of the key only)",
             examples="  alice credential list\n  alice credential list --json")

    p = add_verb(verbs, "remove", cmd_remove, common=common, help="delete a credential and its key",
                 examples="  alice credential remove ds-1")
    p.add_argument("slug", metavar="SLUG")

    p = add_verb(verbs, "override", cmd_override, common=common,
                 help="set facts for one exact model id the table does not know",
                 examples="  alice credential override proxy my-model --context-window 128000 --reasoning on\n"
                          "  alice credential override proxy my-model --clear")
    p.add_argument("slug", metavar="SLUG")
    p.add_argument("model", metavar="MODEL")
    p.add_argument("--context-window", type=int, help="context window in tokens")
    p.add_argument("--reasoning", choices=("on", "off"), help="whether the model reasons")
    p.add_argument("--clear", action="store_true", help="remove the override")


_LIST_HEADERS = ["SLUG", "VENDOR", "AUTH", "WIRES", "KEY", "LAST MODEL", "LABEL"]


def _record_cells(rec: dict) -> list[str]:
    wires = ", ".join(f"{shape}{'=' + url if url else ' (official)'}" for shape, url in rec["wires"].items())
    return [rec["slug"], rec["vendor"], rec["authType"], wires or "-",
            "stored" if rec.get("hasSecret") else "MISSING", rec.get("lastModel") or "-",
            rec.get("label") or "-"]


def _human_record(rec: dict) -> str:
    wires = ", ".join(f"{shape}{'=' + url if url else ' (official)'}" for shape, url in rec["wires"].items())
    parts = [rec["slug"], rec["vendor"], rec["authType"], wires or "-",
             "key stored" if rec.get("hasSecret") else "NO KEY"]
    if rec.get("lastModel"):
        parts.append(f"model {rec['lastModel']}")
    if rec.get("label"):
        parts.append(f"\"{rec['label']}\"")
    return "  ".join(parts)


def cmd_add(args: argparse.Namespace, ctx: Context) -> int:
    # lazy: a verb's domain modules load only when that verb runs
    from openalice import credentials, workspaces
    from openalice.core import secrets

    workspaces.authorize_write(workspaces.Caller.of_process(), None, scope="vault")
    credentials.check_slug(args.slug)
    secret = secrets.read_secret(args.key_source, prompt=f"Key for {args.slug} (hidden): ", stdin=ctx.stdin)
    rec = credentials.add(args.slug, vendor=args.vendor, secret=secret, auth_type=args.auth,
                          base_url=args.base_url, wire_specs=args.wire, label=args.label,
                          last_model=args.model, replace=args.replace, now=ctx.now())
    view = credentials.public_view(rec)
    links = _adapter_links(args.slug)
    ctx.emit({"credential": view}, lambda d: f"stored: {_human_record(d['credential'])}\n"
                                             + _stores_text(links, added=True))
    return 0


def _adapter_links(slug: str | None = None) -> list[dict]:
    from openalice.adapters import vault_link  # lazy: only a credential listing reads the adapter catalog

    return vault_link.adapter_links(slug=slug)


def _stores_text(links: list[dict], *, added: bool = False) -> str:
    """Where the other store is, what feeds what, and the links on offer."""
    # lazy: only a credential verb that reports the stores needs it
    from openalice.adapters import vault_link

    stores = vault_link.stores()
    lines = [f"secrets: the vault ({stores['vault']['path']}) feeds the runs the scheduler starts; the catalog "
             f"wrappers (harness-adapter) read their own env files ({stores['adapterEnvFiles']['path']}), "
             "not the vault."]
    for link in links:
        lines.append(f"  adapter {link['adapter']}: {link['key']} is not set in its env file; "
                     f"{'link this key' if added else 'link ' + repr(link['credential'])} with: {link['command']}")
    return "\n".join(lines)


def cmd_list(args: argparse.Namespace, ctx: Context) -> int:
    # lazy: a verb's domain modules load only when that verb runs
    from openalice import credentials
    from openalice.adapters import vault_link  # lazy: the other store's whereabouts

    items = [credentials.public_view(rec) for rec in credentials.list_records()]
    links = _adapter_links() if items else []

    def human(d: dict) -> str:
        # lazy: a verb's domain modules load only when that verb runs
        from openalice.core.output import table

        if not d["credentials"]:
            return "no credentials (agents use their native login)\n" + _stores_text([])
        return table([_record_cells(r) for r in d["credentials"]], _LIST_HEADERS) + "\n" + _stores_text(links)

    ctx.emit({"credentials": items, "secretStores": vault_link.stores(), "adapterLinks": links}, human)
    return 0


def cmd_remove(args: argparse.Namespace, ctx: Context) -> int:
    # lazy: a verb's domain modules load only when that verb runs
    from openalice import credentials, workspaces

    workspaces.authorize_write(workspaces.Caller.of_process(), None, scope="vault")
    rec = credentials.remove(args.slug)
    ctx.emit({"credential": {k: rec[k] for k in ("slug", "vendor", "authType")}, "removed": True},
             lambda d: f"removed: {args.slug} (sessions bound to it will report credential_not_found)")
    return 0


def cmd_override(args: argparse.Namespace, ctx: Context) -> int:
    # lazy: a verb's domain modules load only when that verb runs
    from openalice import credentials, workspaces

    workspaces.authorize_write(workspaces.Caller.of_process(), None, scope="vault")
    reasoning = None if args.reasoning is None else args.reasoning == "on"
    rec = credentials.set_model_override(args.slug, args.model, context_window=args.context_window,
                                         reasoning=reasoning, clear=args.clear, now=ctx.now())
    view = credentials.public_view(rec)
    ctx.emit({"credential": view},
             lambda d: f"{args.slug}: overrides {d['credential'].get('modelOverrides', {}) or 'none'}")
    return 0
