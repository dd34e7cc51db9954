"""E-mail delivery with :mod:`smtplib`: one message per entry.

``text/plain`` is the body unchanged; ``text/html`` is a safe rendering: the
body HTML-escaped inside ``<pre>`` (no markup of the author's ever reaches a
mail client as markup).  Referenced files that pass the revision check are
attached (each at most 10 MiB).  Security, decided by the record: ``ssl``
(SMTPS, port 465 by default), ``starttls`` (the default; STARTTLS is required,
never skipped) or ``plain`` (allowed by the records only to a loopback
host).  TLS is verified with the default context.  The ``Message-ID`` is
derived from the entry id, so a receiver can tell a repeat.
"""

from __future__ import annotations

import html
import smtplib
import ssl
from email.message import EmailMessage
from email.utils import formatdate

from .http import SendError, scrub

__all__ = ["build_message", "send"]


def subject_of(body: str, label: str | None) -> str:
    first = next((line.strip() for line in body.splitlines() if line.strip()), "report")
    first = first.lstrip("#").strip() or "report"
    if len(first) > 120:
        first = first[:117] + "..."
    return f"[{label}] {first}" if label else first


def build_message(*, sender: str, to: list[str], subject: str, body: str, message_id: str,
                  attachments: list[tuple[str, str, bytes]], date_s: int) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = ", ".join(to)
    msg["Subject"] = subject
    msg["Message-ID"] = message_id
    msg["Date"] = formatdate(date_s, usegmt=True)
    msg.set_content(body)
    msg.add_alternative("<!doctype html><html><body><pre style=\"white-space: pre-wrap; "
                        "font-family: inherit\">" + html.escape(body) + "</pre></body></html>",
                        subtype="html")
    for filename, ctype, data in attachments:
        maintype, _, subtype = ctype.partition("/")
        msg.add_attachment(data, maintype=maintype, subtype=subtype or "octet-stream",
                           filename=filename)
    return msg


def send(settings: dict, msg: EmailMessage, *, password: str | None, timeout: float) -> str:
    """Send ``msg``; returns what the server answered.  SendError otherwise."""
    host, port, security = settings["host"], settings["port"], settings["security"]
    secrets = (password,) if password else ()
    try:
        context = ssl.create_default_context()
        if security == "ssl":
            client = smtplib.SMTP_SSL(host, port, timeout=timeout, context=context)
        else:
            client = smtplib.SMTP(host, port, timeout=timeout)
        with client:
            if security == "starttls":
                client.starttls(context=context)
            if settings.get("user") and password:
                client.login(settings["user"], password)
            refused = client.send_message(msg)
            code, answer = client.noop()
    except smtplib.SMTPResponseException as exc:
        text = exc.smtp_error.decode("utf-8", "replace") if isinstance(exc.smtp_error, bytes) \
            else str(exc.smtp_error)
        raise SendError(scrub(f"smtp {host}:{port}: {exc.smtp_code} {text}", secrets),
                        status=exc.smtp_code) from None
    except (smtplib.SMTPException, OSError, ssl.SSLError) as exc:
        raise SendError(scrub(f"smtp {host}:{port}: {exc}", secrets)) from None
    if refused:
        raise SendError(f"smtp {host}:{port}: refused recipients {', '.join(sorted(refused))}")
    return f"accepted by {host}:{port}"
