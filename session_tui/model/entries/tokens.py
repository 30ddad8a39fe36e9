"""The tokens an entry records, and a sum of them that counts each response once."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..words import human_tokens

IN_KEYS = ("prompt_tokens", "input_tokens")
OUT_KEYS = ("completion_tokens", "output_tokens")


def int_or_none(value: object) -> int | None:
    """``value`` if it is an integer (a bool is none), else None: a count as a record may hold it."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def first_count(usage: Mapping[str, object], keys: Iterable[str]) -> int:
    """The first of ``keys`` that ``usage`` holds a count under (a negative
    or non-integer count is none); 0 without one."""
    for key in keys:
        value = usage.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
    return 0


def usage_counts(usage: Mapping[str, object]) -> tuple[int, int]:
    """(input, output) of a usage record."""
    return first_count(usage, IN_KEYS), first_count(usage, OUT_KEYS)


@dataclass
class TokenCounts:
    """Tokens summed over responses, each response once: ``input`` is the
    uncached input only (as a price table counts it)."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0

    def add(self, other: TokenCounts | Response) -> None:
        self.input += other.input
        self.output += other.output
        self.cache_read += other.cache_read
        self.cache_write += other.cache_write

    @property
    def sent(self) -> int:
        """Every input token the model read: uncached, cache read and cache write."""
        return self.input + self.cache_read + self.cache_write


def counts_of(responses: Iterable[Response]) -> TokenCounts:
    total = TokenCounts()
    for response in responses:
        total.add(response)
    return total


def tokens_text(counts: TokenCounts, exact: bool = False) -> str:
    """A session's (or a branch's) tokens said one way on every screen and
    export: ``in 2.5k · out 40.4k · cache read 16.2M · cache write 276.8k``
    (``exact``: ``in 2,481 · …``); a cache part only where there is one;
    empty when it counts nothing."""
    if not (counts.input or counts.output or counts.cache_read or counts.cache_write):
        return ""
    say = (lambda n: f"{n:,}") if exact else human_tokens
    parts = [f"in {say(counts.input)}", f"out {say(counts.output)}"]
    for count, words in ((counts.cache_read, "cache read"), (counts.cache_write, "cache write")):
        if count:
            parts.append(f"{words} {say(count)}")
    return " · ".join(parts)


CACHE_READ_KEYS = ("cache_read_input_tokens", "cached_input_tokens", "cached_tokens")
CACHE_WRITE_KEYS = ("cache_creation_input_tokens",)


@dataclass(frozen=True)
class Response:
    """One model response and what it used: ``input`` is the uncached input
    only; ``context`` (input + cache read + cache write) is how full the
    context was when it was sent."""

    entry: int  # the entry that records it (its last line when it is written over several)
    model: str | None
    provider: str | None
    input: int
    output: int
    cache_read: int
    cache_write: int
    time: str | None = None
    recorded_cost: float | None = None  # the client's own figure for it (pi)
    cache_write_1h: int = 0  # of ``cache_write``, written for an hour (Claude: dearer than the 5-minute kind)

    @property
    def context(self) -> int:
        return self.input + self.cache_read + self.cache_write


def hour_cache_writes(usage: Mapping[str, object]) -> int:
    """Cache writes kept for an hour (Claude's ``cache_creation.ephemeral_1h_input_tokens``)."""
    detail = usage.get("cache_creation")
    return first_count(detail, ("ephemeral_1h_input_tokens",)) if isinstance(detail, Mapping) else 0


def response_counts(usage: Mapping[str, object]) -> tuple[int, int, int, int]:
    """(uncached input, output, cache read, cache write) of a usage record:
    where its input count holds the cache (Claude Code's as the view keeps
    it, Codex's, OpenAI's), the cache is taken out; an ``uncached_input_tokens``
    (pi's) is used as it is."""

    cache_read = first_count(usage, CACHE_READ_KEYS)
    for nested in ("prompt_tokens_details", "input_tokens_details"):
        details = usage.get(nested)
        if not cache_read and isinstance(details, Mapping):
            cache_read = first_count(details, CACHE_READ_KEYS)
    cache_write = first_count(usage, CACHE_WRITE_KEYS)
    output = first_count(usage, OUT_KEYS)
    if isinstance(usage.get("uncached_input_tokens"), int):
        return first_count(usage, ("uncached_input_tokens",)), output, cache_read, cache_write
    return max(0, first_count(usage, IN_KEYS) - cache_read - cache_write), output, cache_read, cache_write
