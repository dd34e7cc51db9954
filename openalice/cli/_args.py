"""The common case of argument parsing without :mod:`argparse`.

A read verb that the web gateway or a script calls per request would spend
more time importing and building ``argparse`` parsers (and the ``gettext``,
``locale`` and ``shutil`` it pulls in while doing so) than on its own work.
So a verb's arguments are first parsed here, against the very same
declarations: each verb module's ``register(sub, common)`` runs against the
small recorder below, which accepts the part of the ``argparse`` API that the
toolkit's verbs use.

The rule that keeps the two parsers from ever disagreeing: :func:`parse`
either returns exactly the namespace ``argparse`` would return, or None, and
then :mod:`argparse` parses the same arguments (so help, usage errors and
every unusual form keep its behaviour and messages).  It answers only plain
command lines: long options (``--name value``, ``--name=value``), declared
short options, positionals, nested verbs.  It declines ``-h``/``--help``,
``--``, a value that starts with ``-``, anything unknown, a type conversion or
a choice that fails, a missing required argument, two options of a mutually
exclusive group, and any declaration it does not model.
``tests/cli/test_args.py`` checks it against ``argparse`` on every verb's
examples and on generated command lines.

This module imports nothing.
"""

from __future__ import annotations

__all__ = ["SUPPRESS", "Namespace", "parse", "type_error"]

#: The same value as ``argparse.SUPPRESS`` (help text that is not shown).
SUPPRESS = "==SUPPRESS=="

_ACTIONS = {None, "store", "store_true", "store_false", "store_const", "append"}
_KNOWN = {"action", "nargs", "type", "choices", "required", "default", "dest", "const",
          "metavar", "help"}


def type_error(message: str) -> Exception:
    """The error a ``type=`` function raises for a bad value
    (``argparse.ArgumentTypeError``, which argparse turns into a usage error)."""
    import argparse  # lazy: only a bad value needs it

    return argparse.ArgumentTypeError(message)


class Namespace:
    """What ``argparse.Namespace`` is to a handler: attributes, equality, repr."""

    def __init__(self, **kwargs: object) -> None:
        self.__dict__.update(kwargs)

    def __eq__(self, other: object) -> bool:
        return vars(self) == vars(other) if hasattr(other, "__dict__") else NotImplemented

    def __contains__(self, key: str) -> bool:
        return key in self.__dict__

    def __repr__(self) -> str:
        return "Namespace(" + ", ".join(f"{k}={v!r}" for k, v in sorted(vars(self).items())) + ")"


class _Unsupported(Exception):
    """A declaration this parser does not model: argparse parses."""


class _Action:
    __slots__ = ("option_strings", "dest", "kind", "nargs", "type", "choices", "required",
                 "default", "const")

    def __init__(self, names: tuple[str, ...], kw: dict) -> None:
        if set(kw) - _KNOWN or kw.get("action") not in _ACTIONS:
            raise _Unsupported
        self.option_strings = tuple(n for n in names if n.startswith("-"))
        if self.option_strings and len(self.option_strings) != len(names):
            raise _Unsupported
        kind = kw.get("action") or "store"
        self.kind = kind
        self.nargs = kw.get("nargs")
        if self.option_strings:
            if self.nargs is not None:
                raise _Unsupported
            long_names = [n for n in names if n.startswith("--")]
            dest = (long_names[0] if long_names else names[0]).lstrip("-").replace("-", "_")
        else:
            if len(names) != 1 or self.nargs not in (None, "?", "*", "+") or kind != "store":
                raise _Unsupported
            dest = names[0]
        self.dest = kw.get("dest", dest)
        self.type = kw.get("type")
        self.choices = kw.get("choices")
        self.required = bool(kw.get("required", False))
        self.const = kw.get("const")
        if kind == "store_true":
            default = kw.get("default", False)
        elif kind == "store_false":
            default = kw.get("default", True)
        else:
            default = kw.get("default")
        self.default = default
        if kind in ("store_true", "store_false", "store_const") and (
                self.type is not None or self.choices is not None):
            raise _Unsupported
        if self.nargs in ("*", "+") and self.choices is not None:
            raise _Unsupported

    def typed(self, text: str) -> object:
        """``argparse``'s ``_get_value``; raises _Decline where it would fail."""
        if self.type is None:
            return text
        try:
            return self.type(text)
        except Exception:
            raise _Decline from None

    def convert(self, text: str) -> object:
        """``_get_value`` then ``_check_value`` (the choices)."""
        value = self.typed(text)
        if self.choices is not None and value not in self.choices:
            raise _Decline
        return value


