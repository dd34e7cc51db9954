"""``python -m openalice.conversations TASK_ID``: one comment turn, detached
(started by :func:`openalice.conversations.turns.launch_turn`)."""

from __future__ import annotations

import sys

from openalice.core.errors import AliceError
from openalice.runs.tasks import ENDED_STATUSES

from .turns import run_turn


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or args[0].startswith("-"):
        print("usage: python -m openalice.conversations TASK_ID", file=sys.stderr)
        return 2
    try:
        record = run_turn(args[0], handle_signals=True)
    except AliceError as exc:
        print(f"comment turn: {exc}", file=sys.stderr)
        return exc.exit_code
    return 0 if record.get("status") in ENDED_STATUSES else 1


if __name__ == "__main__":
    sys.exit(main())
