"""Hostile sessions: every string a format shows carries escape sequences.

``hostile_dir(tmp)`` writes one session per format (built from a sample, every
string value but the structural ones suffixed with ``PAYLOAD``, so ids still
link), an extra record whose role is an escape sequence, a line whose C1
controls are raw bytes, a torn tail, and files whose names carry escapes and
undecodable bytes; every string holds a lone surrogate escape too. What must never reach a terminal is listed in
``FORBIDDEN``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.support import SAMPLES

OSC52 = "\x1b]52;c;cHduZWQ=\x07"  # base64 "pwned" to the clipboard
PAYLOAD = (
    OSC52 + "\x1b]0;pwned\x07\x1b]2;pwned\x1b\\\x1b[2J\x1bc\x9b6n\x9d0;pwned\x9c"
    "\x1b]8;;http://pwned.example/\x07link\x1b]8;;\x07\u202eevil\u202c zero\u200bwidth\u2028sep"
)
LONE_SURROGATE = b"\\ud83d"  # half an emoji: valid JSON (the clients read it), never valid UTF-8 written raw
RAW_BYTES = b"\x9b2J\x9d0;pwned\x07"  # C1 CSI/OSC as bytes: not UTF-8, so a bad line shown as read

# what must not appear in the bytes the app writes (the app itself makes none of these)
FORBIDDEN = {
    "OSC 52 (clipboard)": b"\x1b]52",
    "OSC 0 (title)": b"\x1b]0;",
    "OSC 2 (title)": b"\x1b]2;",
    "OSC 8 (hyperlink)": b"\x1b]8;",
    "RIS (reset)": b"\x1bc",
    "C1 CSI as a character": "\x9b".encode(),
    "C1 OSC as a character": "\x9d".encode(),
    "C1 CSI as a byte": b"\x9b6n",
    "RLO (bidi override)": "\u202e".encode(),
    "zero-width space": "\u200b".encode(),
    "line separator": "\u2028".encode(),
    "lone surrogate": "\ud83d".encode("utf-8", "surrogatepass"),
}

STRUCTURAL = {"type", "role", "version", "record_type"}
FORMAT_SAMPLES = {
    "tree": "tree/crash-dangling.jsonl",
    "chat": "chat/session-crash-dangling.jsonl",
    "pi": "pi/2026-03-15T16-40-11-052Z_876adc47-614e-495d-ac53-be28b587216d.jsonl",
    "claude": "claude/e400ea4e-b13c-4400-a7d6-45a85f4a56c7.jsonl",
    "codex": "codex/rollout-2026-03-15T18-02-44-019cf2aa-2d31-7f5d-9af7-a08945194059.jsonl",
    "astorlm": "astorlm/5e2ed5fa-83f0-43d9-8687-965f5d9f3315.jsonl",
}


def poison(value, key: str | None = None):
    """``value`` with every string but the structural ones suffixed with PAYLOAD."""
    if isinstance(value, dict):
        return {k: poison(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [poison(v, key) for v in value]
    if isinstance(value, str) and key not in STRUCTURAL:
        return value + PAYLOAD
    return value


def hostile_lines(fmt: str) -> list[bytes]:
    lines = [line for line in (SAMPLES / FORMAT_SAMPLES[fmt]).read_bytes().splitlines() if line.strip()]
    out = []
    for line in lines:
        try:
            dumped = json.dumps(poison(json.loads(line)), ensure_ascii=False).encode()
            out.append(dumped.replace(b" zero", b" " + LONE_SURROGATE + b"zero"))
        except ValueError:  # a sample's own torn line stays as it is
            out.append(line)
    if fmt in ("tree", "chat"):  # the role itself from the file
        last = json.loads(out[-1])
        record = {"role": PAYLOAD, "content": "hostile role" + PAYLOAD}
        if fmt == "tree":
            record = {"type": "message", "id": "hostile-role", "parentId": last.get("id"), "message": record}
        out.append(json.dumps(record).encode())  # (its parent's id holds the lone surrogate: escaped)
    out.append(b'{"role":"user","content":"' + RAW_BYTES + b'"}')
    if fmt == "chat":  # nested deeper than orjson writes (254), as deep as it reads
        out.append(b'{"role":"user","content":"deep","extra":' + b"[" * 1000 + b"]" * 1000 + b"}")
    return out


def hostile_dir(tmp: Path) -> dict[str, Path]:
    """One hostile session per format (named after it; astorlm after its sidecar) in ``tmp``, plus files with
    hostile names: their paths by format name, and "named" for the file whose name is hostile."""
    paths = {}
    for fmt, sample in FORMAT_SAMPLES.items():
        body = b"\n".join(hostile_lines(fmt)) + b"\n" + b'{"torn": "' + PAYLOAD.encode() + RAW_BYTES
        name = f"{fmt}.jsonl"
        if fmt == "astorlm":  # found by its sidecar, which names the file
            meta_path = (SAMPLES / sample).with_suffix(".meta.json")
            meta = json.loads(meta_path.read_text())
            (tmp / meta_path.name).write_text(json.dumps({**poison(meta), "id": meta["id"]}, ensure_ascii=False))
            name = meta_path.name.removesuffix(".meta.json") + ".jsonl"
        paths[fmt] = tmp / name
        paths[fmt].write_bytes(body)
    chat = (tmp / "chat.jsonl").read_bytes()
    paths["named"] = tmp / f"named{PAYLOAD.replace('/', '_')}.jsonl"
    paths["named"].write_bytes(chat)
    os.close(
        os.open(
            os.fsencode(tmp) + b"/raw-name-" + RAW_BYTES.replace(b"/", b"_") + b".jsonl",
            os.O_CREAT | os.O_WRONLY,
            0o644,
        )
    )
    return paths
