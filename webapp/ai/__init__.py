"""The AI client every workspace asks through: structured answers, usage and price, errors."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    web_searches: int = 0
    cost_usd: float = 0.0


class ProviderUnavailable(RuntimeError):
    """The configured provider cannot be used here; the message says why and what to set."""
