"""The few git operations the toolkit's upgrades need, run through the ``git`` CLI.

    top = git.work_tree(root)                     # None: not a git work tree (or no git)
    git.staged_paths(root)                        # what is staged now (a blocker for upgrades)
    sha = git.commit_paths(root, ["AGENTS.md"], "subject", trailers={"OpenAlice-Harness-Upgrade": d})
    git.head_has_trailer(root, "OpenAlice-Harness-Upgrade", d)
    git.unstage(root, ["AGENTS.md"])             # index back to HEAD for those paths
    git.ensure_excluded(root, ["/.alice/bin/"])   # .git/info/exclude, relative to the workspace
    git.lock_files(root); git.remove_stale_locks(root, held_since=t)   # a killed git's lock files (locks)

and what source-backed upgrades need (a template repository merged in):

    git.require_version((2, 38), "merge-tree --write-tree")
    git.clone(url, target); git.checkout_branch(target, "main", sha)
    sha = git.fetch(root, url, "main", into="refs/openalice/source/incoming")
    merged = git.merge_tree(root, "HEAD", sha)     # MergeTree(tree, conflicts): nothing else is touched
    git.changed_paths(root, "HEAD", merged.tree); git.status_entries(root)
    git.merge_no_commit(root, sha, message) ... git.commit_merge(root, message) | git.abort_merge(root)

Commits touch exactly the paths given (``git commit -- PATHS``: other staged
or unstaged changes are left alone); paths git ignores are never forced in.
Upgrade commits are authored ``OpenAlice <launcher@local>`` so they work
without a configured identity (a person's approved issue edit is committed
as the repository's user: ``author=None``); the repository's hooks run as usual, and a failing hook
is a :class:`GitError` the caller rolls back from.  Paths are relative to
``root`` (which may be a subdirectory of the work tree).

One job per module: ``command`` runs git (the one place a git process
starts), knows its version and turns git's "File exists" on a lock into
:class:`GitLocked` (exit 3, naming the file); ``locks`` finds a killed git's
lock files and removes those proven stale; ``commits`` stages, commits and reads the
work tree and its revisions; ``remote`` clones and fetches a template
repository; ``merge`` computes and performs merges.
"""

from __future__ import annotations

from .command import AUTHOR, GitError, GitLocked, require_version, run, version
from .commits import (
                      add,
                      commit_paths,
                      current_branch,
                      ensure_excluded,
                      head,
                      head_has_trailer,
                      head_message,
                      resolve_commit,
                      staged_paths,
                      unstage,
                      work_tree,
)
from .locks import live_git_processes, lock_files, remove_stale_locks, require_unlocked
from .merge import (
                      MergeTree,
                      abort_merge,
                      changed_paths,
                      checkout_branch,
                      commit_merge,
                      is_ancestor,
                      merge_head,
                      merge_message,
                      merge_no_commit,
                      merge_tree,
                      show_file,
                      status_entries,
                      unmerged_paths,
)
from .remote import REMOTE_PROTOCOLS, clone, delete_ref, fetch, remote_head

__all__ = ["GitError", "GitLocked", "lock_files", "remove_stale_locks", "require_unlocked", "live_git_processes", "AUTHOR", "work_tree", "staged_paths", "commit_paths", "head", "head_message",
           "head_has_trailer", "unstage", "ensure_excluded", "run", "version", "require_version", "clone",
           "checkout_branch", "resolve_commit", "current_branch", "remote_head", "fetch", "delete_ref", "show_file",
           "MergeTree", "merge_tree", "changed_paths", "status_entries", "is_ancestor", "merge_head",
           "merge_message", "merge_no_commit", "unmerged_paths", "abort_merge", "add", "commit_merge",
           "REMOTE_PROTOCOLS"]
