"""The tool runner: static ``--help``/``--version``, then lazy dispatch, all
inside the one top-level error handler of the toolkit.

Every entry path goes through :func:`run`: the console scripts, the ``bin/``
launchers and ``python -m openalice`` call a tool's ``main``, which calls
:func:`run`; ``alice-schedule scan``'s nothing-due fast path is passed in as
``fast`` so it is guarded by the same handler.  :func:`run` decides once
whether ``--json`` was asked for (:func:`json_requested`) and turns whatever
escapes into an exit code: a handled error's envelope or message, a quiet
exit for a closed pipe, 130 for Ctrl-C, ``internal error`` for a bug.

Only ``sys`` and ``os`` are imported here; everything else waits until a verb
is actually run, or until something goes wrong.
"""

from __future__ import annotations

import os
import sys

from openalice import __version__

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from collections.abc import Callable

__all__ = ["Tool", "run", "json_requested", "debug_enabled", "shim_refusal", "EXIT_CODES",
           "exit_codes_help"]

#: What each exit code means (docs/conventions.md); every tool's --help ends with them.
EXIT_CODES = {0: "ok", 1: "operational failure", 2: "usage or invalid input", 3: "unavailable or busy",
              4: "forbidden"}


def exit_codes_help(notes: dict | None = None, *, codes: tuple = (0, 1, 2, 3, 4), indent: int = 12,
                    width: int = 78) -> str:
    """The ``exit codes:`` line(s) of a tool's ``--help``: each code with its
    meaning (``notes`` gives a tool's own wording for a code), wrapped at
    ``width`` between words but never between a code and its first word."""
    notes = notes or {}
    tokens: list[str] = []
    for position, code in enumerate(codes):
        first, *rest = notes.get(code, EXIT_CODES[code]).split(" ")
        words = [f"{code} {first}", *rest]
        if position < len(codes) - 1:
            words[-1] += ","
        tokens += words
    lines, line = [], "exit codes:"
    for token in tokens:
        if len(line) + 1 + len(token) <= width:
            line += " " + token
        else:
            lines.append(line)
            line = " " * indent + token
    return "\n".join([*lines, line])



class Tool:
    """A command-line tool.

    ``verbs`` maps each verb (or verb group) to the module that registers it
    with ``register(subparsers, common)``; the module is imported only when
    that verb is used.  (A plain class: ``dataclasses`` would cost more
    start-up time than everything else ``--help`` does.)
    """

    __slots__ = ("name", "help", "verbs")

    def __init__(self, name: str, help: str, verbs: dict[str, str] | None = None) -> None:
        self.name = name
        self.help = help
        self.verbs = dict(verbs or {})


def json_requested(args: list[str]) -> bool:
    """The one rule for ``--json``: asked for anywhere on the command line
    (``alice --json workspace list`` as well as ``alice workspace list
    --json``), except after a ``--`` that ends the options."""
    for arg in args:
        if arg == "--":
            return False
        if arg == "--json":
            return True
    return False


#: The collector's young-generation threshold in a tool process (CPython's default is 700).
YOUNG_THRESHOLD = 10_000


def run(tool: Tool, argv: list[str] | None = None, *,
        fast: Callable[[list[str], bool], int | None] | None = None) -> int:
    """Run ``tool`` with ``argv`` (default ``sys.argv[1:]``); the exit code.

    ``fast(args, json_mode)`` may answer before argparse is imported (None
    means "take the regular path").

    Without ``argv`` this is a tool process (a console script, a launcher,
    ``python -m openalice``), and its garbage collector is tuned for a short
    life: a read verb's start-up creates some 11,000 objects that live until
    the exit (modules, functions, classes), and the collector's 20-odd passes
    over them during the imports and its final passes at the exit found
    nothing to free: 13-19 % of `alice issue list`'s CPU.  So the young
    generation is collected every :data:`YOUNG_THRESHOLD` allocations instead
    of 700 (a long-running verb — the gateway, a supervisor, ``--follow`` —
    still collects), and what is alive when the verb returns is frozen
    (``gc.freeze``), so the exit does not walk it again; nothing is lost by
    that, as no state is ever left to a finalizer (every write is closed and
    synced where it is made).  In-process callers (the tests) keep their
    collector as it is."""
    if argv is not None:
        return _run(tool, list(argv), fast)
    import gc  # lazy: (built in) only a tool process tunes its collector

    gc.set_threshold(YOUNG_THRESHOLD, *gc.get_threshold()[1:])
    try:
        return _run(tool, sys.argv[1:], fast)
    finally:
        gc.freeze()


