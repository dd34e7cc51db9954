"""``python -m openalice.runs.supervisor TASK_ID``: what :func:`launch` starts."""

from . import main

raise SystemExit(main())
