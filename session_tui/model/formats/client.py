"""What session-tui knows of the client that writes a format and resumes it:
its command, where it looks for a session, the id it resumes one by, how
its process shows in a process table, the wire protocol it speaks and how
a dry run gives it a throwaway home. Each client's subclass lives in its
format's package (``formats/<name>/client.py``); ``Format.client`` names it.
Nothing here writes or runs anything: the commands do, from what this says.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import TYPE_CHECKING

from ..checked_paths import checked_id

if TYPE_CHECKING:  # pragma: no cover
    from .base import Session

# the wire protocols a client speaks to its model (the fake API answers each)
ANTHROPIC = "anthropic"  # Anthropic Messages, /v1/messages
RESPONSES = "responses"  # OpenAI Responses, /v1/responses
CHAT = "chat"  # OpenAI Chat Completions, /v1/chat/completions
GEMINI = "gemini"  # Gemini generateContent / streamGenerateContent


@dataclass
class DryRunHome:
    """The throwaway home a dry run gives the client: what to copy and write
    there (every path already checked to stay inside the run's folder), the
    environment, and the copy of the session the client resumes."""

    copy: str  # the session's copy, where the client looks for it
    env: dict[str, str] = field(default_factory=dict)
    copies: list[tuple[str, str]] = field(default_factory=list)  # (source file, destination)
    trees: list[tuple[str, str]] = field(default_factory=list)  # (source folder, destination), no links followed
    files: list[tuple[str, bytes]] = field(default_factory=list)  # (destination, content)
    #: (a database among the copies' destinations, one UPDATE of one row, its parameters):
    #: run on that copy once every file is in place (opencode's session row)
    updates: list[tuple[str, str, tuple[str, ...]]] = field(default_factory=list)
    #: sources copied as one (a database and its WAL): the copies are made again until none changed meanwhile
    consistent: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


class Client:
    """A coding agent's client, as session-tui drives it. The defaults are a
    client that takes the session file's path (``--session PATH``)."""

    name = ""  # the format it writes, and the key of ``--json``'s "client"
    program = ""  # the command on PATH
    title = ""  # as people name it
    pinned = ""  # the version its command form was checked against
    moves_leaf = False  # the leaf can move in place (an appended record); else a fork at the leaf
    provider: str | None = None  # the price table's provider of its models, where the file names none
    wire = ANTHROPIC  # the protocol it speaks to its model
    context_form = ANTHROPIC  # the shape of its context (``export --context``): how a dry run reads it
    #: its programs as a process table shows them: the basename of the program or
    #: of the script it runs, or a part of its path (its package's folder)
    process_names: tuple[str, ...] = ()
    packages: tuple[str, ...] = ()
    resumes_at = "its last entry"  # where it continues by itself
    fork_form = "--session <the fork's path>"  # its arguments that resume a fork
    subagents_folder = False  # its sub-agents' transcripts sit in ``<id>/subagents/`` beside the file
    #: what a dry run adds to its environment, its ``--version`` included: its
    #: own switches for no telemetry, updates or other traffic, and the fake
    #: key it reads (what depends on the run, its home and URL: ``dry_run_home``)
    dry_run_env: Mapping[str, str] = MappingProxyType({})

    def refusal(self, session: Session, leaf: int) -> str | None:
        """Why the client would not resume the session at ``leaf`` (None: it would)."""
        return None

    def argv(self, session_id: str, path: str) -> list[str]:
        """The command that resumes the session ``session_id`` (or the file at
        ``path``, made absolute). No value may start with "-"."""
        return [self.program, "--session", os.path.abspath(path)]

    def sessions_folder(self, cwd: str | None, env: Mapping[str, str], now: datetime | None = None) -> str | None:
        """Where the client looks for a new session it is asked to resume
        (None: anywhere, it takes a path)."""
        return None

    def found_in_place(self, path: str, session_id: str | None, cwd: str | None, env: Mapping[str, str]) -> bool:
        """Whether the client finds the file at ``path`` by the id it resumes."""
        return True

    def session_id_of(self, session: Session) -> str | None:
        """The id the client resumes the session by (None: it records none).
        An id that is not one the client writes is refused (ResumeRefused):
        the file is hostile, the id names files and goes in argv."""
        found = (session.header or {}).get("id")
        return checked_id(found, "its session id", session.path) if isinstance(found, str) else None

    def new_file_id(self, path: str, data: bytes) -> str:
        """The id of a session file about to be written (a fork)."""
        return os.path.abspath(path)

    def recorded_cwd(self, session: Session, leaf: int) -> str | None:
        """The working directory the session recorded (at ``leaf`` where each
        record carries one)."""
        found = (session.header or {}).get("cwd")
        return found if isinstance(found, str) and found else None

    def dry_run_home(self, session: Session, run: str, work: str, url: str, model: str | None) -> DryRunHome:
        """The throwaway home under ``run`` where the client, pointed at the
        fake API at ``url``, finds a copy of the session (``work``: an empty
        directory it may run in). Raises ResumeRefused when it cannot."""
        raise NotImplementedError(f"{self.title}: no dry run")

    def dry_run_argv(self, program: str, resume: list[str], model: str | None, prompt: str) -> list[str]:
        """The headless command of a dry run: ``resume`` is ``argv()`` without
        the program; the client sends ``prompt`` as one new turn."""
        return [program, *(["--model", model] if model else []), *resume, "-p", prompt]
