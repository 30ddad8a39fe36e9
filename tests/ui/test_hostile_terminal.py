"""Hostile sessions in a real terminal: every screen of every format and the
picker is walked with ordinary keys, and the bytes the app wrote contain no
escape it did not make itself (tests/hostile.py lists them); the app stays alive."""

from __future__ import annotations

import pytest

from tests.hostile import FORBIDDEN, FORMAT_SAMPLES, hostile_dir
from tests.terminal import Terminal

#: the walk a person makes over every screen: tree, detail, context, problems, metadata, raw,
#: call<->result, help, the palette, quiet rows, search; in two parts, each walked from a fresh view
#: (a test of each part, under 20 s)
SESSION_PARTS = [
    ["g"]
    + ["j"] * 12
    + ["enter", "G", "c", "escape", "p", "escape", "m", "escape"]
    + ["r", "j", "r", "x", "?", "escape"],
    ["ctrl+p", "a", "escape", "escape", "h", "e", "/", "p", "w", "n", "enter", "n", "o", "escape"]
    + ["t", "escape", "a", "escape", "F", "escape"],
]
PICKER_KEYS = [
    "down",
    "down",
    "enter",
    "j",
    "c",
    "escape",
    "p",
    "escape",
    "escape",
    "down",
    "enter",
    "escape",
    "/",
    "p",
    "w",
    "escape",
    "escape",
]


def escaped(output: bytes) -> list[str]:
    return [what for what, sequence in FORBIDDEN.items() if sequence in output]


def walk(term: Terminal, keys: list[str]) -> None:
    for key in keys:
        term.send(key)
        term.wait_quiet(0.15)  # (a key within ESCDELAY of Esc would read as Alt+key: tests/terminal.py)
        assert term.alive(), f"the app died after {key!r}:\n{term.text()}"


def responsive(term: Terminal) -> None:
    """The app still answers a key, on whatever screen the walk ended: the command palette opens."""
    for attempt in range(3):  # a key that came too soon after Esc reads as Alt+key: ask again
        term.wait_quiet(0.15)  # (the last key's screen drawn: ctrl+p is not read with it)
        term.send("ctrl+p")
        try:
            term.wait_text("Search for commands", timeout=20)
            return
        except AssertionError:
            if attempt == 2:
                raise


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    return hostile_dir(tmp_path_factory.mktemp("hostile"))


@pytest.mark.slow
@pytest.mark.parametrize("part", range(len(SESSION_PARTS)))
@pytest.mark.parametrize("name", [*FORMAT_SAMPLES, "named"])
def test_every_screen_of_a_hostile_session_writes_no_foreign_escape(hostile, name, part):
    with Terminal(str(hostile[name]), "--no-watch") as term:
        # the view is up once its problem count is on screen (the walk then sees every screen checked)
        term.wait_text("problem", timeout=60)
        walk(term, SESSION_PARTS[part])
        responsive(term)
        assert escaped(bytes(term.output)) == []


def test_the_picker_of_hostile_files_writes_no_foreign_escape(hostile):
    with Terminal(str(hostile["tree"].parent), "--no-watch") as term:
        term.wait_text("claude", timeout=60)  # (under load, as the view's wait above)
        walk(term, PICKER_KEYS)
        assert escaped(bytes(term.output)) == []
