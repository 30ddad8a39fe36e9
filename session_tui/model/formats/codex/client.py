"""Codex 0.169.0 as session-tui drives it: ``codex resume -- <id>`` finds a
rollout by the thread id in its name anywhere under ``$CODEX_HOME/sessions``
(``~/.codex``), a new one in that day's folder; the id and the working
directory are in the first record, ``session_meta``'s payload."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from datetime import datetime
from types import MappingProxyType
from typing import TYPE_CHECKING

from ...checked_paths import UUID, ResumeRefused, checked_id, checked_name, inside
from ...reading.records import BadLine, parse_object
from ..client import RESPONSES, Client, DryRunHome
from .thread import thread_files

if TYPE_CHECKING:  # pragma: no cover
    from ..base import Session

#: how the user messages Codex adds to a new turn begin (its environment,
#: instructions, AGENTS.md …): a dry run's request ends with them before its prompt
INJECTED = (
    "<environment_context>",
    "<user_instructions>",
    "<skills_instructions>",
    "<permissions",
    "<model_switch>",
    "# AGENTS.md",
    "<apps_instructions>",
    "<collaboration_mode>",
    "<personality",
)


def codex_home(env: Mapping[str, str]) -> str:
    return env.get("CODEX_HOME") or os.path.join(env.get("HOME") or os.path.expanduser("~"), ".codex")


def _payload(session: Session) -> dict[str, object]:
    payload = (session.header or {}).get("payload")
    return payload if isinstance(payload, dict) else {}


class Codex(Client):
    name = "codex"
    program = "codex"
    title = "Codex"
    pinned = "0.169.0"
    provider = "openai"
    wire = RESPONSES
    context_form = RESPONSES
    process_names = ("codex",)
    packages = ("/@openai/codex",)
    resumes_at = "the end of the rollout"
    fork_form = "resume -- <the new thread's id>"
    dry_run_env = MappingProxyType({"OPENAI_API_KEY": "sk-session-tui-dry-run"})  # (its config turns the rest off)

    def argv(self, session_id: str, path: str) -> list[str]:
        return [self.program, "resume", "--", checked_id(session_id, "the thread id", path)]

    def sessions_folder(self, cwd: str | None, env: Mapping[str, str], now: datetime | None = None) -> str | None:
        day = (now or datetime.now()).strftime("%Y/%m/%d")
        return inside(os.path.join(codex_home(env), "sessions"), *day.split("/"))

    def found_in_place(self, path: str, session_id: str | None, cwd: str | None, env: Mapping[str, str]) -> bool:
        path = os.path.join(os.path.realpath(os.path.dirname(os.path.abspath(path))), os.path.basename(path))
        root = os.path.join(os.path.realpath(codex_home(env)), "sessions", "")
        return path.startswith(root) and bool(session_id) and str(session_id) in os.path.basename(path)

    def session_id_of(self, session: Session) -> str | None:
        found = _payload(session).get("id")
        return checked_id(found, "its session id", session.path) if isinstance(found, str) else None

    def new_file_id(self, path: str, data: bytes) -> str:
        try:
            payload = parse_object(data.split(b"\n", 1)[0]).get("payload")
        except BadLine:
            payload = None
        found = payload.get("id") if isinstance(payload, dict) else None
        if isinstance(found, str):
            return checked_id(found, "its thread id", path)
        match = UUID.search(os.path.basename(path))
        return match.group(0) if match else ""

    def recorded_cwd(self, session: Session, leaf: int) -> str | None:
        found = _payload(session).get("cwd")
        return found if isinstance(found, str) and found else None

    def dry_run_home(self, session: Session, run: str, work: str, url: str, model: str | None) -> DryRunHome:
        home = os.path.join(run, ".codex")
        name = os.path.basename(session.path)
        match = re.match(r"rollout-(\d{4})-(\d{2})-(\d{2})T", name)
        day = match.groups() if match else tuple(datetime.now().strftime("%Y %m %d").split())
        folder = os.path.join(home, "sessions", *day)
        config = [
            f"model = {json.dumps(model)}" if model else "",
            'model_provider = "openai"',
            f'openai_base_url = "{url}/v1"',
            'approval_policy = "never"',
            'sandbox_mode = "read-only"',
            "check_for_update_on_startup = false",
            "",
            "[analytics]",
            "enabled = false",
            "",
            "[feedback]",
            "enabled = false",
            "",
            # Codex 0.169 syncs its curated plugins at start (git, then api.github.com, then
            # chatgpt.com): seen under strace as a DNS query; a dry run reaches loopback only
            "[features]",
            "plugins = false",
            "apps = false",
        ]
        copy = inside(folder, checked_name(name, session.path))
        out = DryRunHome(copy, {"CODEX_HOME": home})
        out.files.append((os.path.join(home, "config.toml"), ("\n".join(config) + "\n").encode()))
        for part in thread_files(session.path):
            out.copies.append((part, inside(folder, checked_name(os.path.basename(part), part))))
        if not name.startswith("rollout-"):  # Codex finds a rollout by the id in its name
            thread = self.session_id_of(session)
            if thread is None:
                raise ResumeRefused(f"{session.path}: its session_meta records no thread id: Codex cannot resume it")
            named = inside(folder, f"rollout-{'-'.join(day)}T00-00-00-{thread}.jsonl")
            out.copies = [(src, named if dst == copy else dst) for src, dst in out.copies]
            out.copy = named
            out.notes.append(
                f"the copy was named {os.path.basename(named)}: Codex finds a rollout by the id in its name"
            )
        return out

    def dry_run_argv(self, program: str, resume: list[str], model: str | None, prompt: str) -> list[str]:
        extra = ["-m", model] if model else []
        return [program, "exec", "--skip-git-repo-check", "--color", "never", *extra, *resume, prompt]


CLIENT = Codex()
