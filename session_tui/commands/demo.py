"""`session-tui demo`: a scripted agent (no model, no network) writes a
realistic native ``tree`` session through the store while the TUI is open
on it: tool-calling turns on a small coding task, a branch (the leaf moved
back and a second answer), a summary, and finally a crash that leaves a
dangling tool call and a torn last line.

Every record goes through ``TreeSessionStore`` except the torn one, which
``crash_mid_write`` writes on purpose, under the store's writer lock.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import orjson

from ..model.errors import SessionError
from ..model.sanitize import inert
from ..store import Refused, TreeSessionStore
from ..store.session_store import now
from ..ui.app import SessionApp

if TYPE_CHECKING:  # pragma: no cover
    from ..model.settings import Settings
    from .options import Commands

DEMO_FILE = "demo.jsonl"
REPO = "/home/dev/src/timekit"
PACE = 1.0  # 1.0: the script's own delays, about a minute in all; 0: full speed


class Halted(Exception):
    """The demo was stopped before the end of its script."""


def crash_mid_write(store: TreeSessionStore, record: dict) -> None:
    """Simulate an agent killed while writing ``record``: append the first
    half of its line, without a newline (a torn tail). The one deliberately
    raw write of the demo, under the store's writer lock."""
    line = orjson.dumps(record)
    with store.store.locked():
        fd = os.open(store.path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0))
        try:
            os.write(fd, line[: len(line) // 2])
            os.fsync(fd)
        finally:
            os.close(fd)


class DemoAgent:
    """Plays the script into the session file at ``path``. ``pace`` scales
    the delays between records; ``narrate`` is told what just happened at
    the moments worth a look."""

    def __init__(self, path: str, pace: float = PACE, narrate: Callable[[str], None] | None = None) -> None:
        self.store = TreeSessionStore.open(path)
        self.pace = pace
        self.narrate = narrate or (lambda text: None)
        self.halted = threading.Event()
        self.error: Exception | None = None

    def run(self) -> None:
        """Write the whole script (or up to ``halt()``); a write the store
        refuses ends it, kept in ``error``."""
        try:
            self._script()
        except Halted:
            pass
        except (Refused, SessionError, OSError) as exc:
            self.error = exc
            self.narrate(f"The demo stopped: {inert(str(exc), keep_newlines=False)}")

    def halt(self) -> None:
        self.halted.set()

    def _wait(self, seconds: float) -> None:
        if self.pace and self.halted.wait(seconds * self.pace):
            raise Halted()

    # -- the script's vocabulary ----------------------------------------------------
    def _say(self, role: str, content: str, after: float, **usage: int) -> str:
        self._wait(after)
        message: dict[str, Any] = {"role": role, "content": content}
        if usage:
            message["usage"] = _usage(**usage)
        return self.store.append_message(message)

    def _call(self, after: float, calls: list[tuple[str, dict[str, Any]]], **usage: int) -> list[str]:
        """An assistant message calling ``calls`` [(tool, arguments)]; returns the call ids."""
        self._wait(after)
        ids = [f"call_{uuid.uuid4().hex[:12]}" for _ in calls]
        self.store.append_message(
            {
                "role": "assistant",
                "content": None,
                "usage": _usage(**usage),
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": name, "arguments": orjson.dumps(arguments).decode()},
                    }
                    for call_id, (name, arguments) in zip(ids, calls, strict=True)
                ],
            }
        )
        return ids

    def _result(self, call_id: str, output: str, after: float) -> str:
        self._wait(after)
        return self.store.append_message({"role": "tool", "tool_call_id": call_id, "content": output})

    # -- the script -----------------------------------------------------------------
    def _script(self) -> None:
        self.narrate("A scripted agent is writing this session: watch the entries arrive (no model, no network).")
        self._say("system", SYSTEM, after=1.5)
        ask = self._say("user", ASK, after=2)
        [run] = self._call(3, [("bash", {"command": "python -m pytest -q"})], prompt=812, completion=24)
        self._result(run, TESTS_FAIL, after=2.5)
        [read] = self._call(3, [("read_file", {"path": "timekit/durations.py"})], prompt=1204, completion=31)
        self._result(read, DURATIONS_PY, after=0.5)
        tests, log = self._call(
            3.5,
            [
                ("read_file", {"path": "tests/test_durations.py"}),
                ("bash", {"command": "git log -1 -p --stat -- timekit/durations.py"}),
            ],
            prompt=1690,
            completion=58,
        )
        self._result(tests, TEST_DURATIONS_PY, after=0.5)
        self._result(log, GIT_LOG, after=0.8)
        [edit] = self._call(
            4,
            [("edit_file", {"path": "timekit/durations.py", "old": OLD_PATTERN, "new": NEW_PATTERN})],
            prompt=2480,
            completion=97,
        )
        self._result(edit, "applied 1 edit to timekit/durations.py", after=0.5)
        [rerun] = self._call(2, [("bash", {"command": "python -m pytest -q"})], prompt=2630, completion=22)
        passed = self._result(rerun, TESTS_PASS, after=2.5)
        self._say("assistant", ANSWER, after=4, prompt=2790, completion=164)

        self._wait(3)
        self.store.set_active_leaf(passed)
        self.narrate("The leaf moved back to the passing test run: the next answer starts a branch (⋔).")
        second = self._say("assistant", SECOND_ANSWER, after=4, prompt=2790, completion=121)

        self._wait(3)
        self.store.append_summary(SUMMARY, from_id=ask, to_id=second, tokens_before=9840, tokens_after=620)
        self.narrate("A summary replaced the first turns: press c on the last entry to see the context.")
        self._say("user", FOLLOW_UP, after=3)
        [add] = self._call(
            4,
            [("edit_file", {"path": "tests/test_durations.py", "old": "", "new": NEW_TEST})],
            prompt=1480,
            completion=88,
        )
        self._result(add, "applied 1 edit to tests/test_durations.py", after=0.5)
        [final] = self._call(3, [("bash", {"command": "python -m pytest -q"})], prompt=1610, completion=22)

        self._wait(3)
        crash_mid_write(
            self.store,
            {
                "type": "message",
                "id": str(uuid.uuid4()),
                "parentId": self.store.active_leaf_id(),
                "createdAt": now(),
                "message": {"role": "tool", "tool_call_id": final, "content": TESTS_PASS_7},
            },
        )
        self.narrate(
            "The agent crashed mid-write: a dangling call and a torn line. e jumps to the problems, t trims the call."
        )


