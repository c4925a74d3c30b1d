"""Providers answer "what values does the evidence give for these fields?" in one vocabulary."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from webapp.enrichment.vocabulary import Proposal


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    web_searches: int = 0
    cost_usd: float = 0.0


@dataclass
class ProviderAnswer:
    proposal: Proposal
    usage: Usage = field(default_factory=Usage)


class ProviderUnavailable(RuntimeError):
    """The configured provider cannot be used here; the message says why and what to set."""


class CultureProvider(Protocol):
    name: str
    model: str | None

    def propose_culture(self, culture: Mapping[str, Any], fields: Sequence[str]) -> ProviderAnswer:
        """Suggest values for the given fields of a culture, each with its evidence."""
        ...


def culture_provider(provider_name: str) -> CultureProvider:
    """The provider FURROW_PROVIDER names."""
    if provider_name == "offline":
        from webapp.enrichment.providers.offline import OfflineProvider

        return OfflineProvider()
    if provider_name == "openai":
        from flask import current_app

        from webapp.enrichment.providers.openai_provider import OpenAIProvider

        return OpenAIProvider(current_app.config["FURROW"])
    raise ProviderUnavailable(f"There is no provider called {provider_name!r}.")
