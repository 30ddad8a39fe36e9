"""The context window of a model, from a maintained table (genai-prices),
loaded the first time it is asked (its data is large)."""

from __future__ import annotations

from functools import cache

#: the provider a format's models are priced by, when the file does not say
PROVIDERS = {"claude": "anthropic", "codex": "openai"}


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
