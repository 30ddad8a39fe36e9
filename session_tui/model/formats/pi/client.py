"""pi 0.73.1 as session-tui drives it: ``pi --session <path>`` takes the
file's path; the header records the id and the working directory (pi
refuses a header whose ``cwd`` does not exist); the leaf moves in place,
by an appended record pi reads."""

from __future__ import annotations

import json
import os
from types import MappingProxyType
from typing import TYPE_CHECKING

from ...checked_paths import checked_name, inside
from ..client import Client, DryRunHome

if TYPE_CHECKING:  # pragma: no cover
    from ..base import Session

PI_AGENT = "pi"  # the context's shape: pi's agent messages


class Pi(Client):
    name = "pi"
    program = "pi"
    title = "pi"
    pinned = "0.73.1"
    moves_leaf = True
    context_form = PI_AGENT
    process_names = ("pi",)
    packages = ("/pi-coding-agent/",)
    resumes_at = "its last entry or leaf pointer"
    dry_run_env = MappingProxyType(
        {
            "PI_OFFLINE": "1",
            "PI_SKIP_VERSION_CHECK": "1",
            "PI_TELEMETRY": "0",
            # a session of either provider's models (models.json points both at the fake API)
            "ANTHROPIC_API_KEY": "sk-ant-session-tui-dry-run",
            "OPENAI_API_KEY": "sk-session-tui-dry-run",
        }
    )

    def dry_run_home(self, session: Session, run: str, work: str, url: str, model: str | None) -> DryRunHome:
        agent = os.path.join(run, ".pi", "agent")
        providers = {"anthropic": {"baseUrl": url}, "openai": {"baseUrl": f"{url}/v1"}}
        copy = inside(os.path.join(run, "sessions"), checked_name(os.path.basename(session.path), session.path))
        home = DryRunHome(copy, {"PI_CODING_AGENT_DIR": agent})
        home.files.append((os.path.join(agent, "models.json"), json.dumps({"providers": providers}).encode()))
        with open(session.path, "rb") as source:
            data = source.read()
        head, newline, rest = data.partition(b"\n")
        try:
            header = json.loads(head)
        except ValueError:
            header = None
        if isinstance(header, dict) and isinstance(header.get("cwd"), str) and not os.path.isdir(header["cwd"]):
            home.notes.append(
                f"the header's cwd {header['cwd']} does not exist here: the copy's was set to a temporary one"
            )
            header["cwd"] = work
            data = json.dumps(header, ensure_ascii=False, separators=(",", ":")).encode() + newline + rest
        home.files.append((copy, data))
        return home


CLIENT = Pi()
