"""Prices and context windows from a maintained table (genai-prices), loaded
the first time they are asked for (its data is large). A response is priced
with its own model and provider, at its own time (prices change; long
prompts cost more per token with some models)."""

from __future__ import annotations

from datetime import datetime
from functools import cache

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
    if not response.model:
        return None
    try:
        from genai_prices import Usage, calc_price
    except ImportError:  # pragma: no cover - a dependency
        return None
    # (the table counts the cache inside its input total; an hour's cache writes cost more than 5 minutes')
    hour = response.cache_write_1h
    usage = Usage(
        input_tokens=response.context,
        cache_read_tokens=response.cache_read,
        cache_write_tokens=response.cache_write,
        cache_write_1h_tokens=hour or None,
        cache_write_5m_tokens=response.cache_write - hour if hour else None,
        output_tokens=response.output,
    )
    when = parse_time(response.time)
    moment = datetime.fromtimestamp(when).astimezone() if when is not None else None
    for provider in _providers(response, format_name):
        try:
            found = calc_price(usage, response.model, provider_id=provider, genai_request_timestamp=moment)
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


def _providers(response: Response, format_name: str) -> list[str | None]:
    named = provider_for(response.provider, format_name)
    return [named, None] if named else [None]


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
