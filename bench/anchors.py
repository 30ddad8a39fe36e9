"""What the benches share: the bare orjson loop every figure of reading is a
ratio to, and the environment a process is timed in."""

from __future__ import annotations

import os

#: ``python -c LOOP FILE...``: every line of the files parsed, nothing else (the floor of reading them)
LOOP = """
import sys, orjson
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        for line in f:
            try:
                orjson.loads(line)
            except orjson.JSONDecodeError:
                pass
"""

#: bytecode cached, as an installed package has it (a sandbox's PYTHONDONTWRITEBYTECODE recompiles each start)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
