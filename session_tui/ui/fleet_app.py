"""The app on the live fleet (``session-tui live``)."""

from __future__ import annotations

from ..model.fleet.fleet import Fleet
from .app import SessionApp


def run_fleet_app(fleet: Fleet, notify: bool = False) -> int:
    folders = [root for root in fleet.roots]
    try:
        SessionApp(folders, fleet=fleet, notify_alerts=notify).run()
    finally:
        fleet.close()
    return 0
