"""The clients that resume sessions: Claude Code, Codex and pi.

Their command forms were checked against the pinned versions (Claude Code
2.1.328: ``claude --resume <id>``; Codex 0.169.0: ``codex resume <id>``;
pi 0.73.1: ``pi --session <path>``). Claude Code finds a session by its id
in the project folder of the directory it runs in; Codex by its id anywhere
under its sessions folder; pi takes the file's path.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from ..reading.records import BadLine, parse_object
from .paths import UUID, checked_id, inside

if TYPE_CHECKING:  # pragma: no cover
    from ..session.session import Session


@dataclass(frozen=True)
class Client:
    name: str  # the format it writes, and the key of ``--json``'s "client"
    program: str  # the command on PATH
    title: str  # as people name it
    pinned: str  # the version its command form was checked against
    moves_leaf: bool  # the leaf can move in place (an appended record); else a fork at the leaf

    def argv(self, session_id: str, path: str) -> list[str]:
        """The command that resumes the session ``session_id`` (pi: the file at
        ``path``, made absolute). No value starts with "-": the id is a UUID,
        Codex's comes after ``--`` (clap), pi's path begins with "/"."""
        if self.name == "claude":
            return [self.program, "--resume", checked_id(session_id, "the session id", path)]
        if self.name == "codex":
            return [self.program, "resume", "--", checked_id(session_id, "the thread id", path)]
        return [self.program, "--session", os.path.abspath(path)]


CLIENTS = {
    "claude": Client("claude", "claude", "Claude Code", "2.1.328", moves_leaf=False),
    "codex": Client("codex", "codex", "Codex", "0.169.0", moves_leaf=False),
    "pi": Client("pi", "pi", "pi", "0.73.1", moves_leaf=True),
}


def client_for(format_name: str) -> Client | None:
    return CLIENTS.get(format_name)


def claude_home(env: Mapping[str, str]) -> str:
    return env.get("CLAUDE_CONFIG_DIR") or os.path.join(env.get("HOME") or os.path.expanduser("~"), ".claude")


def codex_home(env: Mapping[str, str]) -> str:
    return env.get("CODEX_HOME") or os.path.join(env.get("HOME") or os.path.expanduser("~"), ".codex")


def claude_project(cwd: str) -> str:
    """The name of Claude Code's project folder for the directory ``cwd``."""
    return re.sub(r"[^A-Za-z0-9]", "-", cwd)


def sessions_folder(client: Client, cwd: str | None, env: Mapping[str, str], now: datetime | None = None) -> str | None:
    """Where ``client`` looks for a new session it is asked to resume
    (None: anywhere, it takes a path)."""
    if client.name == "claude":
        return inside(os.path.join(claude_home(env), "projects"), claude_project(cwd or os.getcwd()))
    if client.name == "codex":
        day = (now or datetime.now()).strftime("%Y/%m/%d")
        return inside(os.path.join(codex_home(env), "sessions"), *day.split("/"))
    return None


def found_in_place(client: Client, path: str, session_id: str | None, cwd: str | None, env: Mapping[str, str]) -> bool:
    """Whether ``client`` finds the file at ``path`` by the id it resumes."""
    path = os.path.join(os.path.realpath(os.path.dirname(os.path.abspath(path))), os.path.basename(path))
    if client.name == "claude":
        folder = sessions_folder(client, cwd, env)
        name = os.path.basename(path)
        return folder is not None and os.path.dirname(path) == folder and name == f"{session_id}.jsonl"
    if client.name == "codex":  # (it finds a rollout by the id in its name)
        root = os.path.join(os.path.realpath(codex_home(env)), "sessions", "")
        return path.startswith(root) and bool(session_id) and str(session_id) in os.path.basename(path)
    return True


def session_id_of(client: Client, session: Session) -> str | None:
    """The id ``client`` resumes the session by (None: it records none).
    An id that is not a UUID, as the clients write them, is refused
    (ResumeRefused): the file is hostile, the id names files and goes in argv."""
    if client.name == "claude":
        stem = os.path.basename(session.path).removesuffix(".jsonl")
        if UUID.fullmatch(stem):
            return stem
        for entry in range(min(session.tree.count, 50)):
            found = session.record(entry).get("sessionId")
            if isinstance(found, str):
                return checked_id(found, "its sessionId", session.path)
        return None
    header = session.header or {}
    if client.name == "codex":
        payload = header.get("payload")
        found = payload.get("id") if isinstance(payload, dict) else None
    else:
        found = header.get("id")
    return checked_id(found, "its session id", session.path) if isinstance(found, str) else None


def new_file_id(client: Client, path: str, data: bytes) -> str:
    """The id of a session file about to be written (a fork): Claude Code's
    file name, Codex's ``session_meta`` id, pi's path."""
    if client.name == "claude":
        return os.path.basename(path).removesuffix(".jsonl")
    if client.name == "codex":
        try:
            payload = parse_object(data.split(b"\n", 1)[0]).get("payload")
        except BadLine:
            payload = None
        found = payload.get("id") if isinstance(payload, dict) else None
        if isinstance(found, str):
            return checked_id(found, "its thread id", path)
        match = UUID.search(os.path.basename(path))
        return match.group(0) if match else ""
    return os.path.abspath(path)


def recorded_cwd(client: Client, session: Session, leaf: int) -> str | None:
    """The working directory the session recorded (at ``leaf`` where each
    record carries one: Claude Code)."""
    if client.name == "claude":
        from ..session.live_state import cwd_back

        return cwd_back(session, leaf, 10_000)
    header = session.header or {}
    holder = header.get("payload") if client.name == "codex" else header
    found = holder.get("cwd") if isinstance(holder, dict) else None
    return found if isinstance(found, str) and found else None
