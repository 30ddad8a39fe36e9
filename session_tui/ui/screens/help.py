"""The help screen: every key and what the marks mean."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

from ..keys import help_rows

HELP_TEMPLATE = """\
# session-tui

## Moving
| key | |
|---|---|
| `↑` `↓` / `k` `j` | previous / next row |
| `g` `G` / Home End | first / last row |
| PgUp PgDn | a page up / down |
| Enter / Space | fold or unfold a branch (on a fork: all its branches) |
| Tab | switch between the tree and the detail pane |
| `ctrl+p` | command palette: every action, jump to an entry, themes |
{moving}

## The picker (`session-tui DIR...`)
| key | |
|---|---|
| type, or `/` | filter by title or path (fuzzy over titles); every letter, `q` too, goes to the filter; Esc clears it |
| `↑` `↓` PgUp PgDn, Enter | move; open the session (Esc in it comes back) |
| `ctrl+s` | sort by last activity, size, problems |
| `ctrl+f` | search file contents (Esc stops, keeping what was found; Esc again lists every file) |
| `ctrl+q` | quit (Esc with nothing to clear does not: a stray Esc never ends the app) |
| `● live` / `≈1.2k` / `⤷` | written in the last 5 s / entries estimated from head and tail / a sub-agent transcript |

## Looking
| key | |
|---|---|
{looking}

## Repairing (each shows its plan first; `u` undoes the last one)
| key | |
|---|---|
{repairing}
| `?` | this help · `q` quit (in the picker: `ctrl+q`) |

## Marks
| mark | |
|---|---|
| `●` / `○` | on / off the active branch |
| `⋔` | a fork: the entry has several children |
| `▸` / `▾` | an alternative branch, folded / unfolded |
| `◆` | a summary (compaction) node, with the tokens it replaced |
| `→ name(args)` / `← name:` | a tool call / a tool result |
| `┆` | the same model response as the row above (Claude Code records one response over several lines) |
| `⤷ sub-agent` | a call that spawned a sub-agent; `s` opens its transcript |
| grey rows on the trunk | turns the model no longer sees (Codex: undone by a rollback) |
| `⚠` | a problem: dangling call, bad line, missing parent, cycle, … |
| `… pending` | the last line is incomplete (a torn write, or the agent is writing it) |
"""

HELP = HELP_TEMPLATE.format(moving=help_rows("Moving"), looking=help_rows("Looking"), repairing=help_rows("Repairing"))


class HelpScreen(ModalScreen):
    BINDINGS = [Binding("escape,q,question_mark", "app.pop_screen", "Close")]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 90; max-width: 95%; height: 90%; background: $surface;
                                  border: thick $primary; padding: 0 1; }
    """

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Markdown(HELP)
