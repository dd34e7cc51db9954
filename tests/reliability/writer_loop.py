"""The fork server of the kill loops (see :mod:`tests.reliability.machine`).

``python -m tests.reliability.writer_loop MACHINE WRITER`` enters the machine,
runs one step of the writer (imports and caches warm), prints ``ready`` and
then reads commands on stdin:

``go N``    fork a child that runs the writer's step N, N+1, ... until it is
            killed; prints the child's pid
``reap P``  wait for child P; prints its wait status
``quit``    exit

``--once`` instead runs one step in this fresh process and exits: the next
writer after the kills.
"""

from __future__ import annotations

import os
import sys


def main() -> int:
    base, name = sys.argv[1], sys.argv[2]
    from openalice.core import fs
    from tests.reliability.machine import Machine, writer

    machine = Machine(base)
    machine.enter()
    entry = writer(name)
    if "--once" in sys.argv[3:]:
        # one whole cycle: each kind of write the kills interrupted runs again (an
        # import is the next writer of the library's revisions, not an enable)
        start = 10**9 - 10**9 % entry.cycle
        for n in range(start, start + entry.cycle):
            entry.step(machine, n)
        return 0
    entry.step(machine, 0)
    print("ready", flush=True)
    for line in sys.stdin:
        command = line.split()
        if not command:
            continue
        if command[0] == "go":
            pid = os.fork()
            if pid == 0:
                # Its own process group, killed whole: a writer's own children
                # (git, for the source upgrades) die with it, as under a
                # service manager, rather than run on into the next writer.
                os.setpgid(0, 0)
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, 1)
                os.dup2(devnull, 2)
                fs.temps._swept.clear()  # as a fresh process: its first write of a directory sweeps it
                n = int(command[1])
                try:
                    while True:
                        entry.step(machine, n)
                        n += 1
                except BaseException as exc:  # a step that fails on its own is a finding
                    with open(os.path.join(base, "step-failures.log"), "a") as log:
                        log.write(f"{name} step {n}: {exc!r}\n")
                    os._exit(3)
            try:
                os.setpgid(pid, pid)   # as the child does: set before anyone signals the group
            except OSError:
                pass
            print(pid, flush=True)
        elif command[0] == "reap":
            _, status = os.waitpid(int(command[1]), 0)
            print(status, flush=True)
        elif command[0] == "quit":
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
