"""Make the README's screenshots: each main screen driven by Pilot on the
bundled samples, saved as SVG by Textual, then turned into PNG by
rsvg-convert (or cairosvg when that is installed instead).

    python scripts/screenshots.py [--out docs/screenshots]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from session_tui.ui.app import SessionApp  # noqa: E402
from session_tui.ui.screens.session import SessionScreen  # noqa: E402

if TYPE_CHECKING:
    from session_tui.model.fleet.fleet import Fleet

SAMPLES = REPO / "sample_sessions"
SIZE = (150, 42)
#: (name, what it shows, path(s), keys pressed once the view is ready)
SHOTS = [
    ("picker", "the session picker over sample_sessions/", [str(SAMPLES)], []),
    (
        "tree",
        "a branched tree session: the active branch, a folded alternative, a summary",
        str(SAMPLES / "tree" / "branched-summary.jsonl"),
        ["g", "j", "j", "j", "j", "j", "j", "j", "enter"],
    ),
    (
        "claude",
        "a Claude Code transcript: one response over several lines (┆), a rewind, the compaction",
        str(SAMPLES / "claude" / "d7d9f764-42c4-4cfc-85bc-fce56c355e9f.jsonl"),
        ["g", "j", "j", "j", "j", "j", "j"],
    ),
    (
        "crash",
        "a crashed run: the dangling call and the torn last line",
        str(SAMPLES / "tree" / "crash-torn.jsonl"),
        ["g", "e"],
    ),
    (
        "trim",
        "the repair plan for that crash, before anything is written",
        str(SAMPLES / "tree" / "crash-torn.jsonl"),
        ["t"],
    ),
    (
        "context",
        "the context the model would be sent at the active leaf",
        str(SAMPLES / "tree" / "branched-summary.jsonl"),
        ["c"],
    ),
    ("problems", "the problems of a damaged file", str(SAMPLES / "tree" / "damaged-links.jsonl"), ["p"]),
    (
        "help",
        "the keys of the session view and its marks",
        str(SAMPLES / "tree" / "branched-summary.jsonl"),
        ["question_mark"],
    ),
    ("running", "an agent at work: a call running, with its time (a file written a moment ago)", "running", []),
    ("fleet", "the live fleet: four agents in four states (tool, waiting, stuck, crashed)", "fleet", []),
    (
        "dry-run",
        "a dry-run resume of a crashed Claude Code session with the real client (claude on PATH)",
        str(SAMPLES / "claude" / "e400ea4e-b13c-4400-a7d6-45a85f4a56c7.jsonl"),
        ["D"],
    ),
]


def running_session(folder: Path) -> str:
    """A tree session whose last call was made 12 s ago, the file written
    just now: what the view shows while an agent runs a tool."""
    from datetime import UTC, datetime

    import orjson

    def at(seconds_ago: float) -> str:
        return datetime.fromtimestamp(time.time() - seconds_ago, UTC).isoformat(timespec="milliseconds")

    head = {"type": "session", "version": 1, "id": "running-demo", "createdAt": at(60)}
    prompt = {"role": "user", "content": "Run the invoice tests and fix what fails"}
    calls = [
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "bash", "arguments": '{"command": "pytest -q tests/invoice"}'},
        }
    ]
    records = [
        head,
        {"type": "message", "id": "m1", "parentId": None, "createdAt": at(40), "message": prompt},
        {
            "type": "message",
            "id": "a1",
            "parentId": "m1",
            "createdAt": at(12),
            "message": {"role": "assistant", "content": "Running the invoice tests.", "tool_calls": calls},
        },
    ]
    path = folder / "running.jsonl"
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    return str(path)


def fleet_folder(folder: Path) -> Fleet:
    """Four Claude Code agents at work in four projects: one running a
    command, one waiting for its user, one stuck in a tool for six minutes,
    one crashed in a torn line."""
    import orjson

    from session_tui.model.fleet.fleet import Fleet

    now = time.time()

    def at(ago: float) -> str:
        return datetime.fromtimestamp(now - ago, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def agent(name: str, project: str, prompt: str, tail: list[dict], written: float, torn: bool = False) -> None:
        cwd = f"{os.path.expanduser('~')}/src/{project}"
        records, parent = [], None
        for n, (message, ago) in enumerate([({"role": "user", "content": prompt}, written + 30), *tail]):
            uuid = f"{name[:8]:0<8}-0000-4000-8000-{n:012d}"
            kind = message["role"]
            records.append(
                {
                    "type": kind,
                    "uuid": uuid,
                    "parentUuid": parent,
                    "sessionId": name,
                    "timestamp": at(ago),
                    "cwd": cwd,
                    "message": message,
                }
            )
            parent = uuid
        path = folder / f"{name}.jsonl"
        path.write_bytes(
            b"".join(orjson.dumps(r) + b"\n" for r in records) + (b'{"type":"assistant","uuid"' if torn else b"")
        )
        os.utime(path, (now - written, now - written))

    def call(command: str, n: int) -> dict:
        usage = {"input_tokens": 4_000 * n, "output_tokens": 200, "cache_read_input_tokens": 30_000 * n}
        content = [{"type": "tool_use", "id": f"toolu_{n}", "name": "Bash", "input": {"command": command}}]
        return {"role": "assistant", "model": "claude-sonnet-4-5", "content": content, "usage": usage}

    agent(
        "running",
        "invoice-tools",
        "Run the integration tests and fix what fails",
        [(call("pytest -q tests/integration", 2), 12)],
        12,
    )
    answer = {
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "Done: the dates parse in UTC."}],
        "usage": {"input_tokens": 9_000, "output_tokens": 400, "cache_read_input_tokens": 150_000},
    }
    agent("waiting", "date-utils", "Make the date parsing timezone-safe", [(answer, 40)], 40)
    agent("stuck", "deploy-scripts", "Deploy the staging stack", [(call("terraform apply", 1), 400)], 400)
    agent("crashed", "schema", "Migrate the orders schema", [(call("alembic upgrade head", 3), 90)], 80, torn=True)
    return Fleet([str(folder)], window=7200, process_check=None)


async def shoot(name: str, path, keys: list[str], out: Path) -> Path:
    if isinstance(path, Path):  # a fleet folder
        app = SessionApp([str(path)], fleet=fleet_folder(path))
        async with app.run_test(size=SIZE) as pilot:
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and len(app.screen.table.rows) < 4:
                await pilot.pause(0.05)
            await pilot.pause(0.6)
            return Path(app.save_screenshot(f"{name}.svg", str(out)))
    app = SessionApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        deadline = time.monotonic() + 20
        if isinstance(path, str):  # wait for the view, its problems and its totals
            while time.monotonic() < deadline:
                screen = app.screen
                if (
                    isinstance(screen, SessionScreen)
                    and screen.rows is not None
                    and screen.problems is not None
                    and not screen.indexing
                ):
                    break
                await pilot.pause(0.05)
        await pilot.pause(0.6)
        for key in keys:
            await pilot.press(key)
            await pilot.pause(0.05)
        if keys == ["D"]:  # the dry run: the client takes seconds
            from session_tui.ui.screens.text_view import TextViewScreen

            while time.monotonic() < deadline + 60 and not isinstance(app.screen, TextViewScreen):
                await pilot.pause(0.1)
        await pilot.pause(0.6)
        return Path(app.save_screenshot(f"{name}.svg", str(out)))


def to_png(svg: Path) -> Path | None:
    """A PNG of ``svg``, its text in a monospace font this machine has (the
    SVG names Fira Code, which a converter without it replaces by a
    proportional font: the columns would not line up)."""
    png = svg.with_suffix(".png")
    mono = svg.with_suffix(".mono.svg")
    text = re.sub(r"@font-face \{[^}]*\}", "", svg.read_text())  # (no font is fetched from anywhere)
    mono.write_text(text.replace("Fira Code", "DejaVu Sans Mono"))
    try:
        return _convert(mono, png)
    finally:
        mono.unlink()


def _convert(svg: Path, png: Path) -> Path | None:
    if shutil.which("rsvg-convert"):
        subprocess.run(["rsvg-convert", "--zoom", "1.0", "-o", str(png), str(svg)], check=True)
        return png
    try:
        import cairosvg
    except ImportError:
        return None
    cairosvg.svg2png(url=str(svg), write_to=str(png))
    return png


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(REPO / "docs" / "screenshots"))
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("SESSION_TUI_CACHE_DIR", str(out / ".cache"))  # the picker's cache: not the user's
    (out / ".cache").mkdir(exist_ok=True)
    for name, what, path, keys in SHOTS:
        if path == "running":
            path = running_session(out / ".cache")
        elif path == "fleet":
            path = out / ".cache" / "fleet"
            path.mkdir(parents=True, exist_ok=True)
        svg = asyncio.run(shoot(name, path, keys, out))
        png = to_png(svg)
        print(f"{name:9} {what}: {svg.name}" + (f", {png.name}" if png else " (no PNG converter found)"))
    shutil.rmtree(out / ".cache", ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
