"""Prices and context windows from a maintained table (genai-prices), loaded
the first time they are asked for (its data is large). A response is priced
with its own model and provider, at its own time (prices change; long
prompts cost more per token with some models)."""

from __future__ import annotations

from datetime import datetime
from functools import cache, lru_cache

from ..entries.tokens import Response
from ..entries.view import parse_time

#: a client's own provider names the table knows by another
PROVIDER_NAMES = {"openai-codex": "openai", "google-gemini-cli": "google", "amazon-bedrock": "aws"}


def priced_by() -> str:
    """The table's name and version, as the JSON says it."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"genai-prices {version('genai-prices')}"
    except PackageNotFoundError:  # pragma: no cover - a dependency
        return "genai-prices"


def response_cost(response: Response, format_name: str) -> float | None:
    """What ``response`` cost in USD, or None when the table does not know
    its model (never a guess)."""
    if not isinstance(response.model, str) or not response.model:
        return None
    return _cost(
        response.model,
        provider_for(response.provider, format_name),
        response.context,
        response.cache_read,
        response.cache_write,
        response.cache_write_1h,
        response.output,
        parse_time(response.time),
    )


@lru_cache(maxsize=8192)
def _cost(
    model: str,
    provider: str | None,
    context: int,
    cache_read: int,
    cache_write: int,
    hour: int,
    output: int,
    when: float | None,
) -> float | None:
    """The table's price of a response of these figures (kept: the table's own work took ~0.3 ms a
    response, and a session is priced again on each ``check``, usage screen and MCP call; what decides the
    price is all in the key)."""
    try:
        from genai_prices import Usage, calc_price
    except ImportError:  # pragma: no cover - a dependency
        return None
    # (the table counts the cache inside its input total; an hour's cache writes cost more than 5 minutes')
    usage = Usage(
        input_tokens=context,
        cache_read_tokens=cache_read,
        cache_write_tokens=cache_write,
        cache_write_1h_tokens=hour or None,
        cache_write_5m_tokens=cache_write - hour if hour else None,
        output_tokens=output,
    )
    moment = datetime.fromtimestamp(when).astimezone() if when is not None else None
    for named in [provider, None] if provider else [None]:
        try:
            found = calc_price(usage, model, provider_id=named, genai_request_timestamp=moment)
        except LookupError:
            continue
        return float(found.total_price)
    return None


def provider_for(recorded: str | None, format_name: str) -> str | None:
    """The table's provider of a response: the one the file records (by the
    table's name for it), else its format's."""
    named = PROVIDER_NAMES.get(recorded or "", recorded)
    if named:
        return named
    from ..formats import FORMATS  # (its client's provider, where the file names none)

    fmt = FORMATS.get(format_name)
    return fmt.client.provider if fmt is not None and fmt.client is not None else None


@cache
def context_window(model: str, provider: str | None = None) -> int | None:
    """Tokens of ``model``'s context window, if the table knows it."""
    try:
        from genai_prices import data
    except ImportError:  # pragma: no cover - a dependency
        return None
    providers = [p for p in data.providers if provider is None or p.id == provider] or list(data.providers)
    for found in providers:
        info = found.find_model(model)
        window = info.context_window if info is not None else None
        if window:
            return int(window)
    return None
