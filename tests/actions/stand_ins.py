"""What the resume tests run instead of the real clients, and the sessions
they resume."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.support import SAMPLES

PI = SAMPLES / "pi" / "2026-03-14T09-12-03-417Z_49367314-07c6-4a67-8508-8efab1434a5b.jsonl"  # two leaves


def stand_in(folder: Path, name: str, body: str) -> Path:
    """An executable ``name`` in ``folder`` running ``body`` (Python)."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / name
    script.write_text(f"#!{sys.executable}\nimport json, os, sys\n{body}\n")
    script.chmod(0o755)
    return script


def pi_session_in(folder: Path) -> tuple[Path, Path]:
    """(a copy of the two-leaf pi sample whose header records ``folder/project``
    as its directory, that directory)."""
    project = folder / "project"
    project.mkdir()
    lines = PI.read_text().splitlines(keepends=True)
    header = json.loads(lines[0])
    header["cwd"] = str(project)
    path = folder / PI.name
    path.write_text(json.dumps(header) + "\n" + "".join(lines[1:]))
    return path, project
