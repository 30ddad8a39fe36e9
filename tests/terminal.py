"""A real terminal for tests: the app in a pseudo-terminal, its screen through pyte.

Everything the app writes is kept as bytes (``output``), so a test can check
what reached the terminal, and fed to a pyte screen, so a test can wait for
what a person would see.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import threading
import time

import pyte
from pyte import charsets, modes
from wcwidth import wcwidth

from tests.support import REPO

KEYS = {
    "enter": "\r",
    "escape": "\x1b",
    "ctrl+p": "\x10",
    "ctrl+c": "\x03",
    "tab": "\t",
    "up": "\x1b[A",
    "down": "\x1b[B",
    "question": "?",
}


class TextScreen(pyte.Screen):
    """A pyte screen that keeps the characters only: no test reads a colour or a style, and keeping them
    (a new cell per character drawn, every SGR parsed) took most of what a terminal test spent of its
    own CPU (Textual writes ~1 MB for a walk of 30 keys)."""

    #: a cell per character of width 1 seen so far (the same cell serves every place it is drawn)
    _cells: dict[str, pyte.screens.Char] = {}

    def select_graphic_rendition(self, *attrs: int, private: bool = False) -> None:
        """Colours and styles are not kept."""

    def draw(self, data: str) -> None:
        """pyte's ``draw`` but for the common run, drawn here: characters of width 1 that fit on the
        cursor's line, in the default character set and replace mode."""
        x = self.cursor.x
        plain = not self.charset and self.g0_charset is charsets.LAT1_MAP and modes.IRM not in self.mode
        if not plain or x + len(data) > self.columns:
            return super().draw(data)
        cells = self._cells
        for char in data:
            if char not in cells:
                if wcwidth(char) != 1:
                    return super().draw(data)
                cells[char] = self.default_char._replace(data=char)
        line = self.buffer[self.cursor.y]
        for offset, char in enumerate(data, x):
            line[offset] = cells[char]
        self.cursor.x = x + len(data)
        self.dirty.add(self.cursor.y)


def _feed(stream: pyte.ByteStream, screen: pyte.Screen, data: bytes) -> pyte.ByteStream:
    """``data`` fed to ``stream`` one escape sequence at a time: one that pyte cannot
    parse is dropped alone, not with the rest (a status line drawn after it); the
    stream to feed next (a new one after such a drop)."""
    for piece in re.split(rb"(?=\x1b)", data):
        try:
            stream.feed(piece)
        except Exception:
            stream = pyte.ByteStream(screen)
    return stream


class Terminal:
    def __init__(
        self, *args: str, width: int = 160, height: int = 45, env: dict | None = None, command: list[str] | None = None
    ) -> None:
        """``session-tui ARGS`` (or ``command``) in a pseudo-terminal of ``width`` × ``height``."""
        self.width, self.height = width, height
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", height, width, 0, 0))
        # ESCDELAY: Textual waits this long (ms) after an Esc for the rest of a sequence (100 by default); a
        # walk of keys then need not leave 0.3 s after each Esc (a key sent sooner reads as Alt+key)
        environment = {
            **os.environ,
            "TERM": "xterm-256color",
            "COLORTERM": "truecolor",
            "ESCDELAY": "20",
            **(env or {}),
        }
        environment.pop("SESSION_TUI_DEBUG", None)
        for sized in ("COLUMNS", "LINES"):  # (set by a Pilot test run before in this worker, they outrank the pty)
            environment.pop(sized, None)
        self.started = time.monotonic()
        self.process = subprocess.Popen(
            command or [sys.executable, "-m", "session_tui", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=REPO,
            env=environment,
            start_new_session=True,
        )
        self.slave = slave  # kept open: how much of what was sent the app has not read yet (FIONREAD)
        self.master = master
        self.output = bytearray()
        self.last_output = time.monotonic()
        self._shown: tuple[int, str] | None = None  # (len(output), the screen's text then): polls reuse it
        self.screen = TextScreen(width, height)
        self.stream = pyte.ByteStream(self.screen)
        self.lock = threading.Lock()
        self.closing = threading.Event()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        """Until ``close``: it stops this thread before it closes the master, whose fd number the next
        terminal's ``openpty`` may take (a reader left blocked on it would take that terminal's bytes)."""
        while not self.closing.is_set():
            if not select.select([self.master], [], [], 0.05)[0]:
                continue
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            with self.lock:
                self.output += data
                self.last_output = time.monotonic()
                self.stream = _feed(self.stream, self.screen, data)

    def text(self) -> str:
        """The screen as a person sees it now (built again only when the app wrote since: a wait polls
        it every few ms, and building it from pyte's cells took most of a terminal test's own CPU)."""
        with self.lock:
            if self._shown is None or self._shown[0] != len(self.output):
                self._shown = (len(self.output), "\n".join(self.screen.display))
            return self._shown[1]

    def send(self, *keys: str) -> None:
        for key in keys:
            os.write(self.master, KEYS.get(key, key).encode())

    def wait_for(self, predicate, timeout: float = 20.0, what: str = "the screen") -> None:
        """Poll the screen until ``predicate(text)``; ``last_seen`` is when it first held."""
        deadline = time.monotonic() + timeout
        while not predicate(self.text()):
            if self.process.poll() is not None:
                raise AssertionError(f"the app exited ({self.process.returncode}) waiting for {what}:\n{self.text()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}:\n{self.text()}")
            time.sleep(0.005)
        self.last_seen = time.monotonic()

    def wait_text(self, text: str, timeout: float = 20.0) -> None:
        self.wait_for(lambda screen: text in screen, timeout, repr(text))

    def unread(self) -> int:
        """The bytes sent that the app has not read yet."""
        return struct.unpack("i", fcntl.ioctl(self.slave, termios.FIONREAD, b"\0\0\0\0"))[0]

    def wait_quiet(self, quiet: float = 0.15, timeout: float = 30.0) -> None:
        """Until the app has read every key sent, then written nothing for ``quiet`` seconds after it read
        them (it has drawn what the last key changed). Under load an app may read late: a key sent before
        it read an Esc would reach it with the Esc, as Alt+key."""
        deadline = time.monotonic() + timeout
        while self.unread():
            assert self.alive(), f"the app exited ({self.process.returncode}) before it read the keys sent"
            assert time.monotonic() < deadline, f"the app never read the keys sent:\n{self.text()}"
            time.sleep(0.005)
        read = time.monotonic()
        while time.monotonic() - max(self.last_output, read) < quiet:
            assert time.monotonic() < deadline, f"the app never stopped drawing:\n{self.text()}"
            time.sleep(0.02)

    def alive(self) -> bool:
        return self.process.poll() is None

    def close(self) -> None:
        if self.alive():
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.closing.set()
        self.reader.join()
        os.close(self.master)
        os.close(self.slave)

    def __enter__(self) -> Terminal:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
