"""Writer for the crash-safety test: loops on the real core API until killed."""

import os
import random
import sys

sys.path.insert(0, sys.argv[2])

from openalice.core import fs, jsonl

directory = sys.argv[1]
journal = jsonl.Journal(os.path.join(directory, "journal.jsonl"))
rng = random.Random(os.getpid())
i = 0
while True:
    i += 1
    blob = "x" * rng.randint(0, 200_000)
    fs.atomic_write_json(os.path.join(directory, "state.json"), {"n": i, "blob": blob})
    journal.append({"type": "crash.test", "n": i, "pad": "y" * rng.randint(0, 5000)})
    if i == 1:
        print("ready", flush=True)
