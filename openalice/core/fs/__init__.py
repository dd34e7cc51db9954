"""Atomic file writes, strict reads, locked read-modify-write, temp sweeping.

Every state file in the toolkit is written here and nowhere else:

1. a temp file is created in the target's own directory
   (``.tmp-<name>.<pid>.<host>.<random>``, born 0600, ``O_EXCL``), written
   and fsynced;
2. its mode is set (kept from the old file, or the one asked for; a new file
   under a home is 0600, elsewhere the umask decides);
3. ``os.replace`` swaps it over the target atomically;
4. the directory is fsynced so the rename itself survives a power cut.

Every step works on the target directory's descriptor (:class:`core.paths.Root`),
so with ``root=`` (a workspace) nothing is reached through a link out of it.

A crash at any point leaves either the old file or the new one, plus at worst a
stray temp file.  The next writer of that directory removes it (once per
process and directory): at once when the temp's writer is gone (its pid, on
this host, no longer runs), else once it is older than :data:`TEMP_MAX_AGE`.
A failed write removes its own temp before the error leaves this module.

The package, one job per module: :mod:`.writes` (atomic writes through the
directory's descriptor), :mod:`.reads` (strict reads: regular files only,
bounded bytes, strict JSON), :mod:`.codec` (the JSON of state, both ways),
:mod:`.temps` (temp names, the sweep, :func:`staged_dir`), :mod:`.directories`
(creating, fsyncing and opening directories), :mod:`.moves` (remove, move,
set aside), :mod:`.locked` (locked read-modify-write) and :mod:`.explain`
(what an operating-system error on a state path means).
"""

from __future__ import annotations

from .codec import dump_json, dump_json_line, json_type, loads_json
from .directories import ensure_dir, ensure_private_dir, fsync_dir
from .explain import explain_os_error
from .locked import locked_file, locked_update_json
from .moves import move_file, remove_empty_dir, remove_file, set_aside
from .reads import open_state_file, read_bytes, read_json, read_text
from .temps import TEMP_MAX_AGE, TEMP_PREFIX, staged_dir, sweep_once, sweep_temp_files
from .writes import atomic_write_bytes, atomic_write_json, atomic_write_many, atomic_write_text, create_exclusive

__all__ = [
    "TEMP_PREFIX", "TEMP_MAX_AGE", "ensure_dir", "atomic_write_bytes", "atomic_write_text",
    "atomic_write_json", "atomic_write_many", "dump_json", "read_bytes", "read_text", "read_json",
    "locked_update_json", "locked_file", "sweep_temp_files", "fsync_dir",
    "create_exclusive", "remove_file", "move_file", "remove_empty_dir", "ensure_private_dir",
    "open_state_file", "set_aside", "explain_os_error", "staged_dir", "json_type", "loads_json",
    "sweep_once", "dump_json_line",
]
