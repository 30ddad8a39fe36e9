"""`claude`: Claude Code transcripts (docs/formats.md#claude).

Chain records (``user``, ``assistant``, ``system``, ``progress``,
``attachment``) are linked by ``uuid``/``parentUuid``; metadata records have
no ``uuid`` and are kept as such (title records name the session). One API
response is spread over several assistant lines sharing ``message.id``: one
step. A ``compact_boundary`` starts a new root on disk; here it hangs under
the record it compacted (``logicalParentUuid``) as a summary node, and the
model's context starts after it; the lines of one response are merged into
one message there, as Claude Code sends them. The active leaf is not stored: it is the
newest non-sidechain user/assistant leaf. Files copied by resume/fork repeat
earlier uuids: the first copy wins, quietly. Sub-agents and forks: links.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...entries.tokens import int_or_none
from ...entries.view import EntryView, content_text
from ...errors import check_stop
from ...reading.records import name_of
from ...reading.segment import LineKind, Segment, Shape
from ..anthropic_messages import AnthropicMessages, failed_result, read_blocks, shape_of
from ..base import CONTINUED, Compacted, Format, Sent, Session, path_up
from . import links
from .attachments import promoted, render, text_of, with_reminder, wrapped
from .client import CLIENT
from .resume import resume_model_of, same_response, sent_on_resume, system_turns, wraps_system_turns

CHAIN_TYPES = ("user", "assistant", "system", "progress", "attachment")
COMPACT = "compact_boundary"
SENT_SYSTEM = ("local_command",)  # system records Claude Code sends the model (as user text)


def _has_result(message: dict[str, Any]) -> bool:
    content = message.get("content")
    return isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)


def _sent_system(record: dict[str, Any]) -> bool:
    """A system record Claude Code sends the model: a local command's, unless
    ``isDisplayOnly`` (2.1.328's ``/context`` output: shown, never sent; its
    model-facing form follows as a user record)."""
    return record.get("subtype") in SENT_SYSTEM and record.get("isDisplayOnly") is not True


#: the user records Claude Code writes when the user interrupts a turn (Esc): it then waits for the user
INTERRUPTED = ("[Request interrupted by user]", "[Request interrupted by user for tool use]")


#: metadata records that name the session: (field, rank); a user's own title beats the AI's, which beats a summary
# keys looked up with any JSON value
TITLE_FIELDS: dict[Any, tuple[str, int]] = {
    "custom-title": ("customTitle", 3),
    "ai-title": ("aiTitle", 2),
    "summary": ("summary", 1),
}
_USAGE_IN = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def _message(record: dict[str, Any]) -> dict[str, Any]:
    message = record.get("message")
    return message if isinstance(message, dict) else {}


@dataclass
class _LeafTimes:
    """The time each leaf's branch last spoke, by leaf: kept between calls."""

    seen: dict[int, tuple[int, str]] = field(default_factory=dict)


