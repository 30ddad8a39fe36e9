#!/usr/bin/env python3
"""Copy session files with their free text replaced, keeping their structure.

    scrub_session.py SRC_DIR DST_DIR

Every JSON string longer than KEEP characters, except under keys that carry
structure (ids, types, roles, times), becomes its first PREFIX characters,
then ``~`` and a digest of the whole: texts stay distinct and keep their
leading markup (``<command-name>``, ``[Request …``), but no prose is copied.
Used to turn real session files (personal data) into test fixtures whose
shape is real; goldens are then recorded on the scrubbed copies.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

KEEP = 24
PREFIX = 14
STRUCTURE = {
    "type",
    "role",
    "uuid",
    "parentUuid",
    "logicalParentUuid",
    "id",
    "parentId",
    "tool_use_id",
    "call_id",
    "timestamp",
    "sessionId",
    "version",
    "subtype",
    "model",
    "name",
    "stop_reason",
    "stopReason",
    "toolCallId",
    "tool_call_id",
    "api",
    "provider",
    "leafUuid",
    "messageId",
    "sourceToolAssistantUUID",
    "agentId",
    "firstKeptEntryId",
    "promptId",
    "requestId",
    "record_type",
    "originator",
    "cli_version",
    "modelId",
}


def scrub(value, key: str | None = None):
    if isinstance(value, dict):
        return {k: scrub(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub(v, key) for v in value]
    if isinstance(value, str) and len(value) > KEEP and key not in STRUCTURE:
        return value[:PREFIX] + "~" + hashlib.sha1(value.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return value


def scrub_file(src: Path, dst: Path) -> None:
    out = []
    for raw in src.read_bytes().split(b"\n"):
        try:
            out.append(json.dumps(scrub(json.loads(raw)), ensure_ascii=False, separators=(",", ":")).encode())
        except ValueError:
            out.append(raw)  # blank, torn or bad lines are kept as they are
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_bytes(b"\n".join(out))


def main() -> None:
    src, dst = Path(sys.argv[1]), Path(sys.argv[2])
    for path in sorted(src.rglob("*.jsonl")):
        scrub_file(path, dst / path.relative_to(src))


if __name__ == "__main__":
    main()
