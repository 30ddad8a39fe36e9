"""The picker's search of every file's contents survives a damaged index
(pages overwritten after a first search: moved aside, built again, and the
search answers) and a full disk (one line, not a search that never ends); real Pilot sessions over real files."""

from __future__ import annotations

import os
import shutil
import sqlite3

from session_tui.model.search_index.database import NAME
from session_tui.ui.app import SessionApp
from session_tui.ui.screens.files import FilesScreen
from tests.support import SAMPLES
from tests.ui.pilot_support import wait_for


async def contents_search(pilot, screen: FilesScreen, text: str) -> dict:
    before = screen.search_id
    screen._search(text)
    await wait_for(
        pilot, lambda: screen.search_id > before and not screen.searching, timeout=60, what=f"the search of {text!r}"
    )
    return screen.matches


async def test_a_damaged_index_is_built_again_at_the_next_picker_search(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("SESSION_TUI_CACHE_DIR", str(cache))
    root = tmp_path / "sessions"
    root.mkdir()
    for sample in ("tree/crash-dangling.jsonl", "chat/session-fix-rounding.jsonl"):
        shutil.copy(SAMPLES / sample, root / os.path.basename(sample))
    async with SessionApp([str(root)], watch=False).run_test(size=(160, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, FilesScreen), what="the picker")
        screen = pilot.app.screen
        first = await contents_search(pilot, screen, "rounding")
        assert first, screen.search_state
        index = cache / NAME
        assert not os.path.exists(f"{index}-wal")  # (each search closes the index: all of it in the file)
        size = index.stat().st_size
        with open(index, "r+b") as f:  # the pages after the header overwritten: damage, not an unreadable header
            f.seek(4096)
            f.write(os.urandom(max(4096, size - 8192)))
        (root / "more.jsonl").write_bytes((SAMPLES / "tree" / "crash-dangling.jsonl").read_bytes())
        again = await contents_search(pilot, screen, "Rounding")  # (the same words: another query's text)
        assert again == first, screen.search_state
        assert any(name.startswith(NAME + ".corrupt") for name in os.listdir(cache))


async def test_a_full_disk_is_one_line_in_the_picker_not_a_search_that_never_ends(tmp_path, monkeypatch):
    """(The disk filled up while the index was written: the error SQLite gives then, raised where it would be.)"""
    from session_tui.model.search_index import indexer

    monkeypatch.setenv("SESSION_TUI_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "sessions"
    root.mkdir()
    shutil.copy(SAMPLES / "chat" / "session-fix-rounding.jsonl", root / "a.jsonl")

    def full(*args, **kwargs):
        raise sqlite3.OperationalError("database or disk is full")

    async with SessionApp([str(root)], watch=False).run_test(size=(160, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, FilesScreen), what="the picker")
        screen = pilot.app.screen
        monkeypatch.setattr(indexer, "catch_up", full)
        await contents_search(pilot, screen, "rounding")
        said = screen.search_state
        assert said == f"the search index {tmp_path / 'cache' / NAME}: database or disk is full", said
        assert os.listdir(tmp_path / "cache").count(NAME) == 1  # (the index kept, not moved aside)
