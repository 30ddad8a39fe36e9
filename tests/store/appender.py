"""A live writer for the racing tests, run as its own process.

Reads commands on stdin, one per line: ``PATH N RATE MODE TAG DELAY_MS``,
and appends N lines to PATH at RATE lines/s after DELAY_MS, each a whole
record in one ``write()``: ``reopen`` opens, appends and closes for every
line (as Claude Code and pi write), ``held`` opens once and keeps the
descriptor until the last line (as Codex's rollout recorder does). Prints
``go`` when it starts and ``done`` when it has written the last line.
"""

from __future__ import annotations

import json
import os
import sys
import time


def line(tag: str, n: int) -> bytes:
    record = {
        "type": "message",
        "id": f"{tag}-{n}",
        "parentId": f"{tag}-{n - 1}" if n else None,
        "createdAt": "2026-03-14T11:05:00.000Z",
        "message": {"role": "user", "content": f"probe {tag} {n}"},
    }
    return json.dumps(record, separators=(",", ":")).encode() + b"\n"


def append(path: str, count: int, rate: float, mode: str, tag: str, delay_ms: float) -> None:
    print("go", flush=True)
    time.sleep(delay_ms / 1000)
    flags = os.O_WRONLY | os.O_APPEND
    fd = os.open(path, flags) if mode == "held" else -1
    start = time.monotonic()
    for n in range(count):
        wait = start + n / rate - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        data = line(tag, n)
        if mode == "held":
            os.write(fd, data)
        else:
            one = os.open(path, flags)
            os.write(one, data)
            os.close(one)
    if fd >= 0:
        os.close(fd)
    print("done", flush=True)


def main() -> None:
    for command in sys.stdin:
        path, count, rate, mode, tag, delay = command.split()
        append(path, int(count), float(rate), mode, tag, float(delay))


if __name__ == "__main__":
    main()
