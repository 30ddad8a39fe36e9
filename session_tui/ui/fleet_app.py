"""The app on the live fleet (``session-tui live``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..model.fleet.fleet import Fleet
from .app import SessionApp

if TYPE_CHECKING:  # pragma: no cover
    from ..model.settings import Settings


def run_fleet_app(fleet: Fleet, settings: Settings | None = None, notify: bool = False) -> int:
    folders = [root for root in fleet.roots]
    try:
        SessionApp(folders, fleet=fleet, notify_alerts=notify, settings=settings).run()
    finally:
        fleet.close()
    return 0
