"""The ``harness-adapter`` verbs: parse, call :mod:`openalice.adapters`, print.

Handlers import their domain modules themselves (lazy: only the verb that runs loads them).
``set-secret`` and ``unset-secret`` are :mod:`.adapter_secrets`."""

from __future__ import annotations

from openalice.core import patterns
from openalice.core.errors import UsageError

from ._args import type_error
from ._dispatch import Context, add_verb, shared_options

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    import argparse

_MAX_TIMEOUT = 600.0
_TIMEOUT_RE = patterns.compile(r"(\d+(?:\.\d+)?)(ms|s|m)?\Z")


def _timeout(text: str) -> float:
    match = _TIMEOUT_RE.match(text.strip())
    if not match:
        raise type_error(f"not a duration: {text!r} (seconds, e.g. 10, 2.5 or 30s)")
    value = float(match.group(1)) * {"ms": 0.001, "s": 1.0, "m": 60.0, None: 1.0}[match.group(2)]
    if not 0 < value <= _MAX_TIMEOUT:
        raise type_error(f"must be more than 0 and at most {_MAX_TIMEOUT:g} seconds")
    return value


def adapter_options(common):
    """The options every harness-adapter verb takes (on top of ``common``)."""
    opts = shared_options(common)
    opts.add_argument("--catalog", metavar="PATH",
                      help="the catalog file (default: $HARNESS_CATALOG, else the shipped "
                           "presets/adapters.json); relative wrapper and envFile paths resolve "
                           "against its directory")
    opts.add_argument("--timeout", metavar="S", type=_timeout, default=None,
                      help="bound each wrapper probe, in seconds (default 10)")
    return opts


def register(sub, common) -> None:
    opts = adapter_options(common)

    p = add_verb(sub, "list", cmd_list, common=opts,
                 help="list every adapter: catalog + this machine's state (+ live health with --probe)",
                 description="Print the effective descriptor of every catalog adapter. Health is "
                             "'unknown' unless --probe runs each declared '<wrapper> --health'. "
                             "With --json: the bare array of descriptors.",
                 examples="  harness-adapter list\n  harness-adapter list --probe --json\n"
                          "  harness-adapter list --catalog ./my-adapters.json")
    p.add_argument("--probe", action="store_true", help="run the health probes (bounded by --timeout)")

    p = add_verb(sub, "show", cmd_show, common=opts,
                 help="show one adapter's effective descriptor (secrets as set/missing only)",
                 examples="  harness-adapter show codex\n  harness-adapter show codex --probe --json")
    p.add_argument("id", metavar="ID")
    p.add_argument("--probe", action="store_true", help="run its health probe")

    for name, handler, text in (("enable", cmd_enable, "enable an adapter on this machine"),
                                ("disable", cmd_disable, "disable an adapter on this machine")):
        p = add_verb(sub, name, handler, common=opts, help=text,
                     description=f"{text[0].upper()}{text[1:]} ($HARNESS_HOME/adapters.json). "
                                 "Absent state means disabled.",
                     examples=f"  harness-adapter {name} codex\n  harness-adapter {name} codex --json")
        p.add_argument("id", metavar="ID")

    p = add_verb(sub, "set-models", cmd_set_models, common=opts,
                 help="narrow an adapter's models on this machine (a subset of the catalog's)",
                 examples="  harness-adapter set-models codex gpt-5-codex\n"
                          "  harness-adapter set-models codex --reset")
    p.add_argument("id", metavar="ID")
    p.add_argument("models", metavar="MODEL", nargs="*")
    p.add_argument("--reset", action="store_true", help="remove the narrowing (use the catalog's list)")

    p = add_verb(sub, "config", cmd_config, common=opts,
                 help="set or unset non-secret config keys; secret-looking keys are refused",
                 description="Set KEY=VALUE pairs in the adapter's machine config, or remove keys "
                             "with --unset. Keys that look like secrets (api_key, token, password, "
                             "...) and credential-shaped values are refused: use set-secret. "
                             "With no pairs, prints the descriptor.",
                 examples="  harness-adapter config opencode region=eu base_url=http://127.0.0.1:8080\n"
                          "  harness-adapter config opencode --unset region")
    p.add_argument("id", metavar="ID")
    p.add_argument("pairs", metavar="KEY=VALUE", nargs="*")
    p.add_argument("--unset", metavar="KEY", action="append", default=[], help="remove KEY (repeatable)")

    p = add_verb(sub, "health", cmd_health, common=opts,
                 help="probe adapters with '<wrapper> --health'; exit 3 if any is down",
                 description="Probe the named adapters, or every enabled one (--all: every one). "
                             "A wrapper whose catalog entry does not declare \"health\": true is "
                             "never run and reports 'unknown'. A probe that outlives --timeout is "
                             "killed and reported down. Results are never stored.",
                 examples="  harness-adapter health\n  harness-adapter health codex --timeout 5\n"
                          "  harness-adapter health --all --json")
    p.add_argument("ids", metavar="ID", nargs="*")
    p.add_argument("--all", action="store_true", help="probe every catalog adapter, enabled or not")

    p = add_verb(sub, "available-models", cmd_available_models, common=opts,
                 help="the adapter's full model list from '<wrapper> --list-models' (cached 24 h)",
                 description="Run the wrapper's --list-models (only if the catalog declares "
                             "listModels) and cache the result for 24 hours in "
                             "$HARNESS_HOME/adapters.cache.json. If a refresh fails the cached list "
                             "is returned marked stale; without listModels the curated catalog "
                             "models are the list.",
                 examples="  harness-adapter available-models codex\n"
                          "  harness-adapter available-models codex --refresh --json")
    p.add_argument("id", metavar="ID")
    p.add_argument("--refresh", action="store_true", help="ignore a fresh cache and ask the wrapper")

    p = add_verb(sub, "validate", cmd_validate, common=opts,
                 help="check presets and run-configs against their schemas and the catalog",
                 description="The same check as 'python presets/_validate.py': every binding's "
                             "wrapper must be a catalog adapter, its model in that adapter's models "
                             "and (unless --catalog-only) the adapter enabled on this machine. "
                             "Exit 2 when anything fails.",
                 examples="  harness-adapter validate\n  harness-adapter validate presets/pair.json --json\n"
                          "  harness-adapter validate --catalog-only        # CI: ignore this machine")
    p.add_argument("files", metavar="FILE", nargs="*",
                   help="files or directories (default: every *.json beside the catalog)")
    p.add_argument("--catalog-only", action="store_true",
                   help="skip this machine's enabled flags and model narrowing")
    for parser in sub.choices.values():
        parser.set_defaults(handler=adopting_env_files(parser.get_default("handler")))


