"""The session view's keys, defined once: they make its bindings, the
command palette's entries and the help screen's tables (docs/guide/terminal-ui.md's key
table is checked against them by a test)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from textual.binding import Binding, BindingType


@dataclass(frozen=True)
class Key:
    key: str  # Textual's key name
    shown: str  # the key as the help and the guide write it
    action: str  # the session view's action
    label: str  # the footer's word
    help: str  # what it does
    section: str  # the help screen's table: "Moving", "Looking" or "Repairing"
    footer: bool = False
    palette: str | None = None  # the palette's title (None: not in the palette)


SESSION_KEYS = (
    Key("l", "l", "go_leaf", "Active leaf", "go to the active leaf", "Moving", palette="Go to the active leaf"),
    Key(
        "e",
        "e",
        "next_problem",
        "Problem",
        "next problem: call without a result, bad line, torn line…",
        "Moving",
        True,
        "Next problem",
    ),
    Key("E", "E", "previous_problem", "Prev problem", "previous problem", "Moving", palette="Previous problem"),
    Key(
        "right_square_bracket",
        "]",
        "next_failed",
        "Next failed",
        "next failed tool result (✗: an error, a non-zero exit)",
        "Moving",
        palette="Next failed tool result",
    ),
    Key(
        "left_square_bracket",
        "[",
        "previous_failed",
        "Prev failed",
        "previous failed tool result",
        "Moving",
        palette="Previous failed tool result",
    ),
    Key("slash", "/", "search", "Search", "search entry text and ids (then `n` / `N`)", "Moving", True, "Search"),
    Key("n", "n", "search_next", "Next match", "next match", "Moving"),
    Key("N", "N", "search_previous", "Prev match", "previous match", "Moving"),
    Key(
        "f",
        "f",
        "follow",
        "Follow",
        "follow the file: keep the newest entry in sight",
        "Moving",
        palette="Toggle follow",
    ),
    Key("p", "p", "problems", "Problems", "the list of problems; Enter jumps to one", "Looking", True, "List problems"),
    Key(
        "c",
        "c",
        "context",
        "Context",
        "the context the client sends on resume from the selected entry (its own additions marked `+`)",
        "Looking",
        True,
        "Show context at the selected entry",
    ),
    Key(
        "h",
        "h",
        "toggle_quiet",
        "Quiet rows",
        "show or hide records the model never sees (progress, turn durations); `+N quiet` marks where",
        "Looking",
        palette="Show or hide quiet records",
    ),
    Key("r", "r", "raw", "Raw", "raw JSON of the selected entry / readable view", "Looking", palette="Toggle raw JSON"),
    Key(
        "x",
        "x",
        "partner",
        "Call↔result",
        "jump from a tool call to its result, and back",
        "Looking",
        palette="Jump between call and result",
    ),
    Key("o", "o", "open_full", "Full output", "read all of a long output", "Looking", palette="Read the whole output"),
    Key(
        "m",
        "m",
        "metadata",
        "Metadata",
        "the records that are not entries: titles, snapshots, headers",
        "Looking",
        palette="List metadata records",
    ),
    Key(
        "s",
        "s",
        "open_subagent",
        "Sub-agent",
        "open the sub-agent transcript a call spawned (Claude Code `Task`/`Agent`); Esc comes back",
        "Looking",
        palette="Open the sub-agent transcript",
    ),
    Key(
        "U",
        "U",
        "usage",
        "Usage",
        "usage: the context per response along the active branch (the window, compactions and forks marked, "
        "the cost so far), the session's cost with its sub-agents, and per tool its calls, errors, time, output",
        "Looking",
        palette="Usage: context over time, cost, tools",
    ),
    Key(
        "b",
        "b",
        "branches",
        "Branches",
        "the branches: every leaf, its fork, length, tokens, ending; type to filter, Enter goes there",
        "Looking",
        True,
        "List the branches",
    ),
    Key(
        "d",
        "d",
        "compare",
        "Compare",
        "on a fork point (⋔): two branches side by side (space marks two in `b`); Tab, Enter, `a`",
        "Looking",
        palette="Compare the branches of this fork point",
    ),
    Key(
        "S",
        "S",
        "secrets",
        "Secrets",
        "the secrets in the file (API keys, tokens, private keys, passwords), masked; Enter jumps to one",
        "Looking",
        palette="Secrets",
    ),
    Key(
        "M",
        "M",
        "mask_secrets",
        "Mask secrets",
        "mask secrets in the detail pane, or show them (always masked with `--redact`)",
        "Looking",
        palette="Mask or show secrets in the detail pane",
    ),
    Key(
        "q",
        "q",
        "back",
        "Back",
        "back to the previous view; in the first one, quit (ctrl+q always quits)",
        "Looking",
        True,
    ),
    Key(
        "escape",
        "Esc",
        "escape",
        "Stop indexing / back",
        "stop indexing a big file · back to the previous view",
        "Looking",
    ),
    Key(
        "a",
        "a",
        "make_leaf",
        "Make leaf",
        "make the selected entry the active leaf (tree: a pointer; pi: a `custom` entry); others offer a fork",
        "Repairing",
        palette="Make the selected entry the active leaf",
    ),
    Key(
        "F",
        "F",
        "fork",
        "Fork",
        'fork: root → selected entry into a new file ("Fork and open" opens it)',
        "Repairing",
        palette="Fork at the selected entry",
    ),
    Key(
        "t",
        "t",
        "trim",
        "Repair",
        "repair: drop bad lines, close dangling calls (inserted, or in a fork), cut back, drop a torn line",
        "Repairing",
        True,
        "Repair",
    ),
    Key("u", "u", "undo", "Undo edit", "undo the last edit made here", "Repairing", palette="Undo the last edit"),
    Key(
        "R",
        "R",
        "resume",
        "Resume",
        "continue at the selected entry with the session's own client (its plan first: a fork or a leaf move "
        "where needed); the view steps aside while it runs, then follows the file",
        "Repairing",
        palette="Resume here with the session's client",
    ),
    Key(
        "D",
        "D",
        "dry_run",
        "Dry-run resume",
        "dry-run resume: your client resumes a copy against a fake API on 127.0.0.1; what it sends, whether the "
        "API accepts it, whether it agrees with the context",
        "Repairing",
        palette="Dry-run resume",
    ),
)


def bindings() -> list[BindingType]:
    """The session view's bindings, each with its action as its id: the
    config file's ``[keys]`` rebinds it (``App.set_keymap``)."""
    return [Binding(k.key, k.action, k.label, show=k.footer, id=k.action) for k in SESSION_KEYS]


def unknown_actions(keymap: Mapping[str, str]) -> list[str]:
    """The actions of a config file's ``[keys]`` that no key of the session view has."""
    known = {k.action for k in SESSION_KEYS}
    return [action for action in keymap if action not in known]


def shown(key: Key, keymap: Mapping[str, str]) -> str:
    """The key in force for ``key``'s action, as the help writes it."""
    return keymap[key.action].replace(",", " ") if key.action in keymap else key.shown


def palette_entries() -> list[tuple[str, str, str]]:
    """(action, title, help) of the palette's session commands."""
    return [(k.action, k.palette, f"{k.help[0].upper()}{k.help[1:]} ({k.shown})") for k in SESSION_KEYS if k.palette]
