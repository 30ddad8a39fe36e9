"""The oracle's reduction of a model request to comparable steps (from
the shared oracle's compare.py, rules R3-R5): role, text digest, thinking
digest, call ids, result ids, is_error. The goldens in tests/golden hold the
steps of what each real client sent; the tests reduce session-tui's
``export --context --to json`` the same way, so they need neither the
clients nor the network. Re-record with scripts/record_goldens.py."""

# ruff: noqa
from __future__ import annotations

import hashlib
import json


def digest(s: str | None) -> str:
    if s is None or s == "":
        return "-"
    return hashlib.sha1(s.encode("utf-8", "surrogatepass")).hexdigest()[:10]


def block_text(c) -> str:
    """Text of a content value: str, or list of blocks."""
    if c is None:
        return ""
    if isinstance(c, str):
        return c
    if isinstance(c, list):
        parts = []
        for b in c:
            if isinstance(b, str):
                parts.append(b)
            elif isinstance(b, dict):
                t = b.get("type")
                if t in ("text", "input_text", "output_text"):
                    parts.append(b.get("text") or "")
                elif t in ("image", "input_image"):
                    parts.append("[image]")
                else:
                    parts.append(json.dumps(b, sort_keys=True))
        return "\n".join(parts)
    return json.dumps(c, sort_keys=True)


def call_id(c) -> str:
    """R3: pi stores an OpenAI Responses call as "call_id|item_id" and its transport sends the two
    parts as call_id and item id (an item id is transport-only); compare the call id part."""
    return str(c).split("|", 1)[0]


class Step(dict):
    def key(self):
        return (
            self["role"],
            digest(self["text"].strip()),
            digest(self["think"].strip()),
            tuple(map(call_id, self["calls"])),
            tuple(map(call_id, self["results"])),
            self["err"],
        )

    def show(self) -> str:
        bits = [f"{self['role']:9}"]
        if self["calls"]:
            bits.append("calls=" + ",".join(map(str, self["calls"])))
        if self["results"]:
            bits.append("answers=" + ",".join(map(str, self["results"])))
        if self["err"]:
            bits.append("is_error")
        if self["think"].strip():
            bits.append(f"think#{digest(self['think'].strip())}")
        t = self["text"].strip().replace("\n", "\\n")
        bits.append(f"text#{digest(t and self['text'].strip())} {t[:70]!r}")
        if self.get("src"):
            bits.append(f"[{self['src']}]")
        return " ".join(bits)


def step(role, text="", think="", calls=(), results=(), err=False, src="", wrapped=False):
    return Step(
        role=role,
        text=text or "",
        think=think or "",
        calls=list(calls),
        results=list(results),
        err=bool(err),
        src=src,
        wrapped=wrapped,
    )


def merge(steps: list[Step]) -> list[Step]:
    """R4: merge consecutive user steps and consecutive assistant steps."""
    out: list[Step] = []
    for s in steps:
        if (
            out
            and s["role"] in ("user", "assistant")
            and out[-1]["role"] == s["role"]
            and not s.get("wrapped")
            and not out[-1].get("wrapped")
        ):
            p = out[-1]
            p["text"] = "\n".join(x for x in (p["text"], s["text"]) if x)
            p["think"] = "\n".join(x for x in (p["think"], s["think"]) if x)
            p["calls"] += s["calls"]
            p["src"] = (p["src"] + "+" + s["src"]).strip("+")
        else:
            out.append(Step(s))
    return out


