"""Run one scan with the stand-in issue reader, as its own process:
``python -m tests.schedule.scan_helper NOW [--wait-stdin] [--capacity=N]`` prints the report as JSON.
(Subprocess scanners for the concurrency and SIGKILL tests.)"""

from __future__ import annotations

import json
import sys

from openalice.schedule.scan import scan
from tests.schedule.conftest import T
from tests.schedule.fakeissues import Launcher, Reader


def main() -> int:
    flags = sys.argv[2:]
    if "--wait-stdin" in flags:
        sys.stdin.readline()  # start line: all scanners begin together
    capacity = next((int(f.split("=", 1)[1]) for f in flags if f.startswith("--capacity=")), None)
    report = scan(now=T(sys.argv[1]), reader=Reader(), launch=Launcher(), capacity=capacity)
    sys.stdout.write(json.dumps(report) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
