"""Culture providers answer "what values does the evidence give for these fields?" as a Proposal."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from webapp.ai import Usage, pick
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

    def offline() -> CultureProvider:
        from webapp.cultures.providers.offline import OfflineProvider

        return OfflineProvider()

    def openai() -> CultureProvider:
        from flask import current_app

        from webapp.cultures.providers.openai_provider import OpenAIProvider

        return OpenAIProvider(current_app.config["FURROW"])

    return pick(provider_name, offline, openai)
