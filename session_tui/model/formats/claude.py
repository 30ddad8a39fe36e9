"""`claude`: Claude Code transcripts (formats.md §5).

Chain records (``user``, ``assistant``, ``system``, ``progress``,
``attachment``) are linked by ``uuid``/``parentUuid``; metadata records have
no ``uuid`` and are kept as such (title records name the session). One API
response is spread over several assistant lines sharing ``message.id``: one
step. A ``compact_boundary`` starts a new root on disk; here it hangs under
the record it compacted (``logicalParentUuid``) as a summary node, and the
model's context starts after it; the lines of one response are merged into
one message there, as Claude Code sends them. The active leaf is not stored: it is the
newest non-sidechain user/assistant leaf. Files copied by resume/fork repeat
earlier uuids: the first copy wins, quietly. Sub-agent transcripts live in
``<session id>/subagents/agent-<id>.jsonl`` beside the file.
"""

from __future__ import annotations

import os
import re

from ..entry_view import EntryView, content_text
from ..records import BadLine
from ..segment import LineKind, Shape
from .anthropic_messages import AnthropicMessages, read_blocks, shape_of
from .base import Format, check_stop

CHAIN_TYPES = ("user", "assistant", "system", "progress", "attachment")
COMPACT = "compact_boundary"
#: metadata records that name the session: (field, rank); a user's own title beats the AI's, which beats a summary
TITLE_FIELDS = {"custom-title": ("customTitle", 3), "ai-title": ("aiTitle", 2), "summary": ("summary", 1)}
SUBAGENT_SKIP = "agent-acompact-"  # internal compaction helpers, not spawned by a call
_AGENT_IN_TEXT = re.compile(r"agentId:\s*([A-Za-z0-9_-]+)")
_USAGE_IN = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def _message(record: dict) -> dict:
    message = record.get("message")
    return message if isinstance(message, dict) else {}


