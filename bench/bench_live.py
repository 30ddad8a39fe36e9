"""Benchmark following a live file in a real terminal (a pseudo-terminal, 160×45).

    python bench/bench_live.py [--appends 100] [--interval 0.1]

* terminal bytes per appended entry: everything the app writes while a
  writer appends entries to a native session of 40 entries, one every
  ``--interval`` seconds, as ../shared/tools/tail_bytes.py does.
* status lag: the writer appends, without pausing, a tool call then its
  result, over and over; after each append, the time until the status line
  says what the file now holds (the call running after a call, no problem
  and the model answering after its result) and the row is on screen.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests.terminal import Terminal  # noqa: E402

HEADER = {"type": "session", "version": 1, "id": "s", "createdAt": "2026-04-10T10:00:00.000Z"}


def message(i: int, parent: str | None, **fields) -> dict:
    body = fields or {"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i} " + "lorem ipsum " * 8}
    return {
        "type": "message",
        "id": f"e{i}",
        "parentId": parent,
        "createdAt": "2026-04-10T10:00:00.000Z",
        "message": body,
    }


def live_file(entries: int = 40) -> str:
    path = os.path.join(tempfile.mkdtemp(), "live.jsonl")
    records = [HEADER] + [message(i, f"e{i - 1}" if i else None) for i in range(entries)]
    with open(path, "w") as f:
        f.write("".join(json.dumps(r) + "\n" for r in records))
    return path


def append(path: str, record: dict) -> None:
    with open(path, "a") as f:
        f.write(json.dumps(record) + "\n")


def bytes_per_entry(appends: int, interval: float) -> float:
    path = live_file()
    with Terminal(path) as term:
        term.wait_text("message 39")
        term.wait_quiet(1.0)
        start = len(term.output)
        for i in range(40, 40 + appends):
            append(path, message(i, f"e{i - 1}"))
            time.sleep(interval)  # the writer's pace, not a wait for the app
        term.wait_quiet(1.0)
        return (len(term.output) - start) / appends


def status_lag(pairs: int) -> list[float]:
    path = live_file()
    lags = []
    with Terminal(path) as term:
        term.wait_text("message 39")
        term.wait_quiet(1.0)
        parent = "e39"
        for n in range(pairs):
            i = 40 + 2 * n
            call = {
                "role": "assistant",
                "content": f"call {i}",
                "tool_calls": [{"id": f"c{i}", "type": "function", "function": {"name": "run", "arguments": "{}"}}],
            }
            for record, shows in (
                (message(i, parent, **call), ("✓ no problems  running run", f"call {i}")),
                (
                    message(i + 1, f"e{i}", role="tool", tool_call_id=f"c{i}", content=f"result {i + 1}"),
                    ("✓ no problems  answering", f"result {i + 1}"),
                ),
            ):
                began = time.monotonic()
                append(path, record)
                term.wait_for(
                    lambda screen, shows=shows: all(s in screen for s in shows), timeout=30, what=" and ".join(shows)
                )
                lags.append(time.monotonic() - began)
            parent = f"e{i + 1}"
    return lags


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--appends", type=int, default=100)
    parser.add_argument("--interval", type=float, default=0.1)
    args = parser.parse_args()
    print(
        f"terminal output while following, 160×45: {bytes_per_entry(args.appends, args.interval):,.0f} bytes "
        f"per appended entry ({args.appends} appends, one every {args.interval:g} s)"
    )
    lags = sorted(status_lag(25))
    print(
        f"append → row and status line right (what the agent does): median {statistics.median(lags) * 1000:.0f} ms, "
        f"p95 {lags[int(len(lags) * 0.95)] * 1000:.0f} ms, max {lags[-1] * 1000:.0f} ms ({len(lags)} appends)"
    )


if __name__ == "__main__":
    main()
