"""`gemini`: Gemini CLI 0.61 chat recordings (docs/formats.md, "Gemini CLI").

``~/.gemini/tmp/<project>/chats/session-<date>-<id8>.jsonl`` is a log of
patches to one conversation, applied in order as Gemini CLI's
``loadConversationRecord`` applies them: a header (``sessionId``,
``projectHash``); message records (a string ``id``: ``user``, ``gemini``,
``info``/``error``/``warning``), where a record written again under the same
id replaces the earlier copy in the earlier copy's place (the last copy
wins: a ``gemini`` record is written once when its text is done and again
with ``toolCalls`` when its calls finish); ``{"$set": {...}}`` metadata
patches, one with ``messages`` a snapshot that replaces the whole
conversation; ``{"$rewindTo": id}``, which cuts the conversation from that
message on (all of it when the id is unknown).

Here the file is one branch of rows (one per message, snapshot and rewind:
a message written again right after itself is one entry that reads its
last copy, in the tree, the transcript, the export and the counts); what
a rewind or a snapshot took out is off the branch (greyed), not lost. The
context at a row is what Gemini CLI sends on resume of the
file cut there: ``convertSessionToClientHistory`` (thoughts, the text, a
``functionCall`` per tool call, then a user turn with each call's
``result``), thoughts stripped (the first call of a turn that had some gets
the synthetic ``thoughtSignature``), and the ``<tool>__`` prefix Gemini CLI
puts on call ids in its file taken off. A kill during a call leaves no
trace of it: the ``gemini`` record stays as first written, without calls.
At a row before the file's end the context is the fork session-tui writes
to resume there (``store/forms/gemini.py``): a snapshot without the ``user``
records 0.61 would send a second time (``twice_sent``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...entries.tokens import Response
from ...entries.view import EntryView, ToolCall
from ...errors import check_stop
from ...reading import json_text
from ...reading.segment import LineKind, Segment, Shape
from ..base import LinearFile, Sent, Session
from .client import CLIENT
from .history import (
    calls_of,
    cleaned,
    fold,
    header_like,
    history,
    is_responses,
    is_str,
    part_string,
    snapshot,
    strip_prefix,
)

CLIENT_TITLE = CLIENT.title
#: the context window Gemini CLI 0.61 counts a Gemini model's context against (``tokenLimit()``)
TOKEN_LIMIT = 1_048_576
#: what Gemini CLI adds on resume after a function response the model never answered
INTERRUPTED = "[The previous response was interrupted before it completed.]"


class GeminiFormat(LinearFile):
    name = "gemini"
    client = CLIENT
    marks_errors = True
    fills_dangling = None  # a call Gemini CLI did not finish is not in the file at all
    torn_tail = ("warning", "Gemini CLI skips it on resume (it ignores a line it cannot parse)")
    stateful = True  # a message written again right after itself takes its place (seg.state["last"])

    def sniff(self, objs: list[dict[str, Any]], path: str | None = None) -> bool:
        return (
            header_like(objs[0])
            and "kind" in objs[0]
            or (header_like(objs[0]) and len(objs) > 1 and ("$set" in objs[1] or is_str(objs[1].get("id"))))
        )

    def sidecar_path(self, path: str) -> str | None:
        return None

    def origin(self, session: Session) -> str | None:
        return None

    def classify(self, obj: dict[str, Any], line: int, seg: Segment) -> int:
        if is_str(obj.get("$rewindTo")):
            shape = Shape.OTHER
        elif is_str(obj.get("id")):
            kind = obj.get("type")
            if kind == "user":
                shape = Shape.TOOL | Shape.RESULT if is_responses(obj) else Shape.USER
            elif kind == "gemini":
                shape = Shape.ASSISTANT | (Shape.CALLS if calls_of(obj) else 0)
            else:
                shape = Shape.OTHER | Shape.QUIET  # info / error / warning: shown, never sent
        elif "$set" in obj:
            if snapshot(obj) is None:
                return LineKind.META
            shape = Shape.OTHER | Shape.QUIET  # its messages are the conversation; the row is the patch
        elif header_like(obj):
            if seg.header is None:
                seg.header = obj
                return LineKind.HEADER
            return LineKind.META
        else:
            return LineKind.UNKNOWN
        last = seg.state.get("last")
        found = obj.get("id")
        seg.state["last"] = (found, line) if is_str(found) else None
        if last is not None and last[0] == found:  # the last message again (its calls done): the last copy wins
            seg.superseded.append(last[1])
            if seg.entry_lines and seg.entry_lines[-1] == last[1]:
                seg.entry_lines[-1], seg.shapes[-1] = line, shape
                return LineKind.ENTRY
            seg.rewrites_last = True  # (the copy it replaces is in the session already)
        seg.entry_lines.append(line)
        seg.shapes.append(shape)
        return LineKind.ENTRY

    def entry_id(self, record: dict[str, Any]) -> str | None:
        """A message's id; a snapshot's: its last message's (the one the
        conversation ends on there, as the leaf `fix` leaves is named)."""
        found = record.get("id")
        if isinstance(found, str):
            return found
        messages = snapshot(record)
        return str(messages[-1]["id"]) if messages else None

    # -- the conversation ------------------------------------------------------------
    def context(
        self, session: Session, leaf: int, should_stop: Callable[[], bool] | None = None
    ) -> list[tuple[int, dict[str, Any]]]:
        """(entry, turn) pairs: what Gemini CLI sends of the file cut at ``leaf``
        (each message record's turns, not yet joined by role)."""
        if leaf < 0:
            return []
        out: list[tuple[int, dict[str, Any]]] = []
        items = list(fold(session, leaf, should_stop).messages.values())
        if leaf != self.active_leaf(session):  # (resumed there through a fork: the form 0.61 accepts)
            items = _without(items, {entry for entry, _ in _twice_sent_in(items)})
        for entry, record in items:
            for turn in history(record):
                sent = cleaned(turn)
                if sent is not None:
                    out.append((entry, sent))
        return out

    def context_tail(self, session: Session, entries: list[int]) -> list[tuple[int, dict[str, Any]]] | None:
        return None  # a repeated id, a snapshot or a rewind changes what came before

    def off_branch(self, session: Session, should_stop: Callable[[], bool] | None = None) -> set[int]:
        """Rows a rewind or a snapshot took out of the conversation (shown greyed)."""
        if not session.tree.count:
            return set()
        final = fold(session, session.tree.count - 1, should_stop)
        kept = {entry for entry, _ in final.messages.values()}
        ids = {key for key in final.messages}
        out = set()
        for entry in range(session.tree.count):
            record = session.record(entry)
            if entry in kept or is_str(record.get("$rewindTo")):
                continue
            found = record.get("id")
            if is_str(found) and found in ids:
                continue  # an earlier copy of a message still there: no branch
            if snapshot(record) is not None or is_str(found):
                out.add(entry)
        return out

    def resume(self, session: Session, items: list[tuple[int, dict[str, Any]]]) -> list[Sent]:
        """The turns as sent, and the model turn Gemini CLI adds after
        function responses the model never answered (a kill mid-answer)."""
        out = [Sent(entry, message) for entry, message in items]
        if items:
            entry, last = items[-1]
            if last.get("role") == "user" and any(
                isinstance(p, dict) and p.get("functionResponse") for p in last.get("parts", [])
            ):
                out.append(Sent(entry, {"role": "model", "parts": [{"text": INTERRUPTED}]}, CLIENT_TITLE))
        return out

    def tool_call_ids(self, message: dict[str, Any]) -> list[str]:
        if message.get("role") != "model":
            return []
        return [
            str(p["functionCall"].get("id"))
            for p in message.get("parts", [])
            if isinstance(p, dict) and isinstance(p.get("functionCall"), dict)
        ]

    def tool_result_id(self, message: dict[str, Any]) -> str | None:
        found = self.tool_result_ids(message)
        return found[0] if found else None

    def tool_result_ids(self, message: dict[str, Any]) -> list[str]:
        if message.get("role") != "user":
            return []
        return [
            str(p["functionResponse"].get("id"))
            for p in message.get("parts", [])
            if isinstance(p, dict) and isinstance(p.get("functionResponse"), dict)
        ]

    def resume_refusals(self, session: Session) -> list[tuple[int, list[str], str]]:
        """(entry, call ids as sent, why) of each record whose function
        responses 0.61 sends twice on resume: the API refuses the request."""
        return [
            (
                entry,
                ids,
                f"{CLIENT.title} {CLIENT.pinned} sends {'this response' if len(ids) == 1 else 'these responses'}"
                " twice on resume (from the gemini record's toolCalls and from this record): the API answers 400 and "
                "it will not resume this file; `session-tui fix` appends the snapshot it resumes",
            )
            for entry, ids in twice_sent(session)
        ]

    # -- tokens ----------------------------------------------------------------------
    responses_by_entry = False  # (the last copy of a response counts, once)

    def responses(self, session: Session, should_stop: Callable[[], bool] | None = None) -> list[Response]:
        """One response per ``gemini`` record id, from its last copy's
        ``tokens`` (``input`` includes ``cached``; ``thoughts`` are output)."""
        found: dict[str, Response] = {}
        for entry in range(session.tree.count):
            check_stop(should_stop, entry)
            if session.tree.shape[entry] & Shape.ROLE_MASK != Shape.ASSISTANT:
                continue
            record = session.record(entry)
            tokens = record.get("tokens")
            if not isinstance(tokens, dict) or not is_str(record.get("id")):
                continue
            usage = _usage(tokens)
            model = record.get("model")
            found.pop(record["id"], None)
            found[record["id"]] = Response(
                entry,
                model if isinstance(model, str) else None,
                "google",
                usage["input_tokens"],
                usage["output_tokens"],
                usage["cache_read_input_tokens"],
                0,
                time=record.get("timestamp") if is_str(record.get("timestamp")) else None,
            )
        return list(found.values())

    def client_window(self, session: Session, entry: int) -> int | None:
        """Gemini CLI 0.61 records no window: it counts every Gemini model's
        context against its own ``tokenLimit()``, 1,048,576."""
        model = session.record(entry).get("model")
        return TOKEN_LIMIT if isinstance(model, str) and model.startswith("gemini-") else None

    # -- view ------------------------------------------------------------------------
    def view(self, record: dict[str, Any]) -> EntryView:
        time = record.get("timestamp") if is_str(record.get("timestamp")) else None
        target = record.get("$rewindTo")
        if isinstance(target, str):
            return EntryView(kind="rewind", role="event", text=f"rewound to {target}: it and what follows are cut")
        found = snapshot(record)
        if found is not None:
            return EntryView(
                kind="snapshot", role="event", text=f"snapshot: the conversation is now these {len(found)} message(s)"
            )
        kind = record.get("type")
        entry_id = record.get("id") if is_str(record.get("id")) else None
        if kind == "user":
            if is_responses(record):
                parts = record["content"]
                inner = parts[0]["functionResponse"] if isinstance(parts[0].get("functionResponse"), dict) else {}
                return EntryView(
                    kind="message",
                    role="tool",
                    id=entry_id,
                    time=time,
                    text="\n".join(_response_text(p["functionResponse"]) for p in parts),
                    result_for=_sent_id(inner),
                    is_error=any(_failed(p["functionResponse"]) for p in parts),
                )
            return EntryView(
                kind="message", role="user", id=entry_id, time=time, text=part_string(record.get("content"))
            )
        if kind == "gemini":
            thoughts = record.get("thoughts")
            listed = thoughts if isinstance(thoughts, list) else []
            think = "".join(str(t.get("description", "")) for t in listed if isinstance(t, dict))
            text = part_string(record.get("content"))
            calls = [
                ToolCall(_sent_id(c) or "", str(c.get("name", "")), json_text.dumps(c.get("args")))
                for c in calls_of(record)
            ]
            tokens = record.get("tokens") if isinstance(record.get("tokens"), dict) else None
            return EntryView(
                kind="message",
                role="assistant",
                id=entry_id,
                time=time,
                text=(f"[thinking] {think}\n" if think else "") + text,
                tool_calls=calls,
                tokens=_usage(tokens) if tokens else None,
                step=entry_id,
            )
        text = part_string(record.get("content"))
        return EntryView(kind=str(kind), role=str(kind), id=entry_id, time=time, text=text)


def _sent_id(inner: dict[str, Any]) -> str | None:
    """A function response's call id as Gemini CLI sends it (no ``<tool>__`` prefix)."""
    found = strip_prefix(inner, ("id", "response")).get("id")
    return str(found) if found is not None else None


def _failed(inner: object) -> bool:
    """A function response that reports a tool error (``response.error``)."""
    response = inner.get("response") if isinstance(inner, dict) else None
    return isinstance(response, dict) and "error" in response


def _response_text(inner: object) -> str:
    response = inner.get("response") if isinstance(inner, dict) else None
    if isinstance(response, dict):
        for key in ("output", "error"):
            if isinstance(response.get(key), str):
                return str(response[key])
    return json_text.dumps(response)


def _usage(tokens: dict[str, Any]) -> dict[str, Any]:
    """Gemini CLI's ``tokens`` as the usage keys the views read."""

    def count(key: str) -> int:
        value = tokens.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    return {
        "input_tokens": max(0, count("input") - count("cached")),
        "output_tokens": count("output") + count("thoughts"),
        "cache_read_input_tokens": count("cached"),
    }


FORMAT = GeminiFormat()


def twice_sent(session: Session, leaf: int | None = None) -> list[tuple[int, list[str]]]:
    """(entry, call ids as sent) of each ``user`` record of function responses that
    Gemini CLI 0.61 sends a second time on resume: the ``gemini`` message
    before it carries the same calls' ``result`` already (the API then
    answers 400: "the number of function response parts is equal to the
    number of function call parts")."""
    leaf = session.tree.count - 1 if leaf is None else leaf
    return _twice_sent_in(list(fold(session, leaf).messages.values())) if leaf >= 0 else []


def _twice_sent_in(items: list[tuple[int, dict[str, Any]]]) -> list[tuple[int, list[str]]]:
    """``twice_sent`` of a folded conversation's (entry, message) items."""
    out: list[tuple[int, list[str]]] = []
    previous: dict[str, Any] | None = None
    for entry, record in items:
        if previous is not None and is_responses(record):
            answered = {str(c.get("id")) for c in calls_of(previous) if c.get("result")}
            ids = [str(p["functionResponse"].get("id")) for p in record["content"]]
            sent = cleaned({"role": "user", "parts": record["content"]}) or {"parts": []}
            if answered and any(i in answered for i in ids):
                out.append((entry, [str(p["functionResponse"].get("id")) for p in sent["parts"]]))
        previous = record if record.get("type") == "gemini" else None
    return out


def _without(items: list[tuple[int, dict[str, Any]]], entries: set[int]) -> list[tuple[int, dict[str, Any]]]:
    return [(entry, record) for entry, record in items if entry not in entries] if entries else items


def without_twice_sent(session: Session, leaf: int | None = None) -> tuple[list[dict[str, Any]], int] | None:
    """The conversation up to ``leaf`` (None: all of it) as a ``$set``
    ``messages`` snapshot that Gemini CLI 0.61 resumes (each repeated
    ``user`` record of function responses left out), and how many were left
    out; None when there is none."""
    leaf = session.tree.count - 1 if leaf is None else leaf
    items = list(fold(session, leaf).messages.values()) if leaf >= 0 else []
    found = {entry for entry, _ in _twice_sent_in(items)}
    if not found:
        return None
    return [record for _, record in _without(items, found)], len(found)
