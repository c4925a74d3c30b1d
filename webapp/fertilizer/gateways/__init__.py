"""The gateways a plan is asked of: offline is the reference library (`reference`), openai the
model (`llm`)."""

from __future__ import annotations

from webapp.ai import pick
from webapp.config import Settings
from webapp.fertilizer.interactor import FertilizerRecommendGateway


def gateway_for(provider: str, settings: Settings | None = None) -> FertilizerRecommendGateway:
    """The gateway FURROW_PROVIDER (or a request) names; the openai one needs the settings (the
    CLI loads none for the offline one)."""

    def offline() -> FertilizerRecommendGateway:
        from webapp.fertilizer.gateways.reference import ReferenceGateway

        return ReferenceGateway()

    def openai() -> FertilizerRecommendGateway:
        from webapp.fertilizer.gateways.llm import OpenAIGateway

        assert settings is not None, "the openai gateway is built with the settings"
        return OpenAIGateway(settings)

    return pick(provider, offline, openai)
