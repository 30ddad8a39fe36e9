"""Work out the usage and compaction figures of tests/data/real/ by hand,
with plain json and none of session-tui's code, for the tests to hold
session-tui's own figures against:

    python scripts/real_usage_figures.py > tests/data/real/usage_figures.json

Claude Code: one response per (message.id, requestId), its highest output;
uncached input is its ``input_tokens``; sub-agent transcripts beside the
file added. pi: each assistant message's usage. Codex: the last cumulative
``total_token_usage``, cached input as cache read. Compactions: the line and
pre-compaction tokens of each Claude Code ``compact_boundary`` and pi
``compaction``, and the context of the next response after it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

REAL = Path(__file__).resolve().parent.parent / "tests" / "data" / "real"


def records(path: Path) -> list[tuple[int, dict]]:
    out = []
    for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            out.append((number, record))
    return out


def claude(path: Path) -> tuple[dict, list]:
    responses: dict = {}
    order = []
    for number, record in records(path):
        message = record.get("message")
        if record.get("type") != "assistant" or not isinstance(message, dict) or not message.get("usage"):
            continue
        usage = message["usage"]
        key = (message.get("id"), record.get("requestId"))
        counts = [
            usage.get("input_tokens", 0),
            usage.get("output_tokens", 0),
            usage.get("cache_read_input_tokens", 0),
            usage.get("cache_creation_input_tokens", 0),
        ]
        if key not in responses or counts[1] > responses[key][1]:
            responses[key] = counts
            order.append((number, key))
    totals = [sum(c[k] for c in responses.values()) for k in range(4)]
    firsts = {}
    for number, key in order:
        firsts.setdefault(key, number)
    compactions = []
    rows = records(path)
    for number, record in rows:
        if record.get("type") == "system" and record.get("subtype") == "compact_boundary":
            after = next((responses[k] for n, k in sorted((n, k) for k, n in firsts.items()) if n > number), None)
            compactions.append(
                {
                    "line": number,
                    "tokens_before": record.get("compactMetadata", {}).get("preTokens"),
                    "tokens_after": after[0] + after[2] + after[3] if after else None,
                }
            )
    return dict(zip(("input", "output", "cache_read", "cache_write"), totals, strict=True)), compactions


def pi(path: Path) -> tuple[dict, list]:
    totals = [0, 0, 0, 0]
    for _, record in records(path):
        message = record.get("message")
        if record.get("type") == "message" and isinstance(message, dict) and message.get("role") == "assistant":
            usage = message.get("usage") or {}
            for k, name in enumerate(("input", "output", "cacheRead", "cacheWrite")):
                totals[k] += usage.get(name, 0) or 0
    compactions = [
        {"line": n, "tokens_before": r.get("tokensBefore")} for n, r in records(path) if r.get("type") == "compaction"
    ]
    return dict(zip(("input", "output", "cache_read", "cache_write"), totals, strict=True)), compactions


def codex(path: Path) -> tuple[dict, list]:
    last = None
    for _, record in records(path):
        payload = record.get("payload") or {}
        if record.get("type") == "event_msg" and payload.get("type") == "token_count" and payload.get("info"):
            last = payload["info"].get("total_token_usage") or last
    if last is None:
        return {"input": 0, "output": 0, "cache_read": 0, "cache_write": 0}, []
    cached = last.get("cached_input_tokens", 0)
    return {
        "input": last["input_tokens"] - cached,
        "output": last["output_tokens"],
        "cache_read": cached,
        "cache_write": 0,
    }, []


def main() -> None:
    figures = {}
    for path in sorted(REAL.rglob("*.jsonl")):
        fmt = path.relative_to(REAL).parts[0]
        if fmt == "other" or "subagents" in path.parts:
            continue
        usage, compactions = {"claude": claude, "pi": pi, "codex": codex}[fmt](path)
        folder = path.with_suffix("") / "subagents"
        for sub in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
            extra, _ = claude(sub)
            usage = {k: usage[k] + extra[k] for k in usage}
        figures[str(path.relative_to(REAL))] = {"usage": usage, "compactions": compactions}
    json.dump(figures, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
