"""Culture providers answer "what values does the evidence give for these fields?" as a Proposal."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from webapp.ai import ProviderUnavailable, Usage
from webapp.review.vocabulary import Proposal


@dataclass
class ProviderAnswer:
    proposal: Proposal
    usage: Usage = field(default_factory=Usage)


class CultureProvider(Protocol):
    name: str
    model: str | None

    def propose_culture(self, culture: Mapping[str, Any], fields: Sequence[str]) -> ProviderAnswer:
        """Suggest values for the given fields of a culture, each with its evidence."""
        ...


def culture_provider(provider_name: str) -> CultureProvider:
    """The provider FURROW_PROVIDER names."""
    if provider_name == "offline":
        from webapp.cultures.providers.offline import OfflineProvider

        return OfflineProvider()
    if provider_name == "openai":
        from flask import current_app

        from webapp.cultures.providers.openai_provider import OpenAIProvider

        return OpenAIProvider(current_app.config["FURROW"])
    raise ProviderUnavailable(f"There is no provider called {provider_name!r}.")
