"""The routes of the page's workspace view (docs/web.md "A workspace"): the
harness (status, the config's switches, an upgrade previewed then applied with
the preview's digest and one resolution per conflict) and the sticker packs
(status, enable/switch/restore/disable, thumbnails).

A mixin of :class:`~.api.Api`, kept apart so each file stays small.  As
everywhere, the ids are checked (the route's ``{kind}`` segments and
:mod:`.fields_workspace` for bodies) before any shell-out, values go as
separate ``--flag=value`` argv items, and the answer is the CLI's own
document.  A status verb's exit 3 ("needs attention") is data for this view,
so it answers 200 with the document.
"""

from __future__ import annotations

import base64
import binascii
import json

from . import delivery
from .fields_workspace import config_set_args, sticker_args, upgrade_args

__all__ = ["WORKSPACE_ROUTES", "WorkspaceRoutes"]

WORKSPACE_ROUTES = [
    ("GET", "/api/workspaces/{workspace}/harness", "harness_status", ()),
    ("GET", "/api/workspaces/{workspace}/harness/config", "harness_config", ()),
    ("POST", "/api/workspaces/{workspace}/harness/config", "harness_config_set", ()),
    ("GET", "/api/workspaces/{workspace}/harness/upgrade", "harness_preview", ("template",)),
    ("POST", "/api/workspaces/{workspace}/harness/upgrade", "harness_apply", ()),
    ("GET", "/api/workspaces/{workspace}/stickers", "stickers_status", ()),
    ("POST", "/api/workspaces/{workspace}/stickers", "stickers_action", ()),
    ("GET", "/api/stickers", "stickers_list", ()),
    ("GET", "/api/stickers/{pack}", "stickers_show", ()),
    ("GET", "/api/stickers/{pack}/files/{sticker}", "sticker_file", ()),
]


def attention_is_data(respond, result):
    """``respond(result)``, but a status verb's exit 3 with its document is a 200."""
    from .api import Response  # lazy: api imports this module

    if result.exit_code == 3 and result.stdout.strip()[:1] == b"{":
        return Response(200, result.stdout.strip())
    return respond(result)


class WorkspaceRoutes:
    """Route handlers mixed into :class:`~.api.Api` (``call``/``respond``/``passthrough``)."""

    # -- the harness ------------------------------------------------------------------
    def route_harness_status(self, req, q):
        return attention_is_data(self.respond, self.call(req, "alice-harness", [
            "status", f"--workspace={req.params['workspace']}", "--json"]))

    def route_harness_config(self, req, q):
        return self.passthrough(req, "alice-harness", [
            "config", "show", f"--workspace={req.params['workspace']}", "--json"])

    def route_harness_config_set(self, req, q):
        pairs = config_set_args(req.body)
        return self.passthrough(req, "alice-harness", [
            "config", "set", *pairs, f"--workspace={req.params['workspace']}", "--json"])

    def route_harness_preview(self, req, q):
        args = ["upgrade", f"--workspace={req.params['workspace']}", "--json"]
        return self.passthrough(req, "alice-harness", args + (["--template"] if q.flag("template") else []))

    def route_harness_apply(self, req, q):
        """``upgrade --apply --digest=D`` with one resolution per conflict: the CLI
        re-plans and refuses a digest that changed (``stale_plan``)."""
        return self.passthrough(req, "alice-harness", [
            "upgrade", f"--workspace={req.params['workspace']}", "--apply", *upgrade_args(req.body),
            "--json"])

    # -- stickers ---------------------------------------------------------------------
    def route_stickers_status(self, req, q):
        return attention_is_data(self.respond, self.call(req, "alice-harness", [
            "stickers", "status", f"--workspace={req.params['workspace']}", "--json"]))

    def route_stickers_action(self, req, q):
        return self.passthrough(req, "alice-harness", [
            "stickers", *sticker_args(req.body), f"--workspace={req.params['workspace']}", "--json"])

    def route_stickers_list(self, req, q):
        return self.passthrough(req, "alice-harness", ["stickers", "list", "--json"])

    def route_stickers_show(self, req, q):
        return self.passthrough(req, "alice-harness", ["stickers", "show", req.params["pack"], "--json"])

    def route_sticker_file(self, req, q):
        """One sticker image (``stickers cat``), served as the file route serves a
        report's image (:mod:`.delivery`: inline only with the right signature)."""
        from .api import Response  # lazy: api imports this module

        result = self.call(req, "alice-harness", [
            "stickers", "cat", req.params["pack"], req.params["sticker"], "--json"])
        if result.exit_code != 0:
            return self.respond(result)
        try:
            doc = json.loads(result.stdout)
            data = base64.b64decode(doc["content"], validate=True)
            name = doc["file"]
        except (ValueError, KeyError, TypeError, binascii.Error):
            return Response.unreadable("alice-harness stickers cat")
        headers = delivery.file_headers(name, data, None)
        headers.pop("X-OpenAlice-Revision")  # a pack's image has no publication to compare with
        return Response(200, data, headers)

