"""Domain-free foundation: atomic files, locks and leases, frontmatter, JSON
Schema, JSONL journals, path containment, secrets files, processes, clock,
errors and output.  Nothing in here knows about issues, inboxes or agents.

Submodules are imported explicitly (``from openalice.core import fs``) so that
importing the package costs nothing.
"""