def _usage(prompt: int, completion: int) -> dict[str, int]:
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def create_demo_file(directory: str | None) -> str:
    """A new ``demo.jsonl`` holding its header, in ``directory`` (made if
    missing; default: a new temp dir). Refused if it exists."""
    if directory is None:
        directory = tempfile.mkdtemp(prefix="session-tui-demo-")
    else:
        os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, DEMO_FILE)
    TreeSessionStore.create(path, cwd=REPO, model="gpt-4.1-mini")
    return path


def run_demo(
    directory: str | None, *, fast: bool = False, headless: bool = False, settings: Settings | None = None
) -> int:
    """``session-tui demo``: write the demo session with the TUI open on it,
    or with ``headless`` only write it; print the file's path first."""
    try:
        path = create_demo_file(directory)
    except Refused as exc:
        print(f"session-tui demo: refused: {inert(str(exc), keep_newlines=False)}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"session-tui demo: {inert(str(directory), keep_newlines=False)}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(inert(path, keep_newlines=False), flush=True)
    pace = 0 if fast else PACE
    if headless:
        agent = DemoAgent(path, pace)
        agent.run()
    else:
        app = DemoApp(path, pace, settings)
        try:
            app.run()
        finally:
            app.stop_agent()
        agent = app.agent
    if agent.error is not None:
        print(f"session-tui demo: {inert(str(agent.error), keep_newlines=False)}", file=sys.stderr)
        return 2
    return 0


class DemoApp(SessionApp):
    """The TUI on the demo file; the agent starts writing, in a thread, once
    the first frame is on screen, and narrates in notifications."""

    def __init__(self, path: str, pace: float = PACE, settings: Settings | None = None) -> None:
        super().__init__(path, settings=settings)
        self.agent = DemoAgent(path, pace, narrate=self.narrate)
        self.writer = threading.Thread(target=self.agent.run, name="demo-agent", daemon=True)

    def on_ready(self) -> None:
        self.writer.start()

    def narrate(self, text: str) -> None:
        self.notify(text, title="demo", timeout=8, markup=False)  # thread-safe

    def stop_agent(self) -> None:
        self.agent.halt()
        if self.writer.is_alive():
            self.writer.join()


# -- what the agent says and its tools return ---------------------------------------
SYSTEM = (
    f"You are a coding agent working in the repository at {REPO}. Use the tools to read and edit files "
    "and to run commands. Keep changes minimal and run the tests before you answer."
)

ASK = "The duration tests fail since this morning's refactor. Can you find out why and fix it?"

TESTS_FAIL = """\
exit code 1
..FF..
=================================== FAILURES ===================================
__________________________ test_milliseconds __________________________

    def test_milliseconds():
>       assert parse_duration("500ms") == 0.5
E       AssertionError: assert 30000.0 == 0.5

tests/test_durations.py:12: AssertionError
__________________________ test_mixed_units ___________________________

    def test_mixed_units():
>       assert parse_duration("1h30m15s") + parse_duration("250ms") == 5415.25
E       AssertionError: assert 20415.0 == 5415.25

tests/test_durations.py:16: AssertionError
=========================== short test summary info ============================
FAILED tests/test_durations.py::test_milliseconds - AssertionError
FAILED tests/test_durations.py::test_mixed_units - AssertionError
2 failed, 4 passed in 0.07s"""

OLD_PATTERN = r'_PART = re.compile(r"(\d+)(h|m|s|ms)")'
NEW_PATTERN = r'_PART = re.compile(r"(\d+)(ms|h|m|s)")  # "ms" before "m": the first alternative that matches wins'

DURATIONS_PY = f'''\
"""Parse human durations such as "1h30m", "45s" or "250ms"."""

import re

{OLD_PATTERN}
UNITS = {{"h": 3600, "m": 60, "s": 1, "ms": 0.001}}


def parse_duration(text: str) -> float:
    """Seconds in ``text``."""
    total = 0.0
    for number, unit in _PART.findall(text.replace(" ", "")):
        total += int(number) * UNITS[unit]
    return total
'''

TEST_DURATIONS_PY = """\
from timekit.durations import parse_duration


def test_hours():
    assert parse_duration("2h") == 7200


def test_minutes_and_seconds():
    assert parse_duration("1m 30s") == 90


def test_milliseconds():
    assert parse_duration("500ms") == 0.5


def test_mixed_units():
    assert parse_duration("1h30m15s") + parse_duration("250ms") == 5415.25
"""

GIT_LOG = f"""\
commit 4be1f09c2d7e4a8b9c0d1e2f3a4b5c6d7e8f9a0b
Author: Dana <dana@example.com>
Date:   Tue Mar 17 08:41:12 2026 +0100

    durations: one regex for all units, units sorted

 timekit/durations.py | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

@@ -3,5 +3,5 @@
 import re

-_PART = re.compile(r"(\\d+)(ms|h|m|s)")
+{OLD_PATTERN}
 UNITS = {{"h": 3600, "m": 60, "s": 1, "ms": 0.001}}"""

TESTS_PASS = "exit code 0\n......\n6 passed in 0.05s"
TESTS_PASS_7 = "exit code 0\n.......\n7 passed in 0.06s"

ANSWER = """\
Fixed. This morning's refactor sorted the unit alternatives to `(h|m|s|ms)`. A regex alternation takes the \
first alternative that matches, so `500ms` was read as 500 **minutes** followed by a stray `s`.

- `timekit/durations.py`: the pattern is `(ms|h|m|s)` again, with a comment saying why `ms` comes first.
- `python -m pytest -q`: 6 passed."""

SECOND_ANSWER = """\
The tests pass again (6 passed). The cause: `(h|m|s|ms)` lets `m` match before `ms` gets a chance, so \
`500ms` parsed as 500 minutes. I put `ms` first and left a comment on the pattern.

To keep it from coming back, I can add a regression test that mixes `m` and `ms`, such as `1m250ms`."""

SUMMARY = """\
## Goal
Fix the failing duration tests in timekit.

## Done
- Cause: the refactor reordered the regex alternation to `(h|m|s|ms)`; `500ms` matched as minutes.
- Fix: `(ms|h|m|s)` in timekit/durations.py, with a comment; the suite passes (6 tests).

## Next
- Add a regression test that mixes `m` and `ms` (`1m250ms` == 60.25)."""

FOLLOW_UP = "Yes, please add that regression test."

NEW_TEST = """

def test_minutes_then_milliseconds():
    assert parse_duration("1m250ms") == 60.25
"""


def add_parser(commands: Commands) -> None:
    demo = commands.add_parser(
        "demo",
        help="watch a scripted agent write a session, with branches, a summary and a crash",
        description="A scripted agent (no model, no network) writes a native tree session through the store "
        "while the terminal UI is open on it: tool-calling turns, a branch, a summary, and a crash "
        "that leaves a dangling call and a torn line.",
    )
    demo.add_argument("directory", metavar="DIR", nargs="?", help="where to write demo.jsonl (default: a new temp dir)")
    demo.add_argument("--fast", action="store_true", help="write at full speed")
    demo.add_argument("--headless", action="store_true", help="do not open the UI; print the file's path")


def run(args: argparse.Namespace, settings: Settings) -> int:
    return run_demo(args.directory, fast=args.fast, headless=args.headless, settings=settings)