class ClaudeFormat(AnthropicMessages, Format):
    name = "claude"
    duplicates_expected = True

    def sniff(self, objs: list[dict], path: str | None = None) -> bool:
        for obj in objs:
            if "parentUuid" in obj and "sessionId" in obj and "uuid" in obj:
                return True
        first = objs[0]
        return (first.get("type") in ("file-history-snapshot", "summary", "ai-title", "custom-title")
                and any(key in first for key in ("leafUuid", "messageId", "aiTitle", "customTitle")))

    def classify(self, obj: dict, line: int, seg) -> int:
        kind = obj.get("type")
        uid = obj.get("uuid")
        if kind not in CHAIN_TYPES or not isinstance(uid, str) or not uid:
            title = TITLE_FIELDS.get(kind)
            if title and isinstance(obj.get(title[0]), str):
                leaf = obj.get("leafUuid")
                seg.titles.append((line, title[1], obj[title[0]], leaf if isinstance(leaf, str) else None))
            return LineKind.META if isinstance(kind, str) else LineKind.UNKNOWN
        parent = obj.get("parentUuid")
        if kind == "system" and obj.get("subtype") == COMPACT:
            shape = Shape.SUMMARY
            logical = obj.get("logicalParentUuid")
            parent = logical if parent is None else parent
        elif kind in ("user", "assistant"):
            shape = shape_of(_message(obj))
        elif kind == "system":
            shape = Shape.SYSTEM
        elif kind == "progress":  # tool/hook streaming beside the chain: not a branch
            shape = Shape.OTHER | Shape.ASIDE
        else:
            shape = Shape.OTHER
        seg.add_entry(line, uid, parent if isinstance(parent, str) else None, shape)
        return LineKind.ENTRY

    def entry_id(self, record: dict) -> str | None:
        return record.get("uuid")

    def expected_root(self, record: dict) -> bool:
        # A compaction's earlier part may be gone from the file; a copied
        # prefix may start mid-chain.
        return record.get("subtype") == COMPACT or "forkedFrom" in record

    # -- active leaf ----------------------------------------------------------------
    def active_leaf(self, session) -> int:
        """Where Claude Code resumes (§5.6): the newest (max ``timestamp``,
        first seen on a tie) user/assistant leaf outside sidechains. A branch
        that ends in records the model never sees (``system`` turn durations,
        hook summaries, ``progress``) ends, for this, at its last
        user/assistant record: a call killed while its progress streamed is
        still the leaf. A compaction counts as the child of the record it
        compacted. Leaf times are remembered between calls."""
        tree = session.tree
        if not tree.count:
            return -1
        seen: dict[int, tuple[int, str]] = session.memo.setdefault("leaf_times", {})
        best, best_time = -1, None
        for leaf in tree.leaf_list():
            known = seen.get(leaf)
            if known is None:
                at, record = _conversational(session, leaf)
                stamp = record.get("timestamp")
                known = seen[leaf] = (at if record.get("isSidechain") is not True else -1,
                                      stamp if isinstance(stamp, str) else "")
            at, stamp = known
            if at >= 0 and (best_time is None or stamp > best_time):
                best, best_time = at, stamp
        return best if best >= 0 else tree.count - 1

    # -- context --------------------------------------------------------------------
    def context(self, session, leaf: int, should_stop=None) -> list[tuple[int, dict]]:
        """The user/assistant messages from the last compaction on the path
        (exclusive) to ``leaf``; the compact summary record comes first."""
        tree = session.tree
        path = tree.path_to(leaf)
        start = 0
        for k in range(len(path) - 1, -1, -1):
            if tree.shape[path[k]] & Shape.SUMMARY:
                start = k + 1
                break
        out: list[tuple[int, dict]] = []
        for n, entry in enumerate(path[start:]):
            check_stop(should_stop, n)
            shape = tree.shape[entry]
            if shape & Shape.ROLE_MASK not in (Shape.USER, Shape.ASSISTANT) and not shape & Shape.RESULT:
                continue
            record = session.record(entry)
            if record.get("type") not in ("user", "assistant"):
                continue
            message = _message(record)
            if out and _same_response(out[-1][1], message):  # one API message, as Claude Code sends it
                message = _merged(out.pop()[1], message)
            out.append((entry, message))
        return out

    # -- view -----------------------------------------------------------------------
    def view(self, record: dict) -> EntryView:
        kind = record.get("type")
        fields = {"id": record.get("uuid"), "parent_id": record.get("parentUuid"), "time": record.get("timestamp")}
        if kind == "system" and record.get("subtype") == COMPACT:
            meta = record.get("compactMetadata") if isinstance(record.get("compactMetadata"), dict) else {}
            fields["parent_id"] = record.get("logicalParentUuid")
            trigger = meta.get("trigger")
            return EntryView(kind="summary", role="summary",
                             text=f"{record.get('content') or 'Conversation compacted'}"
                                  + (f" ({trigger})" if isinstance(trigger, str) else "")
                                  + ": the summary follows; the model's context starts there",
                             tokens_before=_int(meta.get("preTokens")), tokens_after=_int(meta.get("postTokens")),
                             **fields)
        if kind in ("user", "assistant"):
            message = _message(record)
            texts, calls = read_blocks(message)
            results = self.tool_result_ids(message)
            role = "tool" if results else str(message.get("role") or kind)
            for flag, mark in (("isCompactSummary", "[compact summary] "), ("isSidechain", "[sidechain] ")):
                if record.get(flag):
                    texts[:1] = [mark + (texts[0] if texts else "")]
            step = message.get("id") if kind == "assistant" and isinstance(message.get("id"), str) else None
            return EntryView(kind="message", role=role, text="\n".join(texts), tool_calls=calls,
                             result_for=results[0] if results else None, tokens=_tokens(message.get("usage")),
                             step=step, **fields)
        if kind == "system":
            subtype = record.get("subtype")
            text = content_text(record.get("content")) if record.get("content") is not None else ""
            return EntryView(kind="system", role="system", text=f"[{subtype}] {text}" if subtype else text, **fields)
        data = record.get("data") if isinstance(record.get("data"), dict) else {}
        attachment = record.get("attachment") if isinstance(record.get("attachment"), dict) else {}
        detail = data.get("type") or attachment.get("type") or ""
        return EntryView(kind=str(kind), role=str(kind), text=f"{kind} {detail}".strip(), **fields)

    # -- sub-agents -----------------------------------------------------------------
    def subagents(self, session) -> dict[int, str]:
        """Sub-agent transcripts found beside the file, by the entry of the
        Task/Agent call whose result names their agent id
        (``toolUseResult.agentId`` or ``agentId: …`` in its text). Files no
        result names are left out."""
        from ..search import partner

        folder = os.path.join(os.path.dirname(session.path),
                              os.path.basename(session.path).removesuffix(".jsonl"), "subagents")
        try:
            names = sorted(n for n in os.listdir(folder)
                           if n.startswith("agent-") and n.endswith(".jsonl") and not n.startswith(SUBAGENT_SKIP))
        except OSError:
            return {}
        wanted = {n[len("agent-"):-len(".jsonl")]: os.path.join(folder, n) for n in names}
        memo = session.memo.setdefault("subagents", {})
        if memo.get("wanted") != wanted:  # new transcripts: look at every result again
            memo.update(wanted=wanted, scanned=0, found={})
        found: dict[int, str] = memo["found"]
        tree = session.tree
        for entry in range(memo["scanned"], tree.count):  # only results added since the last call
            if not tree.shape[entry] & Shape.RESULT:
                continue
            for agent_id in _agent_ids(session.record(entry)):
                if agent_id in wanted:
                    call = partner(session, entry)
                    found[entry if call is None else call] = wanted[agent_id]
        memo["scanned"] = tree.count
        return dict(found)

    def origin(self, session) -> str | None:
        """A fork copies its source's records, each with ``forkedFrom``: the
        last copied one names the record it was forked at (found by bisection:
        the copies are a prefix of the file)."""
        def forked(entry: int):
            try:
                value = session.record(entry).get("forkedFrom")
            except (BadLine, OSError):
                return None
            return value if isinstance(value, dict) and value.get("sessionId") else None

        if not session.tree.count or forked(0) is None:
            return None
        low, high = 0, session.tree.count - 1  # forked(low) holds; find the last that does
        while low < high:
            mid = (low + high + 1) // 2
            low, high = (mid, high) if forked(mid) is not None else (low, mid - 1)
        last = forked(low)
        return f"session {last.get('sessionId')} at {last.get('messageUuid')}"


