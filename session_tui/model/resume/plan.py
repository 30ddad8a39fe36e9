"""How to continue a session at a leaf with its own client, and what must be
written first for the client to continue exactly there.

Each client continues at a leaf of its own choosing: Claude Code the newest
leaf, Codex the end of the rollout, pi its last entry or leaf pointer (the
format's ``active_leaf`` models each). To continue elsewhere, pi's leaf is
moved in place (an appended record pi reads); for Claude Code and Codex the
path to the leaf is forked into a new session, with a new id, in the folder
where the client looks for it. A file the client would not find by its id
(a copy outside that folder) is forked there too. Nothing here writes: the
store does, and the command says what it wrote.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..checked_paths import ResumeRefused as ResumeRefused  # (where callers take it from)
from ..formats.client import Client
from .clients import CLIENTS, client_for

if TYPE_CHECKING:  # pragma: no cover
    from ..session.session import Session

FORK = "fork"
SET_LEAF = "set-leaf"


@dataclass
class ResumePlan:
    client: Client
    leaf: int
    cwd: str | None  # the directory the client runs in (the session's own)
    session_id: str | None  # the id the client resumes, when no fork is needed
    write: str | None = None  # None, FORK or SET_LEAF
    folder: str | None = None  # where a fork goes (None: beside the file)
    reasons: list[str] = field(default_factory=list)  # why it writes, one line each
    warnings: list[str] = field(default_factory=list)


def plan_resume(session: Session, leaf: int | None, env: Mapping[str, str]) -> ResumePlan:
    """The plan to continue ``session`` at ``leaf`` (default: where its
    client continues by itself). Raises ResumeRefused."""
    name = session.format.name
    client = client_for(name)
    if client is None:
        known = ", ".join(c.title for c in CLIENTS.values())
        raise ResumeRefused(
            f"{session.path}: {session.format.name} sessions have no client that resumes them "
            f"(session-tui knows {known}); "
            "export it or fork it instead"
        )
    own = session.active_leaf()
    leaf = own if leaf is None else leaf
    if leaf < 0:
        raise ResumeRefused(f"{session.path}: an empty session: nothing to resume")
    refused = client.refusal(session, leaf)
    if refused is not None:
        raise ResumeRefused(f"{session.path}: {refused}")
    cwd = client.recorded_cwd(session, leaf)
    session_id = client.session_id_of(session)
    plan = ResumePlan(client, leaf, cwd, session_id)
    in_place = not session.remote and client.found_in_place(session.path, session_id, cwd, env)
    if leaf != own:
        plan.reasons.append(
            f"{client.title} continues at {client.resumes_at} (line {session.line_of(own)}), "
            f"not at line {session.line_of(leaf)}"
        )
    if not in_place:
        where = client.sessions_folder(cwd, env)
        plan.reasons.append(
            f"{client.title} would not find this file by its id (it looks in {where})"
            if where
            else f"{client.title} resumes a local file: this one is remote"
        )
    if plan.reasons:
        plan.write = SET_LEAF if client.moves_leaf and in_place else FORK
        plan.folder = client.sessions_folder(cwd, env) if plan.write == FORK else None
        if plan.write == FORK and plan.folder is None and session.remote:
            raise ResumeRefused(f"{session.path}: a remote pi session: fork it to a local file first (fork -o PATH)")
    if cwd is None:
        plan.warnings.append("the session records no working directory: the client runs in the current one")
    elif not os.path.isdir(cwd):
        plan.warnings.append(f"the recorded working directory {cwd} does not exist here")
    return plan
