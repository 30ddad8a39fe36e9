"""Directories: their session files, newest first; Enter opens one."""

from __future__ import annotations

import os
import time

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from ...check import session_files
from ...model.sanitize import inert


def _age(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit} ago"
    return "just now"


class FilesScreen(Screen):
    BINDINGS = [Binding("q", "app.quit", "Quit"), Binding("r", "reload", "Reload")]
    DEFAULT_CSS = """
    FilesScreen #title { height: 1; background: $panel; padding: 0 1; text-style: bold; }
    FilesScreen OptionList { height: 1fr; border: none; }
    """

    def __init__(self, directories: str | list[str]) -> None:
        super().__init__()
        self.directories = [directories] if isinstance(directories, str) else directories

    def compose(self) -> ComposeResult:
        where = ", ".join(self.directories)
        yield Static(Text(f"{inert(where, keep_newlines=False)} — session files, newest first"),
                     id="title", markup=False)
        yield OptionList(id="files")
        yield Footer()

    def on_mount(self) -> None:
        self.action_reload()
        self.query_one(OptionList).focus()

    def action_reload(self) -> None:
        found = []
        for directory in self.directories:
            for path in session_files(directory):
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                found.append((st.st_mtime, st.st_size, path))
        found.sort(reverse=True)
        now = time.time()
        options = []
        for mtime, size, path in found:
            label = Text(no_wrap=True, overflow="ellipsis")
            label.append(f"{_age(now - mtime):>9}  {size:>12,} B  ", style="dim")
            label.append(inert(self._shown(path), keep_newlines=False))
            options.append(Option(label, id=path))
        files = self.query_one(OptionList)
        files.clear_options()
        files.add_options(options or [Option(Text("no *.jsonl files here"), disabled=True)])
        if options:
            files.highlighted = 0

    def _shown(self, path: str) -> str:
        if len(self.directories) == 1:
            return os.path.relpath(path, self.directories[0])
        return path.replace(os.path.expanduser("~"), "~", 1)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.app.open_session_file(event.option.id)
