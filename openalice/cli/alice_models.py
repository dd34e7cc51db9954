"""``alice models list|show|refresh``: the offline model table and discovery cache."""

from __future__ import annotations

from ._dispatch import Context, add_verb

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    import argparse


def register(sub, common) -> None:
    group = sub.add_parser(
        "models", help="show model semantics (limits, reasoning, efforts)",
        description="The offline model table: per vendor and exact model id, the context window, "
                    "output limit and reasoning (mode, efforts, default). Unknown ids are valid "
                    "and simply have no semantics. Listing never waits on network discovery.",
        epilog="examples:\n  alice models list --vendor anthropic\n  alice models show gpt-5.6-sol\n")
    verbs = group.add_subparsers(dest="models_verb", metavar="VERB", required=True)

    p = add_verb(verbs, "list", cmd_list, common=common, help="list known models",
                 examples="  alice models list\n  alice models list --vendor openai --json")
    p.add_argument("--vendor", help="only this vendor")

    p = add_verb(verbs, "show", cmd_show, common=common, help="show one model id (exact match)",
                 examples="  alice models show deepseek-v4-pro\n"
                          "  alice models show anthropic/claude-opus-5 --vendor openrouter --json")
    p.add_argument("model", metavar="ID")
    p.add_argument("--vendor", help="look only at this vendor")

    p = add_verb(verbs, "refresh", cmd_refresh, common=common,
                 help="fetch a credential's (or a native login's) model list into the discovery cache",
                 description="With SLUG: the credential's endpoint lists its models (the key is sent "
                             "to that endpoint only). With --native AGENT: the agent CLI lists the "
                             "models of its own login (opencode, pi); no token is read and no vault "
                             "record is made. claude and codex cannot list theirs (exit 3).",
                 examples="  alice models refresh openrouter-1\n  alice models refresh ds-1 --force --json\n"
                          "  alice models refresh --native opencode")
    p.add_argument("credential", metavar="SLUG", nargs="?")
    p.add_argument("--native", metavar="AGENT", help="list the models of AGENT's native login instead")
    p.add_argument("--force", action="store_true", help="ignore the 24 h freshness")
    p.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for the endpoint (default 10)")


def _entry(sem) -> dict:
    # lazy: a verb's domain modules load only when that verb runs
    from openalice import models

    out = sem.to_dict()
    out["description"] = models.describe(sem)
    return out


def cmd_list(args: argparse.Namespace, ctx: Context) -> int:
    # lazy: a verb's domain modules load only when that verb runs
    from openalice import credentials, models
    from openalice.core.errors import AliceError
    from openalice.core.output import table
    from openalice.credentials import catalog

    items = [_entry(sem) for sem in models.list_models(args.vendor)]
    discovered = []
    try:
        for rec in credentials.list_records():
            if args.vendor and rec["vendor"] != args.vendor:
                continue
            view = catalog.cached_models(rec["slug"], now=ctx.now())
            if view["models"]:
                discovered.append({"credential": rec["slug"], "vendor": rec["vendor"],
                                   "fetchedAt": view["fetchedAt"], "fresh": view["fresh"],
                                   "models": [m["id"] for m in view["models"]]})
    except AliceError as err:
        ctx.warn(f"discovered models not shown: {err}")

    def human(data: dict) -> str:
        rows = [[m["vendor"], m["model"], m["description"]] for m in data["models"]]
        text = table(rows, ["VENDOR", "MODEL", "FACTS"])
        for d in data["discovered"]:
            state = "fresh" if d["fresh"] else "stale"
            text += (f"\n\ndiscovered via {d['credential']} ({state}, {d['fetchedAt']}): "
                     + ", ".join(d["models"][:50]) + (" ..." if len(d["models"]) > 50 else ""))
        return text

    ctx.emit({"models": items, "discovered": discovered}, human)
    return 0


def cmd_show(args: argparse.Namespace, ctx: Context) -> int:
    # lazy: a verb's domain modules load only when that verb runs
    from openalice import models
    from openalice.core.errors import InvalidInput

    if not args.model.strip():
        raise InvalidInput("the model id is empty", field="MODEL", code="empty_model",
                           details={"hint": "name a model: 'alice models show claude-sonnet-4-6'"})
    vendors = [args.vendor] if args.vendor else models.vendors()
    if args.vendor:
        models.vendor_info(args.vendor)
    matches = [_entry(sem) for v in vendors if (sem := models.resolve(v, args.model)) is not None]
    data = {"model": args.model.strip(), "known": bool(matches), "matches": matches}

    def human(d: dict) -> str:
        if not d["known"]:
            return (f"{d['model']}: unknown model. Free-typed ids are valid; no limits or reasoning "
                    "facts are known, so the engine decides.")
        lines = []
        for m in d["matches"]:
            lines.append(f"{m['vendor']}/{m['model']}: {m['description']}")
            for key in ("contextWindow", "maxOutputTokens", "sameAs"):
                if key in m:
                    lines.append(f"  {key}: {m[key]}")
            for key, value in m.get("reasoning", {}).items():
                lines.append(f"  reasoning.{key}: {', '.join(value) if isinstance(value, list) else value}")
        return "\n".join(lines)

    ctx.emit(data, human)
    return 0


def cmd_refresh(args: argparse.Namespace, ctx: Context) -> int:
    from functools import partial

    # lazy: a verb's domain modules load only when that verb runs
    from openalice.credentials import catalog

    if (args.credential is None) == (args.native is None):
        from openalice.core.errors import UsageError  # lazy: verb handler

        raise UsageError("name a credential SLUG or --native AGENT (one of them)", code="usage")
    if args.native is not None:
        return _refresh_native(args, ctx, catalog)
    result = catalog.refresh(args.credential, now=ctx.now(), force=args.force,
                             fetcher=partial(catalog.http_fetcher, timeout=args.timeout))
    data = {"credential": args.credential, "status": result["status"], "count": len(result["models"]),
            "fetchedAt": result.get("fetchedAt"), "models": [m["id"] for m in result["models"]]}
    if result.get("error"):
        data["reason"] = result["error"]

    def human(d: dict) -> str:
        line = f"{d['credential']}: {d['status']}, {d['count']} models"
        return line + (f" (kept the previous list; {d['reason']})" if d.get("reason") else "")

    ctx.emit(data, human)
    if result["status"] == "failed":
        ctx.failing("refresh_failed", f"could not list the models of {args.credential}: "
                                      f"{result.get('error') or 'the endpoint failed'}")
        return 3
    return 0


def _refresh_native(args: argparse.Namespace, ctx: Context, catalog) -> int:
    import os  # lazy: verb handler

    from openalice import agents  # lazy: verb handler
    from openalice.agents import native_models  # lazy: verb handler

    agents.get_adapter(args.native)  # an unknown agent is refused (exit 2)
    timeout = max(args.timeout, 30.0)  # a Node CLI's listing takes seconds
    result = catalog.refresh_native(args.native, now=ctx.now(), lister=lambda: native_models.list_models(
        args.native, os.environ, timeout=timeout))
    data = {"agent": args.native, "source": "native", "status": result["status"],
            "count": len(result["models"]), "fetchedAt": result["fetchedAt"],
            "models": [m["id"] for m in result["models"]]}

    def human(d: dict) -> str:
        return f"{d['agent']} (native login): {d['status']}, {d['count']} models\n" + "\n".join(
            f"  {m}" for m in d["models"][:50]) + ("\n  ..." if d["count"] > 50 else "")

    ctx.emit(data, human)
    return 0