# -- helpers ----------------------------------------------------------------

def adopting_env_files(handler):
    """Before any verb: env files an older version wrote beside the shipped
    wrappers move to $HARNESS_HOME/env/, with a notice on stderr."""
    def run(args: argparse.Namespace, ctx: Context):
        from openalice.adapters import envfile  # lazy: per verb
        from openalice.core.errors import AliceError

        try:
            catalog = load_catalog_of(args)
        except AliceError:
            catalog = None  # the verb itself reports a broken catalog
        if catalog is not None:
            for notice in envfile.adopt_legacy_env_files(catalog):
                ctx.info(f"{ctx.prog}: notice: {notice}")
        return handler(args, ctx)

    return run


def _timeout_of(args) -> float:
    from openalice.adapters.invoke import DEFAULT_TIMEOUT  # lazy: per verb

    return args.timeout if args.timeout is not None else DEFAULT_TIMEOUT


def load_catalog_of(args):
    from openalice.adapters.catalog import load_catalog  # lazy: per verb

    return load_catalog(args.catalog)


def adapter_descriptor(args, ctx: Context, adapter_id: str, *, probe: bool = False) -> dict:
    from openalice import adapters  # lazy: per verb

    warnings: list[str] = []
    out = adapters.describe([adapter_id], catalog_path=args.catalog, probe=probe,
                            timeout=_timeout_of(args), now=ctx.now(), warnings=warnings)[0]
    for message in warnings:
        ctx.warn(message)
    return out


