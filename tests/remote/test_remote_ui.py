"""The app on remote files, driven with Pilot: a URL opens at its leaf, the
tail follows appends by polling, the picker lists a remote folder."""

from __future__ import annotations

import shutil

from session_tui.ui.app import SessionApp
from tests.builders.tree import chain, message
from tests.support import SAMPLES
from tests.ui.pilot_support import cursor_line, picker_read, session_screen, tail_armed, wait_for


async def test_a_url_opens_at_its_leaf_and_follows_appends(sftp, monkeypatch):
    monkeypatch.setenv("SESSION_TUI_POLL_SECONDS", "0.05")
    path = sftp.root / "live.jsonl"
    path.write_bytes(chain(5))
    async with SessionApp(sftp.url("live.jsonl"), watch=True).run_test(size=(120, 30)) as pilot:
        screen = await session_screen(pilot)
        assert screen.state.session.remote and len(screen.state.rows) == 5 and cursor_line(screen) == 6
        await tail_armed(pilot, screen)
        with open(path, "ab") as f:
            f.write(message("m5", "m4", content="written on the other machine"))
        await wait_for(pilot, lambda: len(screen.state.rows) == 6, what="the appended row")
        assert cursor_line(screen) == 7  # following the leaf


async def test_the_picker_lists_a_remote_folder_with_titles(sftp, tmp_path, monkeypatch):
    monkeypatch.setenv("SESSION_TUI_CACHE_DIR", str(tmp_path / "cache"))
    (sftp.root / "runs").mkdir()
    shutil.copy(SAMPLES / "tree" / "branched-summary.jsonl", sftp.root / "runs" / "a.jsonl")
    shutil.copy(SAMPLES / "tree" / "crash-torn.jsonl", sftp.root / "runs" / "b.jsonl")
    async with SessionApp([sftp.url("runs")], watch=False).run_test(size=(140, 30)) as pilot:
        picker = await picker_read(pilot, 2)
        rows = {info.path.rsplit("/", 1)[1]: info for info in picker.table.rows}
        assert rows["a.jsonl"].format == "tree" and rows["a.jsonl"].title
        assert rows["b.jsonl"].torn
        await pilot.press("enter")  # opens the file under the cursor, over SFTP
        screen = await session_screen(pilot)
        assert screen.state.session.remote


async def test_a_replaced_remote_file_is_read_again_in_a_worker(sftp, monkeypatch):
    monkeypatch.setenv("SESSION_TUI_POLL_SECONDS", "0.05")
    path = sftp.root / "live.jsonl"
    path.write_bytes(chain(5))
    async with SessionApp(sftp.url("live.jsonl"), watch=True).run_test(size=(120, 30)) as pilot:
        screen = await session_screen(pilot)
        await tail_armed(pilot, screen)
        path.write_bytes(chain(7, prefix="r"))
        await wait_for(
            pilot,
            lambda: (
                not screen.state.indexing
                and screen.state.session.find("r6") is not None
                and len(screen.state.rows) == 7
            ),
            what="the replaced file read again",
        )
