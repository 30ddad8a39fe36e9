"""What real clients wrote (tests/data/fleet-replay, recorded with
../shared/agent-sim), written again line by line at the times their records
carry, watched by the fleet: the states a user would have seen."""

from __future__ import annotations

import json
import os
from datetime import datetime

import pytest

from session_tui.model.fleet.fleet import Fleet
from session_tui.model.session.writer_liveness import Liveness
from tests.support import REPO

REPLAY = REPO / "tests" / "data" / "fleet-replay"
ALIVE, GONE = Liveness(True, "process running"), Liveness(False, "process gone")


def seconds(value: str) -> float:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


class Clock:
    """The replay's clock: each line is written at the time its record carries."""

    def __init__(self) -> None:
        self.now = 0.0

    def time(self) -> float:
        return self.now


def replay(name: str, tmp_path, process_check, monkeypatch):
    """(the fleet, the file, the states in the order they changed, the last write's time)."""
    from session_tui.model.session import session as session_module

    clock = Clock()
    monkeypatch.setattr(session_module, "time", clock)  # (when the session saw the file grow)
    lines = (REPLAY / name).read_text().splitlines(keepends=True)
    times = []
    for line in lines:
        stamp = json.loads(line).get("timestamp")
        times.append(seconds(stamp) if isinstance(stamp, str) else (times[-1] if times else None))
    path = tmp_path / name
    path.write_text("")
    fleet = Fleet([str(tmp_path)], window=1e10, stuck_after=300, process_check=process_check)
    states: list[str] = []
    for line, at in zip(lines, times, strict=True):
        with open(path, "a") as f:
            f.write(line)
        os.utime(path, (at, at))
        for now in (at, at + 0.5):  # the write, then the watch's next look
            clock.now = now
            fleet.update([str(path)], now=now)
            fleet.tick(now=now)
            state = fleet.agents[str(path)].observed.state.value if str(path) in fleet.agents else None
            if state and (not states or states[-1] != state):
                states.append(state)
    return fleet, path, states, times[-1]


@pytest.mark.parametrize("name", ["claude-work.jsonl", "codex-crash-sleep.jsonl"])
def test_a_run_to_its_end_works_runs_tools_and_waits_never_stuck_nor_crashed(tmp_path, monkeypatch, name):
    fleet, path, states, last = replay(name, tmp_path, lambda session, written: ALIVE, monkeypatch)
    assert states[0] == "working" and "tool" in states
    assert not {"stuck", "crashed", "idle"} & set(states), states
    fleet.tick(now=last + 3)
    assert fleet.agents[str(path)].observed.state.value == "waiting"
    fleet.tick(now=last + 16 * 60)
    assert fleet.agents[str(path)].observed.state.value == "idle"


def test_a_client_killed_mid_tool_is_a_tool_then_crashed_once_its_process_is_gone(tmp_path, monkeypatch):
    gone = {"now": False}
    fleet, path, states, last = replay(
        "pi-killed-mid-tool.jsonl", tmp_path, lambda session, written: GONE if gone["now"] else ALIVE, monkeypatch
    )
    seen = fleet.agents[str(path)].observed
    assert states[-1] == "tool" and seen.tool is not None and "bash" in seen.tool, (states, seen.tool)
    gone["now"] = True  # kill -9: no pi runs in its directory any more
    fleet.tick(now=last + 11)
    seen = fleet.agents[str(path)].observed
    assert seen.state_words() == "crashed (process gone)" and "crashed" in fleet.agents[str(path)].alerts