def _same_response(previous: dict, message: dict) -> bool:
    return (message.get("role") == "assistant" and previous.get("role") == "assistant"
            and isinstance(message.get("id"), str) and message.get("id") == previous.get("id"))


def _merged(first: dict, then: dict) -> dict:
    """Two lines of one response as one message: the blocks of both, the
    later line's stop reason and usage."""
    def blocks(message):
        content = message.get("content")
        return content if isinstance(content, list) else [{"type": "text", "text": content_text(content)}]

    return {**first, **{k: v for k, v in then.items() if k != "content"}, "content": blocks(first) + blocks(then)}


def _conversational(session, entry: int) -> tuple[int, dict]:
    """``entry`` or its nearest ancestor that is a user/assistant record
    (what the model sees), with its record; (-1, {}) if none."""
    tree = session.tree
    while entry >= 0:
        shape = tree.shape[entry]
        if shape & Shape.ROLE_MASK in (Shape.USER, Shape.ASSISTANT) or shape & Shape.RESULT:
            record = session.record(entry)
            if record.get("type") in ("user", "assistant"):
                return entry, record
        entry = tree.parent[entry]
    return -1, {}


def _agent_ids(record: dict) -> list[str]:
    found = []
    result = record.get("toolUseResult")
    if isinstance(result, dict) and isinstance(result.get("agentId"), str):
        found.append(result["agentId"])
    for block in _message(record).get("content") or ():
        if isinstance(block, dict) and block.get("type") == "tool_result":
            found.extend(_AGENT_IN_TEXT.findall(content_text(block.get("content"))))
    return found


def _int(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _tokens(usage) -> dict | None:
    """Usage as recorded, with ``input_tokens`` counting cached input too
    (Claude reports the uncached part alone, often a handful)."""
    if not isinstance(usage, dict):
        return None
    out = dict(usage)
    out["input_tokens"] = sum(v for k in _USAGE_IN if isinstance(v := usage.get(k), int))
    return out


FORMAT = ClaudeFormat()
