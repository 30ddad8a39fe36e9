"""The Textual app: a session view for a file, the picker for directories.

Only the picker is imported before the first frame: a directory of
thousands of files should be on screen as fast as Textual can draw.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from ..model.collector import collect_less
from ..model.reading.source import is_url
from . import keys
from .masking import inert_shown, mask_of
from .messages import OpenSession

if TYPE_CHECKING:  # pragma: no cover
    from ..model.catalog.first_rows import FirstRows
    from ..model.fleet.fleet import Fleet
    from ..model.settings import Settings


def _entry_jump_provider():
    from .commands import EntryJumpProvider

    return EntryJumpProvider


class SessionApp(App):
    TITLE = "session-tui"
    COMMANDS = App.COMMANDS | {_entry_jump_provider}
    BINDINGS = [  # one grammar: q goes back one screen (quits from the first), ctrl+q always quits
        Binding("q", "back_or_quit", "Quit"),
        Binding("ctrl+q", "quit", "Quit", priority=True, show=False),
        Binding("question_mark", "help", "Help"),
    ]

    def __init__(
        self,
        path: str | list[str],
        format: str | None = None,
        *,
        watch: bool = True,
        redact: bool = False,
        fleet: Fleet | None = None,
        notify_alerts: bool = False,
        settings: Settings | None = None,
        first_rows: FirstRows | None = None,
    ) -> None:
        """``fleet``: open on the live fleet over its folders (``session-tui live``).
        ``settings``: the user's (None: read as the command line reads them,
        model/settings.py); ``redact`` also masks. ``first_rows``: a child's
        walk of the folders ``path`` names, for the picker's first rows
        (``model/catalog/first_rows.py``, masked as this app masks)."""
        super().__init__()
        self.first_rows = first_rows
        from ..model.settings import load

        self.settings = settings = load() if settings is None else settings
        self.fleet = fleet
        self.notify_alerts = notify_alerts
        redact = redact or settings.redact
        self.redact = redact  # mask secrets wherever session text is shown (``--redact``; ui/masking.py)
        if settings.keys:  # the config file's [keys]: the session view's bindings by their ids (ui/keys.py)
            self.set_keymap(dict(settings.keys))
        if settings.theme:
            self.theme = settings.theme
        # The collector's full passes stop every thread, for longer the more
        # objects live (0.3 s with 100,000 picker rows): collect less often (the picker also freezes its rows).
        collect_less()
        self.path = path
        self.format = format
        self.watching = watch  # follow files as they change (not DOMNode.watch)
        paths = path if isinstance(path, list) else [path]
        # folders, local or remote (the command line gives remote folders as a list, a remote file alone)
        listed = isinstance(path, list)
        self.picker_paths = paths if all(os.path.isdir(p) or (listed and is_url(p)) for p in paths) else None

    def get_css_variables(self) -> dict[str, str]:
        """The theme's, and the readable colours of session text for a dark or light theme (ui/colours.py)."""
        from .colours import variables

        return {**super().get_css_variables(), **variables(self.current_theme.dark)}

    def get_default_screen(self) -> Screen:
        # The picker is the first screen itself (not pushed from on_mount,
        # whose first frame Textual drops): its rows are in the first frame.
        if self.fleet is not None:
            from .screens.fleet import FleetScreen

            return FleetScreen(self.fleet, self.notify_alerts)
        if not self.picker_paths:  # a file: its view is the first screen (no blank one under it, no frame later)
            return self._session_screen(self.path if isinstance(self.path, str) else self.path[0])
        from .screens.files import FilesScreen  # (not for a session's view: its first frame waits for no picker)

        first_rows, self.first_rows = self.first_rows, None
        return FilesScreen(self.picker_paths, mask_of(self), first_rows)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity="information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Every notice, from every screen, as plain inert text: they quote
        file names, entry ids and refusal reasons taken from session files
        (their secrets masked when the app masks everything)."""
        super().notify(
            inert_shown(self, str(message)),
            title=inert_shown(self, str(title), keep_newlines=False),
            severity=severity,
            timeout=timeout,
            markup=False,
        )

    @property
    def can_go_back(self) -> bool:
        """Whether the current screen has a view under it to return to (the
        picker, or the session that opened a sub-agent)."""
        return len(self.screen_stack) > 1

    def action_back_or_quit(self) -> None:
        """``q``: back to the screen under this one; from the first screen, quit."""
        if len(self.screen_stack) > 1:
            self.pop_screen()
        else:
            self.exit()

    def counted(self, path: str, entries: int) -> None:
        """A session view counted the entries of ``path``: the picker shows that count."""
        for screen in self.screen_stack:  # (by its method: a view alone need not import the picker's module)
            tell = getattr(screen, "counted", None)
            if tell is not None:
                tell(path, entries)

    def show_fleet(self, roots: list[str]) -> None:
        from ..model.fleet.fleet import Fleet
        from .screens.fleet import FleetScreen

        if len(self.screen_stack) > 1 and isinstance(self.screen_stack[-2], FleetScreen):
            self.pop_screen()
        else:
            fleet = Fleet(roots, stuck_after=self.settings.stuck_after, mask=mask_of(self))
            self.push_screen(FleetScreen(fleet, self.notify_alerts))

    def show_picker(self, roots: list[str]) -> None:
        from .screens.files import FilesScreen

        if len(self.screen_stack) > 1 and isinstance(self.screen_stack[-2], FilesScreen):
            self.pop_screen()
        else:
            self.push_screen(FilesScreen(roots, mask_of(self)))

    def on_open_session(self, message: OpenSession) -> None:
        self.open_session_file(message.path, message.query, message.line)

    def open_session_file(self, path: str, query: str = "", line: int | None = None) -> None:
        """Open ``path`` in a session view, or say in one line why not."""
        from ..model.errors import SessionError
        from ..model.session.session import Session

        try:
            with Session(path, self.format) as probe:
                probe.detect()
        except SessionError as exc:
            self.notify(str(exc), title="Cannot open", severity="error", timeout=6, markup=False)
            return
        self.push_screen(self._session_screen(path, query, line))

    def _session_screen(self, path: str, query: str = "", line: int | None = None) -> Screen:
        from .screens.session import SessionScreen

        return SessionScreen(path, self.format, watch=self.watching, query=query, line=line)

    def action_help(self) -> None:
        from .screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    def get_system_commands(self, screen):
        from .screens.session import SessionScreen

        yield from super().get_system_commands(screen)
        yield SystemCommand("Help", "Keys and marks", self.action_help)
        if isinstance(screen, SessionScreen):
            for action, title, help_text in keys.palette_entries():
                yield SystemCommand(title, help_text, getattr(screen, f"action_{action}"))
            for to, name in (("md", "Markdown"), ("html", "an HTML page"), ("json", "JSON records")):
                yield SystemCommand(
                    f"Export branch as {to.upper() if to != 'md' else 'Markdown'}",
                    f"Write the active branch as {name} beside the file",
                    lambda to=to: self.export_branch(screen, to),
                )

    def export_branch(self, screen, to: str = "md") -> None:
        """Write the active branch to a new ``<stem>.export[-N].<to>`` and say where."""
        from ..actions.export import export, save

        session = screen.state.session
        if session is None or session.partial:
            self.notify("Only part of the file is read yet: export once it is indexed", severity="warning")
            return
        redactor = None
        if self.redact:
            from ..model.privacy.redact import Redactor

            redactor = Redactor()
        text = export(session, to, redact=redactor, stuck_after=self.settings.stuck_after)
        # beside the file; a remote file's export is written here (remote files are only read)
        local = os.path.basename(screen.path) if session.remote else screen.path
        if self.redact:
            from ..model.privacy.redact import redacted_name

            local = redacted_name(local)
        stem, n = os.path.splitext(local)[0], 1
        while True:
            path = f"{stem}.export{f'-{n}' if n > 1 else ''}.{to}"
            try:
                save(path, text)
                break
            except FileExistsError:
                n += 1
            except OSError as exc:
                self.notify(f"{path}: {exc.strerror or exc}", title="Export failed", severity="error", markup=False)
                return
        self.notify(path, title="Exported the active branch", markup=False)