def steps_anthropic(msgs: list, label="") -> list[Step]:
    out: list[Step] = []
    for i, m in enumerate(msgs):
        if not isinstance(m, dict):
            continue
        role, c = m.get("role"), m.get("content")
        src = f"{label}{i}"
        if role == "assistant":
            blocks = c if isinstance(c, list) else [{"type": "text", "text": c or ""}]
            text, think, calls = [], [], []
            for b in blocks:
                t = b.get("type")
                if t == "text":
                    text.append(b.get("text") or "")
                elif t == "thinking":
                    think.append(b.get("thinking") or "")
                elif t == "redacted_thinking":
                    think.append("[redacted]")
                elif t in ("tool_use", "server_tool_use"):
                    calls.append(b.get("id"))
                else:
                    text.append(json.dumps(b, sort_keys=True))
            out.append(step("assistant", "\n".join(text), "\n".join(think), calls, src=src))
        elif role in ("user", "system"):
            if isinstance(c, str) or c is None:
                out.append(step(role, c or "", src=src))
                continue
            pending: list[str] = []
            for b in c:
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    if pending:
                        out.append(step(role, "\n".join(pending), src=src))
                        pending = []
                    out.append(
                        step(
                            "tool",
                            block_text(b.get("content")),
                            results=[b.get("tool_use_id")],
                            err=b.get("is_error"),
                            src=src,
                        )
                    )
                else:
                    pending.append(block_text([b]))
            if pending:
                out.append(step(role, "\n".join(pending), src=src))
    return out


def steps_responses(items: list, label="") -> list[Step]:
    out: list[Step] = []
    for i, it in enumerate(items):
        if not isinstance(it, dict):
            continue
        t = it.get("type", "message")
        src = f"{label}{i}"
        if t == "message":
            role = it.get("role")
            role = "system" if role in ("developer", "system") else role
            out.append(step(role, block_text(it.get("content")), src=src))
        elif t == "reasoning":
            summ = "\n".join(s.get("text", "") for s in (it.get("summary") or []) if isinstance(s, dict))
            content = block_text(it.get("content")) if it.get("content") else ""
            think = "\n".join(x for x in (summ, content) if x) or ("[redacted]" if it.get("encrypted_content") else "")
            out.append(step("assistant", "", think, src=src))
        elif t in ("function_call", "custom_tool_call", "local_shell_call", "tool_search_call", "web_search_call"):
            out.append(step("assistant", "", "", [it.get("call_id") or it.get("id")], src=src))
        elif t in ("function_call_output", "custom_tool_call_output", "tool_search_output"):
            o = it.get("output")
            out.append(step("tool", o if isinstance(o, str) else block_text(o), results=[it.get("call_id")], src=src))
        elif t in ("compaction", "compaction_summary"):
            out.append(step("user", "[compaction:" + digest(json.dumps(it, sort_keys=True)) + "]", src=src))
        else:
            out.append(step("user", json.dumps(it, sort_keys=True), src=src))
    return out


def steps_pi_agent(msgs: list, label="") -> list[Step]:
    out: list[Step] = []
    for i, m in enumerate(msgs):
        role = m.get("role")
        src = f"{label}{i}"
        if role == "user":
            out.append(step("user", block_text(m.get("content")), src=src))
        elif role == "assistant":
            text, think, calls = [], [], []
            for b in m.get("content") or []:
                t = b.get("type")
                if t == "text":
                    text.append(b.get("text") or "")
                elif t == "thinking":
                    think.append(b.get("thinking") or ("[redacted]" if b.get("redacted") else ""))
                elif t == "toolCall":
                    calls.append(b.get("id"))
                else:
                    text.append(json.dumps(b, sort_keys=True))
            out.append(step("assistant", "\n".join(text), "\n".join(think), calls, src=src))
        elif role == "toolResult":
            out.append(
                step("tool", block_text(m.get("content")), results=[m.get("toolCallId")], err=m.get("isError"), src=src)
            )
        elif role in ("compactionSummary", "branchSummary"):
            out.append(step("user", m.get("summary") or "", src=src + ":" + role, wrapped=True))
        elif role == "custom":
            out.append(step("user", block_text(m.get("content")), src=src + ":custom", wrapped=True))
        elif role == "bashExecution":
            out.append(step("user", m.get("command") or "", src=src + ":bashExecution", wrapped=True))
        else:
            out.append(step("user", json.dumps(m, sort_keys=True), src=src + f":{role}"))
    return out


def steps_for(fmt: str, messages: list) -> list:
    """session-tui's context JSON as merged step keys (R1: leading system steps left out)."""
    steps = (steps_responses if fmt == "codex" else steps_pi_agent if fmt == "pi" else steps_anthropic)(
        messages, "tui#"
    )
    while steps and steps[0]["role"] == "system":
        steps.pop(0)
    return [list(map(_plain, s.key())) for s in merge(steps)]


def _plain(value):
    return list(value) if isinstance(value, tuple) else value
