"""Edits from the TUI: a modal with the plan, Confirm / Cancel, undo."""

from __future__ import annotations

import json
import os
import re
import shutil
import time

import pytest

from session_tui.model.session.context import tool_issues
from session_tui.ui.app import SessionApp
from session_tui.ui.screens.confirm import ConfirmScreen
from session_tui.ui.widgets.status import StatusLine
from tests.store.test_store import old
from tests.support import SAMPLES, held_open

from .pilot_support import cursor_line, session_screen, wait_for


def copy(tmp_path, rel):
    dest = tmp_path / os.path.basename(rel)
    shutil.copy(SAMPLES / rel, dest)
    os.chmod(dest, 0o644)
    old(dest)
    return dest


async def test_trim_closes_the_dangling_call_and_undo_puts_it_back(tmp_path):
    path = copy(tmp_path, "tree/crash-torn.jsonl")
    original = path.read_bytes()
    async with SessionApp(str(path)).run_test(size=(120, 40)) as pilot:
        screen = await session_screen(pilot)
        await pilot.press("t")
        assert isinstance(pilot.app.screen, ConfirmScreen)
        assert "call_j9Y1rP3nO8" in pilot.app.screen.body and "torn" in pilot.app.screen.body
        await pilot.press("escape")  # cancel: nothing changes
        assert path.read_bytes() == original
        await pilot.press("t")
        await pilot.click("#close")
        await wait_for(pilot, lambda: screen.state.session.entries == 7, what="the closing result")
        assert screen.state.session.lines.torn == b"" and tool_issues(screen.state.session) == ([], [])
        assert cursor_line(screen) == 8  # following the new leaf
        await pilot.press("u")
        await pilot.click("#confirm")
        await wait_for(pilot, lambda: path.read_bytes() == original, what="the undo")
        await wait_for(pilot, lambda: screen.state.session.entries == 6, what="the reload")


async def test_make_leaf_on_a_tree_and_refused_on_chat(tmp_path):
    path = copy(tmp_path, "tree/branched-summary.jsonl")
    async with SessionApp(str(path)).run_test(size=(120, 40)) as pilot:
        screen = await session_screen(pilot)
        await pilot.press("g", "j")
        await pilot.press("a")
        await pilot.click("#confirm")
        await wait_for(pilot, lambda: screen.state.session.active_leaf() == 1, what="the moved leaf")
        last = json.loads(path.read_bytes().splitlines()[-1])
        assert last["type"] == "active_leaf" and last["activeLeafId"].startswith("e1dbe1eb")
    chat = copy(tmp_path, "chat/session-fix-rounding.jsonl")
    before = chat.read_bytes()
    async with SessionApp(str(chat)).run_test(size=(120, 40)) as pilot:
        await session_screen(pilot)
        await pilot.press("g", "j", "a")
        assert isinstance(pilot.app.screen, ConfirmScreen) and "Fork" in pilot.app.screen.title_text
        await pilot.click("#confirm")
        fork = tmp_path / "session-fix-rounding.fork-1.jsonl"
        await wait_for(pilot, fork.exists, what="the fork offered instead")
        assert chat.read_bytes() == before and fork.read_bytes().count(b"\n") == 2


async def test_fork_from_the_tui(tmp_path):
    path = copy(tmp_path, "tree/branched-summary.jsonl")
    async with SessionApp(str(path)).run_test(size=(120, 40)) as pilot:
        await session_screen(pilot)
        await pilot.press("F")
        await pilot.click("#confirm")
        await wait_for(pilot, lambda: (tmp_path / "branched-summary.fork-1.jsonl").exists(), what="the fork")


async def test_a_live_writer_needs_a_second_confirmation(tmp_path, monkeypatch):
    monkeypatch.setenv("SESSION_TUI_STUCK_AFTER", "300")
    path = copy(tmp_path, "tree/crash-dangling.jsonl")
    old = time.time() - 301
    os.utime(path, (old, old))  # quiet: its call is stuck, a problem to repair
    async with SessionApp(str(path)).run_test(size=(120, 40)) as pilot:
        screen = await session_screen(pilot)
        with held_open(path):  # its writer comes back: it holds the file open (as Codex does)
            status = screen.query_one(StatusLine)
            await wait_for(pilot, lambda: "running" in status.text.plain, what="its call running again")
            await pilot.press("t")
            await pilot.click("#close")
            await wait_for(
                pilot,
                lambda: isinstance(pilot.app.screen, ConfirmScreen) and "live agent" in pilot.app.screen.title_text,
                what="the force question",
            )
            await pilot.click("#force")
            await wait_for(pilot, lambda: tool_issues(screen.state.session) == ([], []), what="the forced close")


