"""Write-only secret files in POSIX-shell ``KEY='value'`` form.

Wrappers ``source`` these files, so the file *is* shell code: values are
single-quoted (a ``'`` becomes ``'\\''``), names are validated and NUL or
newline in a value is refused.  Files are born 0600 inside a 0700 directory
and replaced atomically; other lines are kept.  No function here returns a
value to be printed: :func:`env_file_keys` reports presence only, and
:func:`load_env_file` exists solely to inject secrets into a child process
environment.

No copy of a value outlives its file.  Every writer of an env file holds the
file's lock, so under that lock any temp file of it (``.tmp-<name>.*``) is
the leftover of a writer that was killed mid-write: :func:`set_env_var`,
:func:`unset_env_var` and :func:`remove_env_file` remove them at once,
whatever their age.  The write itself runs with SIGINT, SIGTERM, SIGHUP and
SIGQUIT held back, so those signals arrive after the temp file is either in
place or removed; only SIGKILL can leave one, for the next writer to remove.
"""

from __future__ import annotations

import getpass
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from openalice.core import patterns

from . import fs
from .errors import InvalidInput, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import TextIO

__all__ = [
    "NAME_RE", "validate_name", "quote_value", "set_env_var", "unset_env_var", "remove_env_file",
    "env_file_keys", "load_env_file", "read_secret", "check_secret", "looks_secret",
    "MAX_SECRET_BYTES",
]

#: The largest secret accepted (an API key is ~100 bytes; an OAuth token a few KiB).
MAX_SECRET_BYTES = 64 * 1024

NAME_RE = patterns.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_LINE_RE = patterns.compile(r"(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)\Z")
_SECRET_WORDS = ("key", "token", "secret", "password", "passwd", "credential", "auth",
                 "cookie", "session", "private")


def looks_secret(name: str) -> bool:
    """True for names such as ``api_key``, ``apiKey``, ``TOKEN``, ``password``."""
    lowered = re.sub(r"[^a-z]", "", name.lower())
    return any(word in lowered for word in _SECRET_WORDS)


def validate_name(name: str) -> str:
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise InvalidInput(f"invalid variable name {name!r}: use letters, digits and _ "
                           "(not starting with a digit)", field="KEY", code="bad_name")
    return name


def quote_value(value: str) -> str:
    if "\x00" in value:
        raise InvalidInput("secret value contains a NUL byte", field="value", code="bad_secret")
    if "\n" in value or "\r" in value:
        raise InvalidInput("secret value contains a newline", field="value", code="bad_secret")
    return "'" + value.replace("'", "'\\''") + "'"


def _unquote(raw: str) -> str | None:
    """Inverse of :func:`quote_value` for lines this module wrote; None if the
    line uses any other shell syntax (we never evaluate shell)."""
    out = []
    i = 0
    while i < len(raw):
        if raw[i] == "'":
            end = raw.find("'", i + 1)
            if end < 0:
                return None
            out.append(raw[i + 1:end])
            i = end + 1
        elif raw.startswith("\\'", i):
            out.append("'")
            i += 2
        else:
            return None
    return "".join(out)


def _read_lines(path: Path) -> list[str]:
    text = fs.read_text(path, missing="")
    return text.splitlines()


@contextmanager
def _signals_held() -> Iterator[None]:
    """Hold back the signals a person or a service manager sends while a
    secret is written, so they cannot end the process between the temp file
    and its rename (they are delivered when the block ends)."""
    import signal  # lazy: signal and threading cost start-up; only a secret write needs them
    import threading  # lazy: as signal

    if (not hasattr(signal, "pthread_sigmask")
            or threading.current_thread() is not threading.main_thread()):
        yield
        return
    held = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _drop_leftovers(target: Path) -> int:
    """Under the target's lock: remove every temp file of it (see the module docstring)."""
    return len(fs.sweep_temp_files(target.parent, older_than=0, target=target.name))


def _write(target: Path, text: str) -> None:
    with _signals_held():
        fs.atomic_write_text(target, text, mode=0o600, dir_mode=0o700)


def set_env_var(path: os.PathLike | str, name: str, value: str) -> bool:
    """Set ``name`` in the env file (atomic, 0600).  Returns True if it replaced a value."""
    validate_name(name)
    line = f"{name}={quote_value(value)}"
    target = Path(path)
    with fs.locked_file(target):
        _drop_leftovers(target)
        lines = _read_lines(target)
        replaced = False
        out = []
        for existing in lines:
            m = _LINE_RE.match(existing.strip())
            if m and m.group(1) == name:
                if not replaced:
                    out.append(line)
                replaced = True
            else:
                out.append(existing)
        if not replaced:
            out.append(line)
        _write(target, "\n".join(out) + "\n")
        return replaced


