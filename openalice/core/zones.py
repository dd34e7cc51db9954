"""Time zone names: ``local`` or an IANA key, resolved to a ``tzinfo``.

``local`` (or no name at all) is the machine's zone, found the way the C
library finds it: the ``TZ`` variable when it names an IANA key, else the key
that ``/etc/localtime`` links to, else the bytes of ``/etc/localtime``, else
UTC.  Any other name must be an IANA key that the system's time zone database
(or the ``tzdata`` package) holds; names that look like paths are refused
before they reach the file system.
"""

from __future__ import annotations

import os
from datetime import timezone, tzinfo
from functools import lru_cache

from openalice.core import patterns
from openalice.core.errors import InvalidInput

__all__ = ["LOCAL", "resolve_zone", "zone_label", "machine_zone", "machine_zone_key"]

LOCAL = "local"

_BAD_ZONE_MESSAGE = "timezone must be `local` or a valid IANA timezone"
_LOCALTIME = "/etc/localtime"

# IANA keys are short relative paths of letters, digits and `_+-`; anything
# else (dots, backslashes, empty parts, leading `/`) is refused up front so a
# crafted name can never make zoneinfo open an arbitrary file.
_KEY_SHAPE = patterns.compile("(?a)" r"[A-Za-z0-9_+\-]{1,40}(?:/[A-Za-z0-9_+\-]{1,40}){0,3}")

# Files that live among the zones but are not zones users should name.
_NOT_ZONES = frozenset({"localtime", "posixrules"})
_NOT_ZONE_DIRS = ("posix/", "right/")


def resolve_zone(name: str | None) -> tzinfo:
    """Return the tzinfo for ``local``/None or an IANA key.

    Raises InvalidInput(code="bad_timezone") for anything else.
    """
    if name is None or name == LOCAL:
        return _machine_zone(os.environ.get("TZ"), _LOCALTIME)[1]
    if not isinstance(name, str):
        raise InvalidInput(_BAD_ZONE_MESSAGE, code="bad_timezone", field="timezone")
    zone = _iana_zone(name)
    if zone is None:
        raise InvalidInput(_BAD_ZONE_MESSAGE, code="bad_timezone", field="timezone",
                           details={"timezone": name[:80]})
    return zone


def zone_label(name: str | None) -> str:
    """A label for humans: the IANA key, or ``local (<machine key>)``.

    The name is validated like :func:`resolve_zone`.
    """
    resolve_zone(name)
    if name is None or name == LOCAL:
        return f"{LOCAL} ({machine_zone_key()})"
    return name


def machine_zone(*, environ: dict | None = None, localtime: str = _LOCALTIME) -> tzinfo:
    """The machine zone (``environ`` defaults to os.environ)."""
    tz_var = (os.environ if environ is None else environ).get("TZ")
    return _machine_zone(tz_var, localtime)[1]


def machine_zone_key(*, environ: dict | None = None, localtime: str = _LOCALTIME) -> str:
    """The IANA key of the machine zone, ``localtime`` when only the file's
    bytes are known, or ``UTC`` when nothing usable was found."""
    tz_var = (os.environ if environ is None else environ).get("TZ")
    return _machine_zone(tz_var, localtime)[0]


@lru_cache(maxsize=256)
def _iana_zone(name: str) -> tzinfo | None:
    if not _KEY_SHAPE.fullmatch(name) or name in _NOT_ZONES or name.startswith(_NOT_ZONE_DIRS):
        return None
    from zoneinfo import ZoneInfo  # lazy: 4 ms at start-up; only IANA zone names need it
    try:
        return ZoneInfo(name)
    except Exception:  # ZoneInfoNotFoundError, a non-TZif file, an unreadable file
        return None


@lru_cache(maxsize=8)
def _machine_zone(tz_var: str | None, localtime: str) -> tuple[str, tzinfo]:
    # Keyed on the TZ value so a changed environment is noticed; the file
    # system is read once per distinct TZ value.
    if tz_var:
        key = tz_var[1:] if tz_var.startswith(":") else tz_var  # POSIX `:Area/City`
        zone = _iana_zone(key)
        if zone is not None:
            return key, zone
    try:
        target = os.readlink(localtime)
    except OSError:
        target = None
    if target:
        key = _key_from_path(os.path.join(os.path.dirname(localtime), target))
        zone = _iana_zone(key) if key else None
        if zone is not None:
            return key, zone
    try:
        from zoneinfo import ZoneInfo  # lazy: as in _iana_zone
        with open(localtime, "rb") as handle:
            return "localtime", ZoneInfo.from_file(handle, key="localtime")
    except Exception:  # missing, unreadable or not a TZif file
        pass
    return "UTC", timezone.utc


def _key_from_path(path: str) -> str | None:
    # `/usr/share/zoneinfo/Europe/Paris` (possibly via `../`) -> `Europe/Paris`
    normalized = os.path.normpath(path).replace(os.sep, "/")
    marker = "/zoneinfo/"
    index = normalized.rfind(marker)
    if index < 0:
        return None
    return normalized[index + len(marker):] or None