async def test_repair_inside_the_branch_of_a_tree_forks_and_opens_the_fork(tmp_path):
    from tests.builders.tree import call, chain, message, result

    path = tmp_path / "inside.jsonl"
    path.write_bytes(
        chain(2)
        + call("c1", "m1", "a", "b")
        + result("r1", "c1", "a")
        + message("m3", "r1", "user", "go on")
        + message("m4", "m3", "assistant", "ok")
    )
    old(path)
    original = path.read_bytes()
    async with SessionApp(str(path)).run_test(size=(120, 40)) as pilot:
        first = await session_screen(pilot)
        await pilot.press("t")
        dialog = pilot.app.screen
        assert isinstance(dialog, ConfirmScreen)
        assert [label for _, label in dialog.choices] == ["Fork with results", "Cut back"]
        assert "this file is not changed" in dialog.body and "inside.fork-1.jsonl" in dialog.body
        await pilot.click("#close")
        fork = tmp_path / "inside.fork-1.jsonl"
        await wait_for(
            pilot,
            lambda: getattr(pilot.app.screen, "path", None) == str(fork) and not pilot.app.screen.state.indexing,
            what="the fork, opened",
        )
        opened = pilot.app.screen
        assert opened is not first and tool_issues(opened.state.session) == ([], [])
        assert opened.tree_widget.cursor_entry == opened.state.session.active_leaf()  # at its leaf
        assert path.read_bytes() == original


async def test_repair_a_zeroed_result_line_then_undo_the_last_step(tmp_path):
    lines = [
        {"role": "user", "content": "Run the tests"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "run", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "2 passed"},
        {"role": "assistant", "content": "All tests pass."},
    ]
    raw = [json.dumps(line).encode() for line in lines]
    raw[2] = b"\x00" * len(raw[2])  # the result's block zeroed by a crash
    path = tmp_path / "zeroed.jsonl"
    path.write_bytes(b"\n".join(raw) + b"\n")
    old(path)
    async with SessionApp(str(path)).run_test(size=(120, 40)) as pilot:
        screen = await session_screen(pilot)
        await pilot.press("t")
        assert [label for _, label in pilot.app.screen.choices] == ["Drop bad lines", "Insert results", "Cut back"]
        await pilot.click("#drop_bad")
        await wait_for(
            pilot,
            lambda: b"\x00" not in path.read_bytes() and not screen.state.session.bad,
            what="the bad line dropped",
        )
        dropped = path.read_bytes()
        assert list(tmp_path.glob("zeroed.jsonl.bad-*"))
        await pilot.press("t")
        assert [label for _, label in pilot.app.screen.choices] == ["Insert results", "Cut back"]
        await pilot.click("#close")
        await wait_for(
            pilot,
            lambda: screen.state.session.entries == 4 and tool_issues(screen.state.session) == ([], []),
            what="the result inserted",
        )
        assert json.loads(path.read_bytes().splitlines()[2])["tool_call_id"] == "call_1"
        await pilot.press("u")
        await pilot.click("#confirm")
        await wait_for(pilot, lambda: path.read_bytes() == dropped, what="the undo, exact")


