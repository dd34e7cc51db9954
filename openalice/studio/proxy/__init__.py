"""The Studio proxy: ready surfaces on 127.0.0.1, routed by Host header only.

    server = make_server(port=47331)          # binds 127.0.0.1 only (port 0: any free port)
    server.serve_forever()                    # threaded; server.shutdown() from another thread

A request's ``Host`` must be ``oa-surface-<24 hex>.localhost[:port]`` naming a
published route (``state/studio/routes/<id>.json``, written by the supervisor
when its generation is ready and removed before it is stopped); anything else
is 404.  There is no path-based route (no ``/proxy/<port>``): the path goes to
the app untouched.  The upstream is always a loopback address, checked on every
request before connecting; a route naming anything else is refused (502).

Request headers ``authorization``, ``host``, ``connection``, ``keep-alive``,
``proxy-authenticate``, ``proxy-authorization``, ``te``, ``trailer``,
``transfer-encoding``, ``upgrade`` (kept only to open a WebSocket tunnel),
``expect`` (the proxy answers 100 itself), every ``x-openalice-*``, every header
the client's ``Connection`` names, and any ``x-forwarded-*`` the client sent are
never forwarded; ``Cookie`` loses OpenAlice's own cookies (``openalice-*``) and
keeps the app's, so an app's own cookie login works.  A body's framing must be
one reading only: exactly ``chunked`` or one ``Content-Length`` (400 for a
conflict or a malformed coding or chunk size, 501 for another coding).
``Origin`` and ``Referer`` on the public origin are rewritten to the
upstream origin (a foreign origin passes unchanged, so the app can still refuse
it); ``X-Forwarded-Host``/``-Proto`` say what the browser used.  Responses lose
their hop-by-hop headers, and a redirect to the upstream's own origin is
rewritten to the public one.  Bodies stream both ways (no buffering); a
WebSocket upgrade becomes a byte tunnel.

How it is fast (docs/benchmarks.md, "Studio proxy"): HTTP/1.1 heads are parsed
here, once per message, straight from the socket's bytes (no ``http.server``,
no ``http.client``, no ``email`` header objects); client connections are kept
alive and each keeps its upstream connection, which goes back to a small pool
when the client leaves; a small reply leaves in one ``sendmsg`` with its head; a
body moves through one reused buffer (``recv_into``) or, on Linux, through a
pipe with ``os.splice`` (the bytes never enter Python); a chunked response
passes through as it is, only its chunk sizes are read to find its end; socket
timeouts are kernel timeouts (``SO_RCVTIMEO``), so a read is one system call.
The package, one job per module: :mod:`.wire` (heads, the header rules),
:mod:`.body` (copying bodies, chunked framing, the WebSocket tunnel's pump),
:mod:`.routes` (Host → upstream), :mod:`.upstream` (app connections and their
pool), :mod:`.handler` (one client connection's requests), :mod:`.relay` (the
answers), :mod:`.server` (the listening server and ``proxy.json``).
"""

from __future__ import annotations

from openalice.core.net import is_loopback_ip as is_loopback_host

from .handler import ProxyHandler
from .routes import RouteTable
from .server import BIND_HOST, DEFAULT_PORT, SurfaceProxy, forget_running, make_server, record_running
from .wire import HOP_BY_HOP, STRIPPED_REQUEST_HEADERS

__all__ = ["DEFAULT_PORT", "BIND_HOST", "STRIPPED_REQUEST_HEADERS", "HOP_BY_HOP", "RouteTable", "SurfaceProxy",
           "ProxyHandler", "make_server", "is_loopback_host", "record_running", "forget_running"]
