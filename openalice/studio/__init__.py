"""Studio: supervised Harness web surfaces behind a Host-routing proxy.

A workspace that is a Harness repository declares its web app in the root
``harness.json`` (:mod:`openalice.studio.manifest`).  ``start`` runs it as one
supervised process group per *generation* (:mod:`openalice.studio.supervisor`,
:mod:`openalice.studio.lifecycle`, :mod:`openalice.studio.reconcile`), on
loopback ports it allocates, and once the app answers its readiness path
publishes an opaque route ``oa-surface-<24 hex>.localhost`` that the proxy
(:mod:`openalice.studio.proxy`) serves.  State is per machine, under ``$OPENALICE_HOME/state/studio/``
(:mod:`openalice.studio.state`).  See docs/studio.md.
"""

from .lifecycle import (
    GRACE,
    READY_TIMEOUT,
    is_live,
    logs,
    require_idle,
    restart,
    start,
    status,
    stop,
    view,
)
from .manifest import Capability, Manifest, ManifestError, load_manifest, parse_manifest

__all__ = [
    "GRACE", "READY_TIMEOUT", "Capability", "Manifest", "ManifestError", "is_live", "load_manifest", "logs",
    "parse_manifest", "require_idle", "restart", "start", "status", "stop", "view",
]