@pytest.mark.parametrize("ledger", [True, False])
async def test_after_our_own_edit_the_dialog_does_not_say_the_agent_just_wrote_the_file(tmp_path, monkeypatch, ledger):
    """A leaf move writes the file, and pi's pointer record carries today's
    time: that write is session-tui's, not the agent's, so the next edit's
    dialog warns of no agent writing a moment ago. Where the writer's
    liveness cannot be told (no ``/proc``: no process table), only the
    time rule decides, and only the own-writes ledger tells our write from
    the agent's: without it (``ledger=False``) the dialog does say so,
    which proves this test guards the ledger."""
    from session_tui.model.reading import open_writers, own_writes

    monkeypatch.setenv("SESSION_TUI_STUCK_AFTER", "300")
    monkeypatch.setattr(open_writers, "process_table", lambda fresh_after=None: None)
    if not ledger:
        monkeypatch.setattr(own_writes, "record", lambda *args, **kwargs: None)
    name = "2026-03-14T09-12-03-417Z_49367314-07c6-4a67-8508-8efab1434a5b.jsonl"
    path = tmp_path / name
    shutil.copy(SAMPLES / "pi" / name, path)  # a fresh copy of an old session: written now, by no agent
    async with SessionApp(str(path)).run_test(size=(120, 40)) as pilot:
        screen = await session_screen(pilot)
        # (the dialog's warning comes from the live state the problems' pass finds: looked at once it is)
        await wait_for(pilot, lambda: screen.state.live_state is not None, what="the live state")
        await pilot.press("g", "j", "a")
        assert isinstance(pilot.app.screen, ConfirmScreen)
        assert "wrote this file" not in pilot.app.screen.warning, pilot.app.screen.warning
        await pilot.click("#confirm")
        await wait_for(pilot, lambda: b"session-tui/leaf" in path.read_bytes(), what="the moved leaf")
        await wait_for(pilot, lambda: screen.state.session.tree.quiet == 1, what="the reload")
        seen = screen.state.live_state  # (the dialog reads the last state told: one of the moved file's)
        await wait_for(pilot, lambda: screen.state.live_state not in (None, seen), what="the moved file's state")
        await pilot.press("j", "a")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen), what="the second move's dialog")
        warning = pilot.app.screen.warning
        # without the ledger our own write of a moment ago (0-2 s under load) is taken for the agent's
        assert (re.search(r"The agent wrote this file [0-2] s ago", warning) is not None) is not ledger, warning
        await pilot.press("escape")


async def test_after_a_pi_leaf_move_the_view_names_the_entry_it_points_at(tmp_path):
    """pi keeps session-tui's leaf pointer as an entry (pi's leaf is its last
    entry): the view names the entry it points at as ``check`` does (the
    status line's leaf and entries, the branch list), and does not offer to
    move the leaf to the entry that already is it."""
    from session_tui.ui.screens.branches import BranchesScreen
    from tests.support import check_json

    name = "2026-03-14T09-12-03-417Z_49367314-07c6-4a67-8508-8efab1434a5b.jsonl"
    path = tmp_path / name
    shutil.copy(SAMPLES / "pi" / name, path)
    async with SessionApp(str(path)).run_test(size=(140, 40)) as pilot:
        screen = await session_screen(pilot)
        await pilot.press("g", "j", "a")
        assert isinstance(pilot.app.screen, ConfirmScreen)
        await pilot.click("#confirm")
        await wait_for(pilot, lambda: screen.state.session.tree.quiet == 1, what="the reload with the pointer")
        session = screen.state.session
        target = session.shown_leaf()
        assert target != session.active_leaf()  # (the pointer record: pi's active leaf)
        (report,) = check_json(path)
        status = screen.query_one(StatusLine)
        await wait_for(pilot, lambda: f"(line {report['active_leaf_line']})" in status.text.plain, what="the leaf")
        plain = status.text.plain
        assert f"{report['entries']} entries" in plain and report["active_leaf"][:13] in plain, plain

        screen.jump_to_entry(target)
        await wait_for(pilot, lambda: screen.tree_widget.cursor_entry == target, what="the cursor on the leaf")
        await pilot.press("a")
        await pilot.pause()
        assert not isinstance(pilot.app.screen, ConfirmScreen), pilot.app.screen.title
        assert path.read_bytes().count(b"session-tui/leaf") == 1

        await pilot.press("b")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, BranchesScreen), what="the branch list")
        table = pilot.app.screen.table
        await wait_for(pilot, lambda: table.rows, what="the branches listed")
        leaves = [b.leaf for b in table.rows]
        assert len(leaves) == len(set(leaves)) and [b.leaf for b in table.rows if b.active] == [target], leaves
