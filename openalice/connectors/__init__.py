"""Connectors: Inbox reports delivered where the person is, and a Telegram
chat that talks to the workspace (``docs/connectors.md``).

Nothing is imported here: the timer's scan first asks
:func:`openalice.schedule.fastpath.connectors_quiet` (two ``stat`` calls
against the marker :mod:`.state` writes) and loads this package only when a
connector may have work.  The API, by module:

* :mod:`.records` — connector records (``$OPENALICE_HOME/connectors/<name>.json``,
  secret-free) and their secrets (``vault/connectors/<name>.env``, 0600);
* :mod:`.state` — per-connector delivery state (cursor, queue, inbound memory);
* :mod:`.parts` — what one Inbox entry becomes: text, files, stickers, notes;
* :mod:`.telegram`, :mod:`.webhook`, :mod:`.smtp`, :mod:`.desktop` — transports;
* :mod:`.delivery` — ``deliver`` (due work with a time budget) and ``test``;
* :mod:`.inbound` — Telegram updates to comments, reply comments back to the chat;
* :mod:`.service` — ``connector run`` (foreground, SIGTERM-clean);
* :mod:`.health` — what health and the doctor show; :mod:`.admin` — the verbs' calls;
  :mod:`.scan_pass` — the scan's bounded pass.
"""