def _human_descriptor(d: dict) -> str:
    title = d["id"] + (f" ({d['label']})" if d.get("label") else "")
    lines = [f"{title}: {'enabled' if d['enabled'] else 'disabled'}"]
    health = d["health"] + (f" - {d['healthDetail']}" if d.get("healthDetail") else "")
    lines.append(f"  health:     {health}")
    narrowed = d["models"] != d["catalogModels"]
    lines.append(f"  models:     {', '.join(d['models']) or '(none)'}"
                 + ("  (narrowed on this machine)" if narrowed else ""))
    if narrowed:
        lines.append(f"  catalog:    {', '.join(d['catalogModels'])}")
    if "availableModels" in d:
        shown = d["availableModels"]
        more = f" ... ({len(shown)} in all)" if len(shown) > 12 else ""
        lines.append(f"  available:  {', '.join(shown[:12])}{more}")
    config = ", ".join(f"{k}={v}" for k, v in d["config"].items())
    lines.append(f"  config:     {config or '(none)'}")
    secrets = ", ".join(f"{k}: {v}" for k, v in d["secrets"].items())
    lines.append(f"  secrets:    {secrets or '(none)'}")
    lines.append(f"  kind:       {d['kind']}")
    lines.append(f"  wrapper:    {d['wrapper']}")
    lines.append(f"  envFile:    {d['envFile'] or '(none)'}")
    return "\n".join(lines)


def _human_list(items: list) -> str:
    from openalice.core.output import table  # lazy: per verb

    if not items:
        return "the catalog has no adapters"
    rows = []
    for d in items:
        secrets = d["secrets"]
        missing = [k for k, v in secrets.items() if v == "missing"]
        secret_text = "-" if not secrets else ("missing " + ",".join(missing) if missing else "set")
        rows.append([d["id"], d["kind"], "yes" if d["enabled"] else "no", d["health"],
                     ", ".join(d["models"]) or "(none)", secret_text])
    text = table(rows, ["ID", "KIND", "ENABLED", "HEALTH", "MODELS", "SECRETS"])
    details = [f"  {d['id']}: {d['healthDetail']}" for d in items
               if d["health"] == "down" and d.get("healthDetail")]
    return text + ("\n" + "\n".join(details) if details else "")


# -- verbs ------------------------------------------------------------------

def _with_vault_links(args, items: list) -> list:
    """Each descriptor's ``vaultLinks``: vault keys that could fill its missing secrets."""
    from openalice.adapters import vault_link  # lazy: per verb

    catalog = load_catalog_of(args)
    records = vault_link.linkable_credentials() if any(v == "missing" for d in items
                                                       for v in d["secrets"].values()) else []
    for d in items:
        d["vaultLinks"] = vault_link.suggestions(catalog.require(d["id"]), d["secrets"], records=records)
    return items


def _stores_text(items: list) -> str:
    """The two secret stores, what feeds what, and the links the vault offers."""
    from openalice.adapters import vault_link  # lazy: per verb

    stores = vault_link.stores()
    lines = [f"secrets: the adapter env files ({stores['adapterEnvFiles']['path']}, harness-adapter set-secret) "
             "feed the catalog wrappers;",
             f"  the vault ({stores['vault']['path']}, alice credential) feeds the runs the scheduler starts; "
             "neither reads the other."]
    for d in items:
        for link in d.get("vaultLinks", []):
            lines.append(f"  {d['id']}: {link['key']} is missing here, but the vault holds {link['vendor']} "
                         f"credential '{link['credential']}': link it with '{link['command']}'")
    return "\n".join(lines)