def _run(tool: Tool, args: list[str], fast) -> int:
    json_mode = json_requested(args)
    args = _take_no_color(args)
    try:
        if not args:
            sys.stderr.write(tool.help)
            return 2
        if args[0] in ("-h", "--help", "help") and len(args) == 1:
            sys.stdout.write(tool.help)
            return 0
        if sorted(args) in (["-V"], ["--version"], ["--json", "-V"], ["--json", "--version"]):
            if json_mode:  # spec/version.schema.json
                import json  # lazy: only --version --json needs it

                sys.stdout.write(json.dumps({"tool": tool.name, "version": __version__}) + "\n")
            else:
                sys.stdout.write(f"{tool.name} {__version__}\n")
            return 0
        refused = shim_refusal(tool.name, args, json_mode)
        if refused is not None:
            return refused
        if fast is not None:
            code = fast(args, json_mode)
            if code is not None:
                return code
        # lazy: start-up imports only sys and os; the rest waits until it is needed
        from . import _dispatch

        return _dispatch.dispatch(tool, args, json_mode=json_mode)
    except BaseException as exc:  # the one top-level handler: see fail()
        return fail(tool.name, exc, json_mode=json_mode)


def _take_no_color(args: list[str]) -> list[str]:
    """``--no-color`` anywhere before a ``--`` is ``NO_COLOR=1`` (docs/conventions.md):
    taken out here, so no verb declares it and every printer honours it."""
    if "--no-color" not in args:
        return args
    end = args.index("--") if "--" in args else len(args)
    if "--no-color" not in args[:end]:
        return args
    os.environ["NO_COLOR"] = "1"
    return [a for a in args[:end] if a != "--no-color"] + args[end:]


def shim_refusal(name: str, args: list[str], json_mode: bool) -> int | None:
    """Started through a workspace shim (``<ws>/.alice/bin/``): that
    workspace's harness config decides whether this command may run (before
    any fast path, so ``alice-schedule scan`` is gated too)."""
    shim_config = os.environ.pop("OPENALICE_SHIM_CONFIG", None)
    if shim_config is None:
        return None
    # lazy: start-up imports only sys and os; the rest waits until it is needed
    from openalice.harness.gate import refuse

    return refuse(name, args, shim_config, json_mode=json_mode)


def fail(prog: str, exc: BaseException, *, json_mode: bool) -> int:
    """The exit code for ``exc``, after telling the user (never a traceback
    unless ``OPENALICE_DEBUG`` is set)."""
    if isinstance(exc, SystemExit):  # argparse --help, or a deliberate exit
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    if isinstance(exc, KeyboardInterrupt):
        _write_stderr(f"{prog}: interrupted\n")
        return 130
    if isinstance(exc, BrokenPipeError):
        _silence_stdout()  # the reader went away (e.g. `| head`): stay quiet like other tools
        return 1
    # lazy: start-up imports only sys and os; the rest waits until it is needed
    from openalice.core import output
    from openalice.core.errors import AliceError, OperationalError

    err = exc if isinstance(exc, AliceError) else None
    if err is None and isinstance(exc, OSError):
        from openalice.core import fs  # lazy: only an OSError needs explaining

        err = fs.explain_os_error(exc)
    if err is None:
        if debug_enabled():
            import traceback  # lazy: only with OPENALICE_DEBUG

            traceback.print_exception(exc)
        err = OperationalError(f"internal error: {exc.__class__.__name__}: {exc}", code="internal",
                               details={"hint": "set OPENALICE_DEBUG=1 for a traceback"})
    try:
        output.emit_error(err, json_mode=json_mode, prog=prog)
    except BrokenPipeError:
        _silence_stdout()
    except OSError:
        pass  # nowhere left to report to; the exit code still says it
    return err.exit_code


def _write_stderr(text: str) -> None:
    try:
        sys.stderr.write(text)
    except (OSError, ValueError):
        pass


def _silence_stdout() -> None:
    """Point stdout at /dev/null so nothing (not even the interpreter's final
    flush) writes to a closed pipe again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def debug_enabled() -> bool:
    return bool(os.environ.get("OPENALICE_DEBUG"))
