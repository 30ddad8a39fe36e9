"""Session text is data: markup shows literally, escape sequences inert."""

from __future__ import annotations

import orjson

from session_tui.ui.app import SessionApp
from tests.builders.tree import header

from .pilot_support import detail_caught_up, session_screen, visible_text, wait_for

EVIL = [
    "[bold]x[/]",
    "[/]",
    "[link=https://evil.example]click[/link]",
    "clear \x1b[2J screen",
    "clipboard \x1b]52;c;ZXZpbA==\x07 steal",
    "link \x1b]8;;https://evil.example\x1b\\here\x1b]8;;\x1b\\ done",
    "csi \x9b31m red",
]


def evil_session(tmp_path):
    lines = [header()]
    parent = None
    for i, text in enumerate(EVIL):
        rec = {
            "type": "message",
            "id": f"e{i}",
            "parentId": parent,
            "createdAt": "x",
            "message": {"role": "user", "content": text},
        }
        lines.append(orjson.dumps(rec) + b"\n")
        parent = f"e{i}"
    path = tmp_path / "evil[bold].jsonl"
    path.write_bytes(b"".join(lines))
    return path


async def test_markup_shows_literally_and_escapes_are_inert(tmp_path):
    path = evil_session(tmp_path)
    async with SessionApp(str(path), watch=False).run_test(size=(140, 30)) as pilot:
        screen = await session_screen(pilot)
        text = visible_text(screen)
        assert "[bold]x[/]" in text and "[/]" in text and "[link=https://evil.example]click[/link]" in text
        assert "␛[2J" in text and "␛]52;c;ZXZpbA==␇" in text and "<9B>31m" in text
        for y in range(screen.tree_widget.size.height):
            for segment in screen.tree_widget.render_line(y):
                assert not any(ch in segment.text for ch in "\x1b\x07\x9b"), repr(segment.text)
                assert segment.style is None or segment.style.link is None
        body = screen.query_one("#detail-body")
        for _ in EVIL:  # every entry's detail is inert too
            await pilot.press("k")
            await detail_caught_up(pilot, screen)
            assert not any(ch in body.text for ch in "\x1b\x07\x9b")
        await wait_for(pilot, lambda: "␛]52" in body.text or "[" in body.text, what="the detail pane")
        status = str(screen.query_one("#status").render())
        assert "evil[bold].jsonl" in status


async def test_notices_quote_file_names_and_ids_inertly(tmp_path):
    """A picker notice names the file; an edit notice names the entry id."""
    (tmp_path / "t\x1b]0;PWNED\x07.jsonl").write_text('{"foo": 1}\n')
    async with SessionApp([str(tmp_path)], watch=False).run_test(size=(140, 30), notifications=True) as pilot:
        await wait_for(pilot, lambda: pilot.app.screen.table.rows and pilot.app.screen.listed, what="the rows")
        await pilot.press("enter")
        await wait_for(pilot, lambda: list(pilot.app.screen.query("Toast")), what="the notice")
        texts = [str(t.render()) for t in pilot.app.screen.query("Toast")]
        assert any("␛]0;PWNED␇" in t for t in texts)
        assert not any(ch in t for t in texts for ch in "\x1b\x07")