def cmd_list(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import adapters  # lazy: per verb

    warnings: list[str] = []
    items = adapters.describe(None, catalog_path=args.catalog, probe=args.probe,
                              timeout=_timeout_of(args), now=ctx.now(), warnings=warnings)
    for message in warnings:
        ctx.warn(message)
    ctx.emit(_with_vault_links(args, items), lambda d: _human_list(d) + ("\n" + _stores_text(d) if d else ""))
    return 0


def cmd_show(args: argparse.Namespace, ctx: Context) -> int:
    [d] = _with_vault_links(args, [adapter_descriptor(args, ctx, args.id, probe=args.probe)])
    ctx.emit(d, lambda d: _human_descriptor(d) + "\n" + _stores_text([d]))
    return 0


def _toggle(args: argparse.Namespace, ctx: Context, enabled: bool) -> int:
    from openalice.adapters import state  # lazy: per verb

    entry = load_catalog_of(args).require(args.id)
    state.set_enabled(entry.id, enabled)
    d = adapter_descriptor(args, ctx, entry.id)
    ctx.emit(d, lambda d: f"{d['id']}: {'enabled' if enabled else 'disabled'}")
    return 0


def cmd_enable(args: argparse.Namespace, ctx: Context) -> int:
    return _toggle(args, ctx, True)


def cmd_disable(args: argparse.Namespace, ctx: Context) -> int:
    return _toggle(args, ctx, False)


def cmd_set_models(args: argparse.Namespace, ctx: Context) -> int:
    from openalice.adapters import state  # lazy: per verb

    if args.reset and args.models:
        raise UsageError("give models or --reset, not both")
    if not args.reset and not args.models:
        raise UsageError("give at least one model, or --reset to use the catalog's list",
                         details={"hint": f"see 'harness-adapter show {args.id}' for the catalog models"})
    entry = load_catalog_of(args).require(args.id)
    state.set_model_allow(entry, None if args.reset else args.models)
    d = adapter_descriptor(args, ctx, entry.id)
    ctx.emit(d, lambda d: f"{d['id']}: models {', '.join(d['models'])}"
             + ("" if args.reset else " (narrowed on this machine)"))
    return 0


def cmd_config(args: argparse.Namespace, ctx: Context) -> int:
    from openalice.adapters import state  # lazy: per verb

    entry = load_catalog_of(args).require(args.id)
    values: dict[str, str] = {}
    for pair in args.pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"expected KEY=VALUE, got {pair.split('=')[0]!r}...", field="config")
        values[key] = value
    if values or args.unset:
        overlap = set(values) & set(args.unset)
        if overlap:
            raise UsageError(f"both set and unset: {', '.join(sorted(overlap))}")
        state.set_config(entry.id, values, args.unset)
    d = adapter_descriptor(args, ctx, entry.id)
    ctx.emit(d, lambda d: f"{d['id']} config: "
             + (", ".join(f"{k}={v}" for k, v in d["config"].items()) or "(none)"))
    return 0


def cmd_health(args: argparse.Namespace, ctx: Context) -> int:
    from openalice.adapters import state  # lazy: per verb
    from openalice.adapters.health import DOWN, probe_many

    catalog = load_catalog_of(args)
    if args.ids:
        if args.all:
            raise UsageError("give adapter ids or --all, not both")
        entries = [catalog.require(i) for i in dict.fromkeys(args.ids)]
    elif args.all:
        entries = list(catalog)
    else:
        states = state.load_state()
        entries = [e for e in catalog if states.get(e.id) and states[e.id].enabled]
        if not entries:
            ctx.info("no adapter is enabled on this machine; probe one by id, or all with --all")
    results = probe_many(entries, now=ctx.now(), timeout=_timeout_of(args))
    ok = not any(r.health == DOWN for r in results)
    data = {"adapters": [r.to_dict() for r in results], "ok": ok}

    def human(data: dict) -> str:
        from openalice.core.output import table  # lazy: per verb

        rows = [[r["id"], r["health"], f"{r['latencyMs']}ms" if "latencyMs" in r else "-",
                 r.get("detail", "")] for r in data["adapters"]]
        return table(rows, ["ID", "HEALTH", "LATENCY", "DETAIL"]) if rows else ""

    ctx.emit(data, human)
    if not ok:
        down = [r.id for r in results if r.health == DOWN]
        ctx.failing("adapter_down", f"down: {', '.join(down)}")
    return 0 if ok else 3


def cmd_available_models(args: argparse.Namespace, ctx: Context) -> int:
    from openalice.adapters.models import available_models  # lazy: per verb

    entry = load_catalog_of(args).require(args.id)
    result = available_models(entry, now=ctx.now(), refresh=args.refresh, timeout=_timeout_of(args))
    for message in result.warnings:
        ctx.warn(message)
    if result.stale:
        ctx.warn(f"refreshing the model list of '{entry.id}' failed ({result.detail}); "
                 f"returning the stale list fetched at {result.fetchedAt}")
    ctx.emit(result.to_dict(), lambda d: "\n".join(d["models"]))
    return 0


def cmd_validate(args: argparse.Namespace, ctx: Context) -> int:
    from openalice.adapters.validate import render, validate  # lazy: per verb

    report = validate(args.files, catalog_path=args.catalog, machine=not args.catalog_only)
    ctx.emit(report.to_dict(), lambda _d: render(report))
    if not report.valid:
        ctx.failing("invalid_bindings", f"{report.error_count} error(s) in {len(report.files)} file(s)")
    return 0 if report.valid else 2
