"""The AI client every workspace asks through: structured answers, usage and price, the provider
errors, and the one switch between a workspace's offline and openai implementations."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from webapp.problems import Unavailable

T = TypeVar("T")

# What FURROW_PROVIDER may name; every workspace has one implementation of each.
PROVIDERS = ("offline", "openai")


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    web_searches: int = 0
    cost_usd: float = 0.0
    # Answers of 429 (too many requests): the SDK waited as the server's Retry-After said,
    # then asked again.
    rate_limited: int = 0


class ProviderUnavailable(Unavailable):
    """The configured provider cannot be used here; the message says why and what to set."""

    code = "provider_unavailable"


class ProviderError(RuntimeError):
    """The provider gave no usable answer; the message says why (a per-item error). It carries
    what the failed calls used, which is paid for all the same."""

    def __init__(self, message: str, usage: Usage) -> None:
        super().__init__(message)
        self.usage = usage


def pick(name: str, offline: Callable[[], T], openai: Callable[[], T]) -> T:
    """The workspace's implementation a provider name picks, built only when picked (the openai
    one loads the SDK)."""
    if name == "offline":
        return offline()
    if name == "openai":
        return openai()
    raise ProviderUnavailable(f"There is no provider called {name!r} ({' or '.join(PROVIDERS)}).")
