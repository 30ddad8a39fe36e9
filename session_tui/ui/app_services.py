"""What the screens may ask of the app they run in (``app.SessionApp`` has it).

The app imports the screens; the screens name only this, so no import runs
the other way."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, cast

if TYPE_CHECKING:  # pragma: no cover
    from textual.dom import DOMNode


class AppServices(Protocol):
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