class _Decline(Exception):
    """This command line is for argparse."""


class RecordingParser:
    """The recorder: the part of ``ArgumentParser`` the verb modules call."""

    def __init__(self, parents: list | tuple = ()) -> None:
        self.actions: list[_Action] = []
        self.by_option: dict[str, _Action] = {}
        self.groups: list[tuple[bool, list[_Action]]] = []
        self.defaults: dict[str, object] = {}
        self.subparsers: _Subparsers | None = None
        for parent in parents:
            for action in parent.actions:
                self._add(action)
            self.groups.extend(parent.groups)
            self.defaults.update(parent.defaults)

    def _add(self, action: _Action) -> _Action:
        if not action.option_strings and any(
                not a.option_strings and a.nargs is not None for a in self.actions):
            # after a positional of variable length argparse shares the strings out by a
            # pattern match; this parser assigns them in order, so it does not model that
            raise _Unsupported
        for name in action.option_strings:
            if name in self.by_option:
                raise _Unsupported  # argparse would refuse the conflict
            self.by_option[name] = action
        self.actions.append(action)
        return action

    def add_argument(self, *names: str, **kw: object) -> _Action:
        return self._add(_Action(names, kw))

    def add_mutually_exclusive_group(self, *, required: bool = False) -> "_Group":
        group = _Group(self, required)
        self.groups.append((required, group.members))
        return group

    def set_defaults(self, **kw: object) -> None:
        self.defaults.update(kw)

    def get_default(self, dest: str) -> object:
        for action in self.actions:
            if action.dest == dest and action.default is not None:
                return action.default
        return self.defaults.get(dest)

    def add_subparsers(self, *, dest: str | None = None, metavar: str | None = None,
                       required: bool = False, **kw: object) -> "_Subparsers":
        if kw or self.subparsers is not None:
            raise _Unsupported
        self.subparsers = _Subparsers(dest, required)
        return self.subparsers


class _Group:
    def __init__(self, parser: RecordingParser, required: bool) -> None:
        self.parser = parser
        self.required = required
        self.members: list[_Action] = []

    def add_argument(self, *names: str, **kw: object) -> _Action:
        action = self.parser.add_argument(*names, **kw)
        if not action.option_strings or action.required:
            raise _Unsupported
        self.members.append(action)
        return action


class _Subparsers:
    def __init__(self, dest: str | None, required: bool) -> None:
        self.dest = dest
        self.required = required
        self.choices: dict[str, RecordingParser] = {}

    def add_parser(self, name: str, *, parents: list | tuple = (), help: str | None = None,
                   description: str | None = None, epilog: str | None = None,
                   formatter_class: object = None, **kw: object) -> RecordingParser:
        if kw:
            raise _Unsupported
        parser = RecordingParser(parents)
        self.choices[name] = parser
        return parser


def common_parent() -> RecordingParser:
    """The recorder's twin of ``_dispatch.common_parent``: every verb's ``--json``."""
    parent = RecordingParser()
    parent.add_argument("--json", action="store_true", help="print exactly one JSON document on stdout")
    return parent


def parse(register, args: list[str]) -> Namespace | None:
    """The namespace ``argparse`` would give for ``args`` of a tool whose verbs
    ``register(sub, common)`` declares, or None (then argparse must parse)."""
    for arg in args:
        if arg in ("-h", "--help", "--"):
            return None
    root = RecordingParser()
    root.add_argument("--json", action="store_true", help=SUPPRESS)
    sub = root.add_subparsers(dest="verb", metavar="COMMAND", required=True)
    try:
        register(sub, common_parent())
    except _Unsupported:
        return None
    try:
        values = _parse(root, list(args))
    except _Decline:
        return None
    return Namespace(**values)


