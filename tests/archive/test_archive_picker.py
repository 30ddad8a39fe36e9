"""The picker over the team archive (``session-tui DB_URL``), driven by
Pilot: rows of every machine grouped by machine and project with a
``machine`` column, a session opened from the archive, and every edit of it
refused with one line naming its machine. And ``compactions`` on an
archived session, agreeing with the file's."""

from __future__ import annotations

import json

from session_tui.ui.app import SessionApp
from session_tui.ui.screens.files import FilesScreen
from tests.support import SAMPLES, run_cli
from tests.ui.pilot_support import session_screen, wait_for

from .test_archive import init, push

TREE = SAMPLES / "tree" / "branched-summary.jsonl"
CHAT = SAMPLES / "chat" / "session-fix-rounding.jsonl"
TORN = SAMPLES / "tree" / "crash-torn.jsonl"
PI = SAMPLES / "pi" / "2026-03-14T09-12-03-417Z_49367314-07c6-4a67-8508-8efab1434a5b.jsonl"


def pushed(db_url: str) -> str:
    init(db_url)
    for machine, paths in (("build-box", [TREE, CHAT]), ("laptop", [PI, TORN])):
        done = push(db_url, *map(str, paths), "--machine", machine, "--no-redact")
        assert done.returncode == 0, done.stderr
    return db_url


async def archive_picker(pilot, rows: int) -> FilesScreen:
    await wait_for(
        pilot,
        lambda: (
            isinstance(pilot.app.screen, FilesScreen)
            and len(pilot.app.screen.table.rows) == rows
            and all(info.known for info in pilot.app.screen.table.rows)
        ),
        what=f"the picker with its {rows} archived rows read",
    )
    return pilot.app.screen


async def test_the_picker_lists_every_machine_grouped_with_a_machine_column(db_url, monkeypatch, tmp_path):
    monkeypatch.setenv("SESSION_TUI_CACHE_DIR", str(tmp_path / "cache"))
    pushed(db_url)
    async with SessionApp([db_url]).run_test(size=(150, 30)) as pilot:
        screen = await archive_picker(pilot, 4)
        table = screen.table
        places = [
            (p.partition("#")[2].partition("/")[0], p.partition("#")[2].partition("/")[2])
            for p in (info.path for info in table.rows)
        ]
        machines = [machine for machine, _ in places]
        assert machines == ["build-box", "build-box", "laptop", "laptop"]  # grouped by machine, then project
        projects = ["/" + path.rpartition("/")[0] for _, path in places]
        assert projects[2:] == sorted(projects[2:])  # (laptop's two sessions: pi's folder before tree's)
        heading = table.render_line(0).text
        assert heading.startswith("machine ") and "title" in heading
        lines = [table.render_line(y).text for y in range(1, 5)]
        assert all(line.startswith(machine) for line, machine in zip(lines, machines, strict=True))
        assert all(info.format in ("tree", "chat", "pi") and info.entries for info in table.rows)
        assert "postgresql://" not in screen.query_one("#where").render().plain  # (machine:/path, not the URL)


async def test_a_session_opened_from_the_archive_is_read_only(db_url, monkeypatch, tmp_path):
    monkeypatch.setenv("SESSION_TUI_CACHE_DIR", str(tmp_path / "cache"))
    pushed(db_url)
    address = f"{db_url}#laptop{TORN}"
    async with SessionApp([db_url]).run_test(size=(150, 40)) as pilot:
        picker = await archive_picker(pilot, 4)
        row = next(i for i, info in enumerate(picker.table.rows) if info.path == address)
        picker.table.move_to(row)
        await pilot.press("enter")
        screen = await session_screen(pilot)
        assert screen.state.session.path == address and screen.state.session.remote
        local = TORN.read_bytes()
        assert screen.state.session.pread(len(local), 0) == local  # read from the archive, byte for byte
        notices: list[str] = []
        for keys in (("g", "j", "a"), ("F",), ("t",)):  # move the leaf; fork beside it; repair
            before = len(pilot.app._notifications)
            await pilot.press(*keys)
            await wait_for(
                pilot,
                lambda before=before: len(pilot.app._notifications) > before or pilot.app.screen is not screen,
                what=f"the answer to {keys}",
            )
            if pilot.app.screen is not screen:  # a dialog first: its confirmation is refused then
                await pilot.click("#confirm")
                await wait_for(pilot, lambda before=before: len(pilot.app._notifications) > before, what="refusal")
            notices.append(list(pilot.app._notifications)[-1].message)
            while pilot.app.screen is not screen:
                await pilot.press("escape")
        for notice in notices:
            assert "this session lives on machine laptop in the archive" in notice, notices
            assert "\n" not in notice
    assert TORN.read_bytes() == local


def test_compactions_of_an_archived_session_agree_with_the_file(db_url):
    init(db_url)
    assert push(db_url, str(TREE), "--machine", "m", "--no-redact").returncode == 0
    local = run_cli("compactions", "--json", str(TREE))
    archived = run_cli("compactions", "--json", f"{db_url}#m{TREE}")
    assert archived.returncode == local.returncode == 0, archived.stderr
    assert json.loads(local.stdout), "the sample has a compaction to show"
    assert json.loads(archived.stdout) == json.loads(local.stdout)


def test_the_picker_on_an_unreachable_or_empty_database_is_one_line(db_url, pg):
    from .postgres import free_port

    no_schema = run_cli(db_url)
    assert no_schema.returncode == 2 and no_schema.stderr.count("\n") == 1 and "archive init" in no_schema.stderr
    refused = run_cli(f"postgresql://u:pw-secret@127.0.0.1:{free_port()}/db")
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and "cannot connect" in refused.stderr
    assert "pw-secret" not in refused.stderr