def unset_env_var(path: os.PathLike | str, name: str) -> bool:
    """Remove ``name`` from the env file; False if it was not set.  Temp files
    of the env file left by a killed writer (which may hold the value) go
    either way."""
    validate_name(name)
    target = Path(path)
    if not os.path.isdir(target.parent):
        return False
    with fs.locked_file(target):
        _drop_leftovers(target)
        lines = _read_lines(target)
        out = [l for l in lines if not ((m := _LINE_RE.match(l.strip())) and m.group(1) == name)]
        if len(out) == len(lines):
            return False
        _write(target, ("\n".join(out) + "\n") if out else "")
        return True


def remove_env_file(path: os.PathLike | str) -> bool:
    """Delete the env file and every temp file of it (under its lock); True
    if anything was there."""
    target = Path(path)
    if not os.path.isdir(target.parent):
        return False
    with fs.locked_file(target):
        left = _drop_leftovers(target)
        return fs.remove_file(target) or left > 0


def env_file_keys(path: os.PathLike | str) -> list[str]:
    """Names set in the env file (presence only, never values)."""
    names = []
    for line in _read_lines(Path(path)):
        m = _LINE_RE.match(line.strip())
        if m and m.group(1) not in names:
            names.append(m.group(1))
    return names


def load_env_file(path: os.PathLike | str) -> dict[str, str]:
    """Values for injection into a child environment only; never print them."""
    values: dict[str, str] = {}
    for line in _read_lines(Path(path)):
        m = _LINE_RE.match(line.strip())
        if not m:
            continue
        value = _unquote(m.group(2))
        if value is not None:
            values[m.group(1)] = value
    return values


def check_secret(value: object, *, field: str = "value") -> str:
    """The one check of a secret value before anything is written: a string,
    not blank, at most :data:`MAX_SECRET_BYTES` of UTF-8, no NUL or newline."""
    if not isinstance(value, str) or value == "":
        raise InvalidInput("empty secret", field=field, code="empty_secret")
    if not value.strip():
        raise InvalidInput("the secret is only whitespace", field=field, code="empty_secret")
    try:
        size = len(value.encode("utf-8"))
    except UnicodeEncodeError:
        raise InvalidInput("the secret is not valid UTF-8 text", field=field,
                           code="bad_secret") from None
    if size > MAX_SECRET_BYTES:
        raise InvalidInput(f"the secret is too large ({size} bytes; at most {MAX_SECRET_BYTES})",
                           field=field, code="too_large")
    quote_value(value)  # NUL / newline
    return value


def read_secret(source: str | None, *, prompt: str = "Secret: ", stdin: TextIO | None = None) -> str:
    """Read a secret the safe way: ``-`` (or a non-terminal stdin) reads stdin
    (bytes, strictly UTF-8, at most :data:`MAX_SECRET_BYTES`) and strips
    exactly one trailing newline; a terminal gets a hidden prompt, where
    Ctrl-D is "no secret".  Never from argv.  The value passes
    :func:`check_secret` before it is returned."""
    stream = stdin or sys.stdin
    if source not in (None, "-"):
        raise UsageError("secrets are never taken from the command line; pass '-' and pipe "
                         "the value on stdin, or answer the hidden prompt", code="secret_in_argv")
    if stream is None:
        raise InvalidInput("no standard input to read the secret from", field="stdin",
                           code="empty_secret")
    isatty = getattr(stream, "isatty", lambda: False)
    if source == "-" or not isatty():
        value = _read_stream(stream)
        if value.endswith("\r\n"):
            value = value[:-2]
        elif value.endswith("\n"):
            value = value[:-1]
        field = "stdin"
    else:
        try:
            value = getpass.getpass(prompt)
        except EOFError:
            raise InvalidInput("no secret given (the prompt got end of input, Ctrl-D)",
                               field="prompt", code="empty_secret") from None
        field = "prompt"
    return check_secret(value, field=field)


def _read_stream(stream: TextIO) -> str:
    limit = MAX_SECRET_BYTES + 2  # room for the one newline that is stripped
    buffer = getattr(stream, "buffer", None)
    if buffer is None:  # a text stream without bytes underneath (tests, embedding)
        return stream.read(limit + 1)
    data = buffer.read(limit + 1)
    if len(data) > limit:
        raise InvalidInput(f"the secret is too large (more than {MAX_SECRET_BYTES} bytes)",
                           field="stdin", code="too_large")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"the secret on stdin is not UTF-8 text (byte {exc.start})",
                           field="stdin", code="bad_secret") from None
