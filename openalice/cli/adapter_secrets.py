"""``harness-adapter set-secret|unset-secret``: the adapter env files (never a value on argv or output).

``set-secret ID [KEY] --from-vault SLUG`` copies a vault credential's key into the
adapter's env file inside the toolkit (:func:`openalice.adapters.vault_link.link`)."""

from __future__ import annotations

from openalice.core.errors import UsageError

from ._dispatch import Context, add_verb
from .adapter_verbs import adapter_descriptor, adapter_options, adopting_env_files, load_catalog_of

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    import argparse


def register(sub, common) -> None:
    opts = adapter_options(common)
    p = add_verb(sub, "set-secret", cmd_set_secret, common=opts,
                 help="store a secret in the adapter's env file; the value comes from stdin, a hidden "
                      "prompt or the vault (--from-vault), never the command line",
                 description="Write KEY='value' to the adapter's envFile (0600, in a 0700 directory), "
                             "the file its wrapper sources. The value is read from stdin ('-', one "
                             "trailing newline stripped) or a hidden prompt; it is never echoed, "
                             "logged or returned. Replacing a set key needs --force. With --from-vault "
                             "SLUG the value is the key of vault credential SLUG (alice credential), "
                             "read inside the toolkit; KEY defaults to the adapter's key for that "
                             "credential's vendor. The two stores stay separate: the vault feeds the "
                             "runs the scheduler starts, the env files feed the catalog wrappers.",
                 examples="  printf '%s' \"$KEY\" | harness-adapter set-secret claude ANTHROPIC_API_KEY -\n"
                          "  harness-adapter set-secret codex OPENAI_API_KEY          # hidden prompt\n"
                          "  harness-adapter set-secret codex OPENAI_API_KEY - --force < key.txt\n"
                          "  harness-adapter set-secret claude --from-vault anthro-1  # the key in the vault")
    p.add_argument("id", metavar="ID")
    # KEY and '-' in one list: KEY may be left out with --from-vault (and the quick parser
    # models one variable-length positional, not two optional ones).
    p.add_argument("words", metavar="KEY [-]", nargs="*",
                   help="the variable to set (optional with --from-vault), then '-' to read the value "
                        "from stdin")
    p.add_argument("--from-vault", metavar="SLUG", help="copy the key of this vault credential")
    p.add_argument("--force", action="store_true", help="replace a key that is already set")

    p = add_verb(sub, "unset-secret", cmd_unset_secret, common=opts,
                 help="remove a secret from the adapter's env file",
                 examples="  harness-adapter unset-secret claude ANTHROPIC_API_KEY")
    p.add_argument("id", metavar="ID")
    p.add_argument("key", metavar="KEY")
    for parser in sub.choices.values():
        parser.set_defaults(handler=adopting_env_files(parser.get_default("handler")))


def _refuse_argv_secret() -> None:
    # Checked first, and the value is never repeated: it is already in the shell history.
    raise UsageError("secrets are never taken from the command line; pass '-' and pipe the "
                     "value on stdin, or answer the hidden prompt", code="secret_in_argv",
                     details={"hint": "the value you typed may be in your shell history: rotate it"})


def _split_words(args: argparse.Namespace) -> None:
    words = list(args.words)
    if len(words) > 2 or (len(words) == 2 and words[1] != "-"):
        _refuse_argv_secret()
    args.key = words[0] if words and not (len(words) == 1 and words[0] == "-" and args.from_vault) else None
    args.source = words[1] if len(words) == 2 else ("-" if words == ["-"] and args.from_vault else None)


def cmd_set_secret(args: argparse.Namespace, ctx: Context) -> int:
    from openalice.adapters import envfile  # lazy: per verb
    from openalice.core import secrets

    _split_words(args)
    if args.from_vault is not None:
        return _from_vault(args, ctx)
    if args.key is None:
        raise UsageError("give KEY (or --from-vault SLUG)", field="KEY", code="usage")
    entry = load_catalog_of(args).require(args.id)
    path = envfile.check_settable(entry, args.key, force=args.force)
    if entry.env and args.key not in entry.env:
        ctx.warn(f"{args.key} is not one of the keys adapter '{entry.id}' declares "
                 f"({', '.join(entry.env)}); storing it anyway")
    value = secrets.read_secret(args.source, prompt=f"{args.key} for {entry.id} (hidden): ",
                                stdin=ctx.stdin)
    replaced = envfile.set_secret(entry, args.key, value, force=args.force)
    del value
    exposure = envfile.git_exposure(path)
    if exposure:
        ctx.warn(exposure)
    d = adapter_descriptor(args, ctx, entry.id)
    verb = "replaced" if replaced else "set"
    ctx.emit(d, lambda d: f"{args.key} {verb} for {entry.id} in {path} (mode 0600)")
    return 0


def _from_vault(args: argparse.Namespace, ctx: Context) -> int:
    from openalice.adapters import envfile, vault_link  # lazy: per verb

    if args.source == "-":
        raise UsageError("--from-vault reads the vault, not stdin: drop the '-'", code="usage")
    entry = load_catalog_of(args).require(args.id)
    if args.key is not None and entry.env and args.key not in entry.env:
        ctx.warn(f"{args.key} is not one of the keys adapter '{entry.id}' declares "
                 f"({', '.join(entry.env)}); storing it anyway")
    done = vault_link.link(entry, args.from_vault, args.key, force=args.force)
    for note in done["notes"]:
        ctx.warn(note)
    exposure = envfile.git_exposure(envfile.env_file_of(entry))
    if exposure:
        ctx.warn(exposure)
    d = adapter_descriptor(args, ctx, entry.id)
    d["linked"] = {k: done[k] for k in ("key", "credential", "vendor")}
    verb = "replaced" if done["replaced"] else "set"
    ctx.emit(d, lambda d: f"{done['key']} {verb} for {entry.id} in {done['envFile']} (mode 0600) from vault "
                          f"credential '{done['credential']}' ({done['vendor']}); the vault keeps its own copy")
    return 0


def cmd_unset_secret(args: argparse.Namespace, ctx: Context) -> int:
    from openalice.adapters import envfile  # lazy: per verb

    entry = load_catalog_of(args).require(args.id)
    removed = envfile.unset_secret(entry, args.key)
    if not removed:
        ctx.warn(f"{args.key} was not set for adapter '{entry.id}'")
    d = adapter_descriptor(args, ctx, entry.id)
    ctx.emit(d, lambda d: f"{args.key} {'removed from' if removed else 'not set in'} "
                          f"{d['envFile']}")
    return 0
