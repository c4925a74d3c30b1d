"""One structured question to an OpenAI-compatible server: the Responses API with web search
and a strict JSON schema, or Chat Completions with a JSON schema for local servers. Counts
usage and prices it; the callers own prompts, schemas and validation."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import openai

from webapp.ai import Usage
from webapp.config import Settings
from webapp.review.vocabulary import Evidence, SourceKind

# Default prices (USD); FURROW_OPENAI_PRICES overrides or adds models.
DEFAULT_PRICES = {
    "gpt-5-mini": {"input_per_million": 0.25, "output_per_million": 2.0, "per_web_search": 0.01},
    "gpt-5": {"input_per_million": 1.25, "output_per_million": 10.0, "per_web_search": 0.01},
}
CHAT_TEMPERATURE = 0.2


def is_reasoning_model(model: str) -> bool:
    """Reasoning models refuse a temperature."""
    return model.startswith(("gpt-5", "o1", "o3", "o4"))


class StructuredClient:
    def __init__(self, settings: Settings, client: openai.OpenAI | None = None) -> None:
        self.settings = settings
        self.model = settings.openai_model
        self.api = settings.openai_api
        self.client = client or openai.OpenAI(
            api_key=settings.openai_api_key or "not-needed-by-this-server",
            base_url=settings.openai_base_url,
            timeout=settings.openai_timeout,
            max_retries=3,  # the SDK retries 429, 5xx and timeouts with exponential backoff
        )

    @property
    def searches_the_web(self) -> bool:
        return self.api != "chat"

    def price(self) -> Mapping[str, float]:
        return {**DEFAULT_PRICES, **self.settings.openai_prices}.get(self.model, {})

    def cost(self, usage: Usage) -> float:
        price = self.price()
        return round(
            usage.input_tokens / 1e6 * price.get("input_per_million", 0)
            + usage.output_tokens / 1e6 * price.get("output_per_million", 0)
            + usage.web_searches * price.get("per_web_search", 0),
            6,
        )

    def ask(
        self, instructions: str, prompt: str, schema: dict[str, Any], name: str, usage: Usage
    ) -> tuple[str, list[Evidence]]:
        """The answer's text and the URLs the server cited; raises openai.OpenAIError."""
        if self.api == "chat":
            return self._chat(instructions, prompt, schema, name, usage), []
        return self._responses(instructions, prompt, schema, name, usage)

    def temperature_args(self) -> dict[str, float]:
        return {} if is_reasoning_model(self.model) else {"temperature": CHAT_TEMPERATURE}

    def _responses(self, instructions, prompt, schema, name, usage) -> tuple[str, list[Evidence]]:
        response = self.client.responses.create(
            model=self.model,
            instructions=instructions,
            input=prompt,
            tools=[{"type": "web_search"}],
            text={
                "format": {"type": "json_schema", "name": name, "schema": schema, "strict": True}
            },
            **self.temperature_args(),
        )
        if response.usage:
            usage.input_tokens += response.usage.input_tokens
            usage.output_tokens += response.usage.output_tokens
        citations: list[Evidence] = []
        now = datetime.now(UTC).isoformat()
        for item in response.output:
            if item.type == "web_search_call":
                usage.web_searches += 1
            for part in getattr(item, "content", None) or []:
                for note in getattr(part, "annotations", None) or []:
                    if note.type == "url_citation":
                        citations.append(
                            Evidence(note.url, note.title or note.url, "", SourceKind.web, now)
                        )
        return response.output_text, citations

    def _chat(self, instructions, prompt, schema, name, usage) -> str:
        completion = self.client.chat.completions.create(
            model=self.model,
            messages=[
                {"role": "system", "content": instructions},
                {"role": "user", "content": prompt},
            ],
            response_format={
                "type": "json_schema",
                "json_schema": {"name": name, "schema": schema, "strict": True},
            },
            **self.temperature_args(),
        )
        if completion.usage:
            usage.input_tokens += completion.usage.prompt_tokens
            usage.output_tokens += completion.usage.completion_tokens
        return completion.choices[0].message.content or ""