class ClaudeFormat(AnthropicMessages, Format):
    name = "claude"
    marks_errors = True
    parent_key = "parentUuid"
    duplicates_expected = True
    client = CLIENT

    def compaction(self, session: Session, entry: int, record: dict[str, Any]) -> Compacted | None:
        """A ``compact_boundary``: its summary is its first child; its span the
        path that ends at its parent, back to the previous boundary."""
        if record.get("type") != "system" or record.get("subtype") != "compact_boundary":
            return None
        children = list(session.tree.children(entry))
        summary = "\n".join(self.view(session.record(c)).text for c in children[:1])
        parent = session.tree.parent[entry]
        if parent < 0:
            return Compacted(summary, [], CONTINUED)
        span: list[int] = []
        for node in path_up(session, parent):
            earlier = session.record(node)
            if earlier.get("type") == "system" and earlier.get("subtype") == "compact_boundary":
                break  # the previous boundary: the span starts after it
            span.append(node)
        return Compacted(summary, span[::-1])

    fills_dangling = (
        'Claude Code will send an error result for it on resume ("interrupted" at the end of the '
        'conversation, with "No response requested."; "missing" inside it)'
    )
    torn_tail = ("warning", "Claude Code skips it on resume")
    stateful = True  # steps and progress are resolved in file order (_join_step)

    def sniff(self, objs: list[dict[str, Any]], path: str | None = None) -> bool:
        for obj in objs:
            if "parentUuid" in obj and "sessionId" in obj and "uuid" in obj:
                return True
        first = objs[0]
        return first.get("type") in ("file-history-snapshot", "summary", "ai-title", "custom-title") and any(
            key in first for key in ("leafUuid", "messageId", "aiTitle", "customTitle")
        )

    def classify(self, obj: dict[str, Any], line: int, seg: Segment) -> int:
        kind = obj.get("type")
        uid = obj.get("uuid")
        # A record of a type not known here that carries a uuid and a parent
        # link is a node of the chain (docs/formats.md#tree-file): Claude Code walks
        # through it, the model never sees it (the last branch below).
        chained = kind in CHAIN_TYPES or (isinstance(kind, str) and "parentUuid" in obj)
        if not chained or not isinstance(uid, str) or not uid:
            title = TITLE_FIELDS.get(name_of(kind))
            if title and isinstance(obj.get(title[0]), str):
                leaf = obj.get("leafUuid")
                seg.titles.append((line, title[1], obj[title[0]], leaf if isinstance(leaf, str) else None))
            return LineKind.META if isinstance(kind, str) else LineKind.UNKNOWN
        parent = obj.get("parentUuid")
        if kind == "system" and obj.get("subtype") == COMPACT:
            logical = obj.get("logicalParentUuid")
            parent = logical if parent is None else parent
        parent = parent if isinstance(parent, str) else None
        state = seg.state
        if "side_file" not in state:  # a sub-agent transcript: every record is a sidechain
            state["side_file"] = obj.get("isSidechain") is True
        aside_parent = state.setdefault("aside", {})  # progress uuid -> the record it streams beside
        if kind == "progress":  # tool/hook streaming beside the chain: no branch, no leaf, no row
            aside_parent[uid] = aside_parent.get(parent, parent)
            seg.add_entry(line, uid, parent, Shape.OTHER | Shape.ASIDE | Shape.QUIET)
            return LineKind.ENTRY
        parent = aside_parent.get(parent, parent)
        message = _message(obj)
        if kind == "system" and obj.get("subtype") == COMPACT:
            shape = Shape.SUMMARY
        elif kind in ("user", "assistant"):
            shape = shape_of(message)
        elif kind == "system":
            shape = Shape.SYSTEM if _sent_system(obj) else Shape.SYSTEM | Shape.QUIET
        else:
            shape = Shape.OTHER | Shape.QUIET
        if obj.get("isSidechain") is True and not state["side_file"]:
            shape |= Shape.ASIDE  # a sub-agent's conversation inline (Claude Code 1.0): not a branch
        parent = _join_step(state, uid, parent, kind, message, shape)
        seg.add_entry(line, uid, parent, shape)
        return LineKind.ENTRY

    def entry_id(self, record: dict[str, Any]) -> str | None:
        return record.get("uuid")

    def ends_turn(self, record: dict[str, Any]) -> bool:
        """A turn the user interrupted (Claude Code writes ``[Request
        interrupted by user…]`` as a user text, then waits), or a local
        command's records (``/model``, ``/exit``: run by Claude Code, not
        answered by the model)."""
        kind = record.get("type")
        if kind == "system":
            return record.get("subtype") in SENT_SYSTEM
        message = record.get("message")
        if kind != "user" or not isinstance(message, dict):
            return False
        content = message.get("content")
        if isinstance(content, list) and len(content) == 1 and isinstance(content[0], dict):
            content = content[0].get("text") if content[0].get("type") == "text" else None
        return isinstance(content, str) and content in INTERRUPTED

    def expected_root(self, record: dict[str, Any]) -> bool:
        # A compaction's earlier part may be gone from the file; a copied
        # prefix may start mid-chain.
        # A sub-agent transcript starts under records of its parent session.
        return (
            record.get("subtype") == COMPACT
            or "forkedFrom" in record
            or (record.get("isSidechain") is True and isinstance(record.get("agentId"), str))
        )

    # -- active leaf ----------------------------------------------------------------
    def active_leaf(self, session: Session) -> int:
        """Where Claude Code resumes: the newest (max ``timestamp``, first
        seen on a tie) leaf of the conversation outside sidechains. Progress
        records are no leaves (a call killed while its progress streamed is
        the leaf); a branch ending in records the model never sees (turn
        durations, hook summaries) ends at the last record it does see. Leaf
        times are remembered between calls."""
        tree = session.tree
        if not tree.count:
            return -1
        seen = session.memo.of(_LeafTimes).seen
        side_file = _side_file(session)
        best, best_time = -1, None
        for leaf in tree.conversation_leaves():
            known = seen.get(leaf)
            if known is None:
                at = leaf
                while at >= 0 and tree.shape[at] & Shape.QUIET and not _sent_aside(session, at):
                    at = tree.parent[at]
                record = session.record(at) if at >= 0 else {}
                stamp = record.get("timestamp")
                known = seen[leaf] = (
                    at if record.get("isSidechain") is not True or side_file else -1,
                    stamp if isinstance(stamp, str) else "",
                )
            at, stamp = known
            if at >= 0 and (best_time is None or stamp > best_time):
                best, best_time = at, stamp
        return best if best >= 0 else tree.count - 1

    # -- context --------------------------------------------------------------------
    def context(
        self, session: Session, leaf: int, should_stop: Callable[[], bool] | None = None
    ) -> list[tuple[int, dict[str, Any]]]:
        """The messages from the last compaction on the path (exclusive) to
        ``leaf``, one per record as the file holds them (the compact summary
        record first); ``local_command`` system records as the user text
        Claude Code makes of them. ``resume`` makes the API messages."""
        tree = session.tree
        path = tree.path_to(leaf)
        start = 0
        for k in range(len(path) - 1, -1, -1):
            if tree.shape[path[k]] & Shape.SUMMARY:
                start = k + 1
                break
        form = _reminder_form(session, path[start:])
        out: list[tuple[int, dict[str, Any]]] = []
        for n, entry in enumerate(path[start:]):
            check_stop(should_stop, n)
            self._add_message(session, entry, out, form)
        return out

    def context_tail(self, session: Session, entries: list[int]) -> list[tuple[int, dict[str, Any]]] | None:
        if any(session.tree.shape[entry] & Shape.SUMMARY for entry in entries):
            return None  # a compaction starts the context again
        form = _reminder_form(session, entries, entries[0] if entries else -1)
        if session.resume_model is None and entries and form != _reminder_form(session, [], entries[0]):
            return None  # a response of a model that takes its reminders otherwise: built again
        out: list[tuple[int, dict[str, Any]]] = []
        for entry in entries:
            if not self._add_message(session, entry, out, form):
                return None  # a reminder for a message before the tail: built again
        return out

    @staticmethod
    def _add_message(
        session: Session, entry: int, out: list[tuple[int, dict[str, Any]]], form: tuple[bool, bool] = (False, False)
    ) -> bool:
        """The message ``entry`` puts in the context, if any, added to
        ``out``; an attachment's reminder goes into the user message before
        it, or, where ``form`` (``_reminder_form``) says the model takes
        system messages and the client promotes it, into a ``role:
        "system"`` message after that user message (one for a run of them,
        their texts a blank line apart, as Claude Code 2.1.328 sends them).
        False: that message is not in ``out``."""
        shape = session.tree.shape[entry]
        if shape == Shape.OTHER | Shape.QUIET:  # (a record beside the messages: an attachment among them)
            record = session.record(entry)
            text = text_of(record.get("attachment")) if record.get("type") == "attachment" else None
            if text is None:
                return True
            at = len(out) - 1
            system_turns, wrap = form
            if system_turns and promoted(record):
                if at >= 0 and out[at][1].get("role") == "system":
                    joined = out[at][1]["content"] + "\n\n" + (wrapped(text) if wrap else text)
                    out[at] = (out[at][0], {**out[at][1], "content": joined})
                    return True
                if at < 0 or out[at][1].get("role") != "user":
                    return False  # (after a response, or before the context: not seen; left out)
                out.append((entry, {"role": "system", "content": wrapped(text) if wrap else text}))
                return True
            while at >= 0 and out[at][1].get("role") == "system":
                at -= 1  # (past the system message of the reminders promoted before it)
            if at < 0 or out[at][1].get("role") != "user":
                return False
            if not _has_result(out[at][1]):  # before a prompt: at the start of the run of user messages it ends
                while at > 0 and out[at - 1][1].get("role") == "user" and not _has_result(out[at - 1][1]):
                    at -= 1  # (as Claude Code moves an attachment up, past user messages, to a result or a response)
            out[at] = (out[at][0], with_reminder(out[at][1], wrapped(text)))
            return at > 0 or _has_result(out[at][1])  # (a prompt run from the tail's start may begin before it)
        if shape & Shape.QUIET:
            return True
        record = session.record(entry)
        kind = record.get("type")
        if kind in ("user", "assistant"):
            out.append((entry, _message(record)))
        elif kind == "system" and _sent_system(record):
            out.append((entry, {"role": "user", "content": content_text(record.get("content"))}))
        return True

    def same_step(self, previous: dict[str, Any], message: dict[str, Any]) -> bool:
        return same_response(previous, message)

    def resume(self, session: Session, items: list[tuple[int, dict[str, Any]]]) -> list[Sent]:
        return sent_on_resume(self, session, items)

    def resume_model(self, session: Session, items: list[tuple[int, dict[str, Any]]]) -> str | None:
        model = resume_model_of(session, items)
        if model is None or session.resume_model:
            return model
        return f"{model} (the session's last model; export --model MODEL for another)"

    # -- view -----------------------------------------------------------------------
    def view(self, record: dict[str, Any]) -> EntryView:
        kind = record.get("type")
        fields: dict[str, Any] = {
            "id": record.get("uuid"),
            "parent_id": record.get("parentUuid"),
            "time": record.get("timestamp"),
        }
        if kind == "system" and record.get("subtype") == COMPACT:
            meta = found if isinstance(found := record.get("compactMetadata"), dict) else {}
            fields["parent_id"] = record.get("logicalParentUuid")
            trigger = meta.get("trigger")
            return EntryView(
                kind="summary",
                role="summary",
                text=f"{record.get('content') or 'Conversation compacted'}"
                + (f" ({trigger})" if isinstance(trigger, str) else "")
                + ": the summary follows; the model's context starts there",
                tokens_before=int_or_none(meta.get("preTokens")),
                tokens_after=int_or_none(meta.get("postTokens")),
                **fields,
            )
        if kind in ("user", "assistant"):
            message = _message(record)
            texts, calls = read_blocks(message)
            results = self.tool_result_ids(message)
            role = "tool" if results else str(message.get("role") or kind)
            for flag, mark in (("isCompactSummary", "[compact summary] "), ("isSidechain", "[sidechain] ")):
                if record.get(flag):
                    texts[:1] = [mark + (texts[0] if texts else "")]
            step = message.get("id") if kind == "assistant" and isinstance(message.get("id"), str) else None
            return EntryView(
                kind="message",
                role=role,
                text="\n".join(texts),
                tool_calls=calls,
                result_for=results[0] if results else None,
                is_error=bool(results) and failed_result(message),
                tokens=_tokens(message.get("usage")),
                step=step,
                **fields,
            )
        if kind == "system":
            subtype = record.get("subtype")
            text = content_text(record.get("content")) if record.get("content") is not None else ""
            return EntryView(kind="system", role="system", text=f"[{subtype}] {text}" if subtype else text, **fields)
        data = found if isinstance(found := record.get("data"), dict) else {}
        attachment = found if isinstance(found := record.get("attachment"), dict) else {}
        detail = data.get("type") or attachment.get("type") or ""
        return EntryView(kind=str(kind), role=str(kind), text=f"{kind} {detail}".strip(), **fields)

    # -- sub-agents -----------------------------------------------------------------
    def subagents(self, session: Session) -> dict[int, str]:
        return links.subagents(session)

    def origin(self, session: Session) -> str | None:
        return links.origin(session)


