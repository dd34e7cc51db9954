"""The one three-way managed-file engine.

Everything the toolkit projects into a workspace and later upgrades (harness
skills and guidance, template files, sticker packs) goes through here:

    from openalice import managed

    store = managed.Store(root, ".alice/alice-harness-upgrade")    # baseline + transaction
    # (or managed.JournalFile(root, ".alice/sticker-transaction.json"): one journal file, the
    # owner's own state document as baseline)
    managed.recover(store)                                          # under the checkout lease
    plan = managed.make_plan(root, targets={path: bytes}, baseline=store.baseline(),
                             scope=[...], walk_trees=[...], mirrors=[(primary, copy)],
                             force=[...], identity={...})
    plan.digest, plan.summary(), plan.items, plan.conflicts
    managed.apply_plan(plan, store, keep=[...], use=[...], commit=managed.Commit(subject, trailer),
                       state={rel: {json document}}, owner="...", meta={...}, now=now)

    # what a verb's --apply calls: the caller rule, the lease, recover, re-plan, the digest
    # check (stale_plan), the job's refusals, apply, the fact (see .ritual)
    managed.apply_previewed(ws, purpose="...", digest=digest, now=now, recover=..., plan=...,
                            settle=..., apply=..., fact=...)

* :mod:`.snapshot` — managed paths, entries on disk and their fingerprints
  (``file:<sha256>``, ``missing``, ``other:<sha256>``), gzip JSON snapshots.
* :mod:`.plan` — the base/local/incoming decision table, mirrors, the digest.
* :mod:`.diff3` — the line merge that turns non-overlapping edits on both
  sides into ``merged`` instead of ``conflict`` (decides like ``git merge-file``),
  over the line diff of :mod:`.linediff` and :mod:`.myers` (git's alignments).
* :mod:`.ritual` — the one preview-and-apply ritual every caller applies through (the caller
  rule, the checkout lease, recovery, the digest check, the journal fact).
* :mod:`.transaction` — resolutions, the journaled apply, crash recovery, over
  the two journal layouts of :mod:`.stores` (a store directory, or one journal file).

Policy (which files, which scope, which state files, what blocks an apply) belongs to
the caller; nothing here knows about skills or templates.

The names load lazily: a read verb (``alice-harness status``, ``stickers status``) needs the
snapshot and the plan, not the apply ritual's lease, processes and journal.
"""

from __future__ import annotations

from openalice.core import lazy

_EXPORTS = {
    "MergeResult": "diff3",
    "merge3": "diff3",
    "STATUSES": "plan",
    "Item": "plan",
    "Plan": "plan",
    "make_plan": "plan",
    "apply_previewed": "ritual",
    "check_digest": "ritual",
    "recover_pending": "ritual",
    "MISSING": "snapshot",
    "Entry": "snapshot",
    "check_path": "snapshot",
    "content_fingerprint": "snapshot",
    "file_entry": "snapshot",
    "hashed_entry": "snapshot",
    "inspect": "snapshot",
    "read_snapshot": "snapshot",
    "walk": "snapshot",
    "within": "snapshot",
    "write_snapshot": "snapshot",
    "Applied": "transaction",
    "Commit": "transaction",
    "JournalFile": "transaction",
    "Recovery": "transaction",
    "RecoveryRefused": "transaction",
    "StalePlan": "transaction",
    "Store": "transaction",
    "apply_plan": "transaction",
    "recover": "transaction",
    "resolve": "transaction",
}

__all__ = list(_EXPORTS)


__getattr__ = lazy.exports(__name__, globals(), _EXPORTS)
