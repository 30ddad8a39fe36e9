"""The clients that resume sessions, by the format they write: each
format's own (``Format.client``, in ``formats/<name>/client.py``)."""

from __future__ import annotations

from ..formats import FORMATS
from ..formats.client import Client

CLIENTS: dict[str, Client] = {fmt.name: fmt.client for fmt in FORMATS.values() if fmt.client is not None}


def client_for(format_name: str) -> Client | None:
    return CLIENTS.get(format_name)
