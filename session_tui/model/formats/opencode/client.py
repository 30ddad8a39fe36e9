"""opencode 1.18.33 as session-tui drives it: ``opencode --session <id>``
(its interactive TUI, ``-s``) finds a session by its id in
``~/.local/share/opencode/opencode.db`` and continues it; ``opencode run
--session <id> MESSAGE``, its non-interactive form, needs a message and is
only the dry run's. With a custom ``@ai-sdk/openai-compatible`` provider it
speaks OpenAI Chat Completions to its model.

A dry run copies the database's three files (db, ``-wal``, ``-shm``) into
the throwaway home and sets the session's ``directory`` to the run's
directory in the copy: ``opencode run`` exits only when the session's
recorded directory is its cwd (else it hangs after the answer). The
original is never opened by SQLite here: only copied."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING

from ...checked_paths import ResumeRefused, inside
from ...errors import SessionError
from ..client import CHAT, Client, DryRunHome
from .database import DB_NAME, SESSION_ID, SIDE_FILES, split_name

if TYPE_CHECKING:  # pragma: no cover
    from ..base import Session


PROVIDER = "fake"  # a dry run's provider (an ``@ai-sdk/openai-compatible`` one, the SDK bundled)
MODEL = "fake-model"  # a dry run's model when none is given (any name: the fake API answers)
#: what a dry run's environment turns off: the models.dev fetch, updates,
#: sharing, LSP downloads, default plugins, other clients' skills; npm
#: offline (at start opencode installs @opencode-ai/plugin in its config dir)
QUIET = {
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_SHARE": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
    "OPENCODE_DISABLE_CLAUDE_CODE": "1",
    "OPENCODE_DISABLE_EXTERNAL_SKILLS": "1",
    "npm_config_offline": "true",
}
#: the one row a dry run changes, in the copy only
SET_DIRECTORY = "update session set directory = ? where id = ?"


def config(url: str, model: str) -> dict[str, object]:
    """A dry run's ``opencode.json``: one provider, the fake API, its one model."""
    limit = {"context": 200000, "output": 32000}
    return {
        "$schema": "https://opencode.ai/config.json",
        "autoupdate": False,
        "share": "disabled",
        "model": f"{PROVIDER}/{model}",
        "small_model": f"{PROVIDER}/{model}",
        "provider": {
            PROVIDER: {
                "npm": "@ai-sdk/openai-compatible",
                "name": "session-tui dry run",
                "options": {"baseURL": url.rstrip("/") + "/v1", "apiKey": "sk-fake-dry-run-0000"},
                "models": {model: {"name": model, "tool_call": True, "reasoning": True, "limit": limit}},
            }
        },
    }


def data_folder(env: Mapping[str, str]) -> str:
    found = env.get("XDG_DATA_HOME")
    home = env.get("HOME") or os.path.expanduser("~")
    base = found if found and os.path.isabs(found) else os.path.join(home, ".local", "share")
    return os.path.join(base, "opencode")


class Opencode(Client):
    name = "opencode"
    program = "opencode"
    title = "opencode"
    pinned = "1.18.33"
    provider = None
    wire = CHAT
    context_form = CHAT
    process_names = ("opencode",)
    packages = ("/opencode-ai", "/opencode-linux-x64")
    resumes_at = "the session's last message"
    fork_form = "--session <the session's id> --fork"

    def argv(self, session_id: str, path: str) -> list[str]:
        if not SESSION_ID.match(session_id):
            raise ResumeRefused(f"{path}: not an opencode session id")
        return [self.program, "--session", session_id]  # (the TUI; ``run`` would want a message)

    def sessions_folder(self, cwd: str | None, env: Mapping[str, str], now: datetime | None = None) -> str | None:
        return data_folder(env)

    def found_in_place(self, path: str, session_id: str | None, cwd: str | None, env: Mapping[str, str]) -> bool:
        """Whether ``path`` is a session of the database opencode opens:
        ``$OPENCODE_DB`` (absolute, or under its data folder) where set, else
        ``opencode.db`` in its data folder."""
        try:
            found = split_name(path) if "#" in path else None
        except SessionError:
            return False
        if found is None or found[1] is None or found[1] != session_id:
            return False
        given = env.get("OPENCODE_DB")
        folder = data_folder(env)
        if given == ":memory:":
            return False
        wanted = os.path.join(folder, given) if given else os.path.join(folder, DB_NAME)
        return os.path.realpath(os.path.abspath(found[0])) == os.path.realpath(wanted)

    def session_id_of(self, session: Session) -> str | None:
        try:
            found = split_name(session.path)
        except SessionError as exc:
            raise ResumeRefused(str(exc)) from None
        if found is None or found[1] is None:
            return None
        if not SESSION_ID.match(found[1]):
            raise ResumeRefused(f"{session.path}: not an opencode session id: refused")
        return found[1]

    def recorded_cwd(self, session: Session, leaf: int) -> str | None:
        """The session row's ``directory`` (opencode runs the session there)."""
        found = (session.header or {}).get("directory")
        return found if isinstance(found, str) and found else None

    def dry_run_home(self, session: Session, run: str, work: str, url: str, model: str | None) -> DryRunHome:
        sid = self.session_id_of(session)  # (checked, or refused)
        db = split_name(session.path)
        if sid is None or db is None:
            raise ResumeRefused(f"{session.path}: not a session of an opencode database ({DB_NAME}#ses_…): refused")
        source = os.path.realpath(db[0])  # (SQLite keeps the WAL beside the database a link names)
        if not os.path.isfile(source):
            raise ResumeRefused(f"{db[0]}: not a regular file: refused")
        data = inside(run, ".local", "share", "opencode")
        copy = inside(data, DB_NAME)
        out = DryRunHome(f"{copy}#{sid}", dict(QUIET))
        out.env["npm_config_registry"] = url.rstrip("/") + "/_npm/"  # (offline: nothing is fetched from it)
        out.copies.append((source, copy))
        for suffix in SIDE_FILES[1:]:  # its WAL and shared memory (regular files, no links; the copy skips gone ones)
            found = source + suffix
            if not os.path.lexists(found) or (os.path.isfile(found) and not os.path.islink(found)):
                out.copies.append((found, inside(data, DB_NAME + suffix)))
        # a live opencode writes the database and its WAL together: copied until neither changed meanwhile
        # (not the -shm: every reader writes it, and the first connection to the copy rebuilds it)
        out.consistent = [source, source + "-wal"]
        out.files.append(
            (inside(run, ".config", "opencode", "opencode.json"), json.dumps(config(url, model or MODEL)).encode())
        )
        if (session.header or {}).get("directory") != work:
            out.updates.append((copy, SET_DIRECTORY, (work, sid)))
            out.notes.append(
                "the session's directory is the run's directory in the copy (opencode run ends only there)"
            )
        return out

    def dry_run_argv(self, program: str, resume: list[str], model: str | None, prompt: str) -> list[str]:
        """``opencode run --model fake/M --session ID PROMPT`` (``resume``: ``--session ID``): the
        non-interactive form, which sends PROMPT as the new turn and ends."""
        return [program, "run", "--model", f"{PROVIDER}/{model or MODEL}", *resume, prompt]


CLIENT = Opencode()
