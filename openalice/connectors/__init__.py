"""Connectors: Inbox reports delivered where the person is, and a Telegram
chat that talks to the workspace (``docs/connectors.md``).

The package is kept cheap to import (nothing is imported here): the timer's
scan asks :mod:`.quiet` whether anything is due at all, every minute, and
must not pay for the transports.  The API, by module:

* :mod:`.records` — connector records (``$OPENALICE_HOME/connectors/<name>.json``,
  secret-free) and their secrets (``vault/connectors/<name>.env``, 0600);
* :mod:`.state` — per-connector delivery state (cursor, queue, inbound memory);
* :mod:`.parts` — what one Inbox entry becomes: text, files, stickers, notes;
* :mod:`.telegram`, :mod:`.webhook`, :mod:`.smtp`, :mod:`.desktop` — transports;
* :mod:`.delivery` — ``deliver`` (due work with a time budget) and ``test``;
* :mod:`.inbound` — Telegram updates to comments, reply comments back to the chat;
* :mod:`.service` — ``connector run`` (foreground, SIGTERM-clean).
"""