def _side_file(session: Session) -> bool:
    return bool(session.scan_state.get("side_file"))


def _join_step(
    state: dict[str, Any], uid: str, parent: str | None, kind: object, message: dict[str, Any], shape: int
) -> str | None:
    """The parent a record hangs from in the tree. Claude Code writes one
    response as one line per block (same ``message.id``), each tool call's
    result as a child of the line holding that call, and progress between
    them: a step made of several branches on disk. Here a step is one chain
    in file order: a line of the same response, or a tool result, whose
    parent is in a step continues it from its newest record; anything else
    whose parent is in a step hangs from that newest record (so only two
    different continuations of a whole step make a fork)."""
    step_of = state.setdefault("step", {})  # uuid -> the response (message.id) whose step it is in
    tail = state.setdefault("tail", {})  # message.id -> uuid of the step's newest record
    mid = message.get("id") if kind == "assistant" else None
    step = step_of.get(parent) if parent is not None else None
    if step is not None:
        parent = tail[step]
        if (mid is not None and mid == step) or (kind == "user" and shape & Shape.RESULT):
            step_of[uid] = step
            tail[step] = uid
            return parent
    if isinstance(mid, str):
        step_of[uid] = mid
        tail[mid] = uid
    return parent


def _reminder_form(session: Session, entries: Sequence[int], above: int = -1) -> tuple[bool, bool]:
    """(system turns, wrapped) for the model Claude Code resumes with
    (``resume.system_turns``, ``resume.wraps_system_turns``): the one asked
    for (``session.resume_model``), else the model of the last response among
    ``entries``, else (``above``: an entry) of the last one on the path above
    it, as ``resume_model_of`` finds it."""
    model = session.resume_model
    if not model:
        tree = session.tree

        def responses() -> Iterator[int]:
            yield from reversed(entries)
            if above >= 0:
                yield from path_up(session, tree.parent[above])

        for entry in responses():
            if tree.shape[entry] & Shape.SUMMARY:
                break  # (the context starts after a compaction)
            if tree.shape[entry] & Shape.ROLE_MASK != Shape.ASSISTANT:
                continue
            found = _message(session.record(entry)).get("model")
            if isinstance(found, str) and not found.startswith("<"):
                model = found
                break
    return system_turns(model), wraps_system_turns(model)


def _sent_aside(session: Session, entry: int) -> bool:
    """Whether the record beside the messages at ``entry`` is one the model
    sees: an attachment Claude Code sends as a reminder (the tokens left
    after a tool result, …); a branch ending in one ends there."""
    if session.tree.shape[entry] != Shape.OTHER | Shape.QUIET:
        return False
    record = session.record(entry)
    return record.get("type") == "attachment" and render(record.get("attachment")) is not None


def _tokens(usage: object) -> dict[str, Any] | None:
    """Usage as recorded, with ``input_tokens`` counting cached input too
    (Claude reports the uncached part alone, often a handful)."""
    if not isinstance(usage, dict):
        return None
    out = dict(usage)
    out["input_tokens"] = sum(v for k in _USAGE_IN if isinstance(v := usage.get(k), int))
    return out


FORMAT = ClaudeFormat()