def _parse(parser: RecordingParser, args: list[str]) -> dict:
    ns: dict[str, object] = {}
    for action in parser.actions:
        if action.default is not SUPPRESS:
            ns.setdefault(action.dest, action.default)
    for key, value in parser.defaults.items():
        ns.setdefault(key, value)
    seen: set[int] = set()
    given: dict[int, object] = {}
    positionals: list[tuple[int, str]] = []
    sub = parser.subparsers
    i = 0
    child: dict | None = None
    while i < len(args):
        arg = args[i]
        if arg.startswith("-") and arg != "-":
            name, eq, explicit = arg.partition("=") if arg.startswith("--") else (arg, "", "")
            action = parser.by_option.get(name)
            if action is None:
                raise _Decline
            if action.kind in ("store_true", "store_false", "store_const"):
                if eq:
                    raise _Decline
                value: object = {"store_true": True, "store_false": False}.get(action.kind,
                                                                               action.const)
                i += 1
            else:
                if eq:
                    text = explicit
                    i += 1
                else:
                    if i + 1 >= len(args):
                        raise _Decline
                    text = args[i + 1]
                    i += 2
                if text.startswith("-") and text != "-":
                    raise _Decline  # argparse's rules for dashed values are its own
                value = action.convert(text)
                if action.kind == "append":
                    previous = ns.get(action.dest)
                    value = (list(previous) if previous is not None else []) + [value]
            ns[action.dest] = value
            seen.add(id(action))
            given[id(action)] = value
            continue
        if sub is not None:
            chosen = sub.choices.get(arg)
            if chosen is None or positionals:
                raise _Decline
            if sub.dest is not None:
                ns[sub.dest] = arg
            child = _parse(chosen, args[i + 1:])
            break
        positionals.append((i, arg))
        i += 1
    if sub is not None and child is None and sub.required:
        raise _Decline
    _assign_positionals(parser, positionals, ns, seen)
    for action in parser.actions:
        if id(action) not in seen:
            if action.required:
                raise _Decline
            default = action.default
            if (isinstance(default, str) and default is not SUPPRESS and action.option_strings
                    and ns.get(action.dest) is default):
                ns[action.dest] = action.typed(default)
    for required, members in parser.groups:
        present = [a for a in members if id(a) in given and given[id(a)] is not a.default]
        if len(present) > 1 or (required and not present):
            raise _Decline
        if any(id(a) in given and given[id(a)] is a.default for a in members):
            raise _Decline
    if child is not None:
        ns.update(child)
    return ns


def _assign_positionals(parser: RecordingParser, positionals: list[tuple[int, str]], ns: dict,
                        seen: set[int]) -> None:
    actions = [a for a in parser.actions if not a.option_strings]
    if any(a.nargs in ("?", "*", "+") for a in actions) and positionals:
        first = positionals[0][0]
        if [p[0] for p in positionals] != list(range(first, first + len(positionals))):
            raise _Decline  # positionals split by options: argparse's matching is subtle
    texts = [p[1] for p in positionals]
    for action in actions:
        if action.nargs is None:
            if not texts:
                raise _Decline
            ns[action.dest] = action.convert(texts.pop(0))
        elif action.nargs == "?":
            if texts:
                ns[action.dest] = action.convert(texts.pop(0))
            else:
                value = action.default
                if isinstance(value, str):
                    value = action.convert(value)
                elif action.choices is not None and value not in action.choices:
                    raise _Decline
                ns[action.dest] = value
        else:  # "*" or "+"
            if action.nargs == "+" and not texts:
                raise _Decline
            values, texts = texts, []
            if values:
                ns[action.dest] = [action.convert(t) for t in values]
            else:
                ns[action.dest] = action.default if action.default is not None else []
        seen.add(id(action))
    if texts:
        raise _Decline
