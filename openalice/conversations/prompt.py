"""The prompt of a comment turn: the issue's ``commentPrompt`` with its tokens
filled, or the default wrapper (docs/conversations.md, "The prompt")."""

from __future__ import annotations

from openalice.core import patterns

__all__ = ["DEFAULT_WRAPPER", "comment_prompt"]

#: Said to the session when its issue has no ``commentPrompt``: which issue,
#: who wrote, and how the reply travels back.
DEFAULT_WRAPPER = """\
A comment was posted on issue "{title}" ({id}, workspace {workspaceId}) that you own.
It was written by {author}:

{comment}

Answer it in your final message: your final message is posted as your reply on the issue
(do not post it yourself with `alice issue comment`). If the comment asks for work, do it
first, then reply with what you did."""

_TOKEN_RE = patterns.compile(r"\{([A-Za-z]+)\}")


def comment_prompt(issue, comment: dict, workspace_id: str) -> str:
    """The prompt for delivering ``comment`` of ``issue`` (an Issue, or None
    when the file cannot be read now: the default wrapper then names the id).

    Tokens are filled in one pass, so a comment that itself contains
    ``{title}`` is passed on as written, never expanded."""
    template = getattr(issue, "comment_prompt", None) or DEFAULT_WRAPPER
    author = comment.get("author") or "someone"
    if author == "human":
        author = "a person"
    if comment.get("via"):
        author = f"{author} (via {comment['via']})"
    values = {
        "comment": comment.get("markdown", ""),
        "title": getattr(issue, "title", None) or comment.get("issueId") or "",
        "id": getattr(issue, "id", None) or "",
        "workspaceId": workspace_id,
        "author": author,
        "what": getattr(issue, "what", "") or "",
    }
    return _TOKEN_RE.sub(lambda m: values.get(m.group(1), m.group(0)), template)
