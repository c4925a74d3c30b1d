"""Which gateway a provider name means: offline is the reference library, openai the model."""

from __future__ import annotations

from webapp.ai import ProviderUnavailable
from webapp.config import Settings
from webapp.fertilizer.interactor import FertilizerRecommendGateway


def gateway_for(provider: str, settings: Settings | None = None) -> FertilizerRecommendGateway:
    if provider in ("offline", "reference"):
        from webapp.fertilizer.gateways.reference import ReferenceGateway

        return ReferenceGateway()
    if provider == "openai":
        if settings is None or not (settings.openai_api_key or settings.openai_base_url):
            raise ProviderUnavailable(
                "The openai provider needs OPENAI_API_KEY or OPENAI_BASE_URL."
            )
        from webapp.fertilizer.gateways.llm import OpenAIGateway

        return OpenAIGateway(settings)
    raise ProviderUnavailable(f"There is no provider called {provider!r} (offline or openai).")
