"""Source-backed Harness upgrades: a workspace cloned from a template repository, merged forward.

    ws, receipt = create_workspace("~/src/aq", "https://example.org/autoquant.git@v1", now=now)
    plan = preview(ws, to="main", now=now)            # fetch, validate harness.json, merge-tree: nothing touched
    plan, applied = apply(ws, digest=plan.digest, now=now)   # a --no-ff merge commit that updates the receipt

A workspace created with ``alice workspace init PATH --from-git URL[@REF]``
records where its Harness came from in the tracked ``.alice/harness-source.json``
(``spec/harness-source.schema.json``): the template's name, the repository, the
``harness.json`` version and the 40-hex commit.  ``preview`` fetches a target
commit of that repository (default: its default branch) into the local ref
``refs/openalice/source/incoming`` (nothing else of the workspace changes),
validates the target's ``harness.json``, and asks ``git merge-tree --write-tree``
whether it merges.  Its digest covers what would be merged: the workspace's
HEAD, the target commit, the merged tree, the receipt.  ``apply --digest D``
merges exactly that commit: under the Studio operation lease (no ``studio
start`` can begin) with no live generation, no live run, the workspace
checkout lease, no staged changes and a clean work tree for every path the merge
touches, as one ``--no-ff`` merge commit that also updates the receipt.  A merge
that cannot be completed (a conflict, a file in the way, a failing hook) is
aborted: work tree, index and HEAD are as before.

The package: :mod:`.receipt` (the receipt and where the template comes from),
:mod:`.create` (``init --from-git``), :mod:`.plan` (``preview``), :mod:`.merge`
(``apply``), :mod:`.recovery` (a killed ``apply``'s merge aborted).
"""

from __future__ import annotations

from .create import create_workspace
from .merge import Applied, apply
from .plan import Preview, preview
from .receipt import INCOMING_REF, RECEIPT_FILE, TRAILER, Receipt, parse_receipt, parse_source_spec
from .recovery import recover

__all__ = ["RECEIPT_FILE", "INCOMING_REF", "TRAILER", "Receipt", "Preview", "Applied", "parse_source_spec",
           "parse_receipt", "create_workspace", "preview", "apply", "recover"]
