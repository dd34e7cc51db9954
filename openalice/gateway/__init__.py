"""The local web gateway behind ``alice serve``: a page and a JSON API.

Every API route runs the matching CLI verb with ``--json`` as a child process
(an argv list, never a shell) and maps its exit code to an HTTP status; the
gateway never reads or writes a state file itself.  See ``docs/web.md``.

    from openalice.gateway import Gateway
    gw = Gateway(port=0)          # loopback, a free port, a fresh token
    print(gw.url)                 # http://127.0.0.1:PORT/?token=...
    gw.serve_until_signalled()    # SIGINT / SIGTERM end it cleanly
"""

from .server import Gateway

__all__ = ["Gateway"]
