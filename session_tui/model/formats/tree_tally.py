"""The native format's tally, kept as its lines are scanned: tokens in and
out, the responses to price (or their counts, where none can be), and the
first and last entry times (``ScanTally``: the status line's figures
before any record is read again)."""

from __future__ import annotations

from typing import Any

from ..entries.tokens import response_counts, usage_counts
from ..reading.segment import ScanTally


def tally_entry(tally: ScanTally, record: dict[str, Any], message_entry: int | None = None) -> None:
    """What an entry read the slow way adds to the scan's tally (the hot loop
    inlines this); ``message_entry``: its position in the segment, if it is a
    message (only a message records a response)."""
    message = record.get("message")
    if message.__class__ is dict and (usage := message.get("usage")).__class__ is dict:
        if message_entry is not None:
            tally_usage(tally, message, usage, message_entry)
        else:
            tokens_in, tokens_out = usage_counts(usage)
            tally.input_tokens += tokens_in
            tally.output_tokens += tokens_out
    when = record.get("createdAt")
    if when.__class__ is str and when[-1:] == "Z":
        if tally.first is None or when < tally.first:
            tally.first = when
        if tally.last is None or when > tally.last:
            tally.last = when
    elif when is not None:
        tally.exact = False


def tally_usage(tally: ScanTally, message: dict[str, Any], usage: dict[str, Any], entry: int) -> None:
    """The usage of the message of ``entry`` (its position in the segment)
    added to the tally: its tokens, and the response it records as
    ``Format.entry_response`` finds it: summed where no price can be found
    for it (no model, no recorded cost), else its entry listed to be priced."""
    given_in, given_out = usage.get("prompt_tokens"), usage.get("completion_tokens")
    if len(usage) == 2 and given_in.__class__ is int and given_out.__class__ is int and given_in >= 0 <= given_out:
        tokens_in, tokens_out = given_in, given_out  # the common case: no cache, nothing else
        counts: tuple[int, int, int, int] = (given_in, given_out, 0, 0)
    else:
        tokens_in, tokens_out = usage_counts(usage)
        counts = response_counts(usage)
    tally.input_tokens += tokens_in
    tally.output_tokens += tokens_out
    if not (counts[0] or counts[1] or counts[2] or counts[3]):
        return
    model, cost = message.get("model"), usage.get("cost_usd")
    if (model.__class__ is str and model) or (
        cost is not None and isinstance(cost, (int, float)) and not isinstance(cost, bool)
    ):
        tally.priced.append(entry)
        return
    tally.unpriced += 1
    kept = tally.unpriced_counts
    kept[0] += counts[0]
    kept[1] += counts[1]
    kept[2] += counts[2]
    kept[3] += counts[3]
