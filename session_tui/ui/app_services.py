"""What the screens may ask of the app they run in (``app.SessionApp`` has it).

The app imports the screens; the screens name only this, so no import runs
the other way."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, cast

if TYPE_CHECKING:  # pragma: no cover
    from textual.dom import DOMNode

    from ..model.settings import Settings


class AppServices(Protocol):
    settings: Settings  # the user's, built once by the command line (model/settings.py)
    watching: bool  # follow files as they change
    picker_paths: list[str] | None  # the folders of the picker, if the app has one

    @property
    def can_go_back(self) -> bool:
        """Whether the current screen has a view under it to return to."""
        ...

    def counted(self, path: str, entries: int) -> None:
        """A session view counted the entries of ``path``: the picker shows that count."""
        ...

    def show_fleet(self, roots: list[str]) -> None:
        """The live fleet over ``roots``: back to it if it opened this screen."""
        ...

    def show_picker(self, roots: list[str]) -> None:
        """The picker over ``roots``: back to it if it opened this screen."""
        ...


def services(node: DOMNode) -> AppServices:
    """The app ``node`` runs in, as the screens may use it."""
    return cast(AppServices, node.app)


def settings_of(node: DOMNode) -> Settings:
    """The settings of the app ``node`` runs in (an app without them, as a
    test's: read as the command line reads them)."""
    settings = getattr(node.app, "settings", None)
    if settings is None:
        from ..model.settings import load

        settings = load()
    return cast("Settings", settings)
