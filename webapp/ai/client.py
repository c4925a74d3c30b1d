"""One OpenAI-compatible server, asked for structured answers: the Responses API with web search,
or Chat Completions for local servers, both with the strict JSON schema of a pydantic model.
Counts usage and prices it; the callers own prompts, schema models and their checks."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Generic

import openai
from openai.types import CompletionUsage
from pydantic import BaseModel

from webapp.ai import ProviderError, ProviderUnavailable, Usage
from webapp.ai.answers import M, read_answer, schema_name, strict_schema
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


def count_tokens(usage: Usage, reported: Any) -> None:
    """Add the tokens a response reports, in either API's names."""
    if isinstance(reported, CompletionUsage):
        usage.input_tokens += reported.prompt_tokens
        usage.output_tokens += reported.completion_tokens
    elif reported is not None:
        usage.input_tokens += reported.input_tokens
        usage.output_tokens += reported.output_tokens


def citations_of(response: Any) -> list[Evidence]:
    """The URLs a Responses answer cites (its url_citation annotations)."""
    now = datetime.now(UTC).isoformat()
    return [
        Evidence(note.url, note.title or note.url, "", SourceKind.web, now)
        for item in response.output
        for part in getattr(item, "content", None) or []
        for note in getattr(part, "annotations", None) or []
        if note.type == "url_citation"
    ]


def given_sources(snippets: list[Evidence]) -> str:
    """The prompt's list of the sources a server without web search may cite."""
    lines = [f"- {s.source_url} | {s.title} | {s.claim_summary}" for s in snippets]
    return "\nSources you may cite (cite only these):\n" + "\n".join(lines) if lines else ""


@dataclass
class Structured(Generic[M]):
    """The last answer (None when it did not fit the schema), what is still wrong with it after
    the re-asks (empty when nothing is), and the URLs the server cited for it."""

    answer: M | None
    problems: list[str] = field(default_factory=list)
    citations: list[Evidence] = field(default_factory=list)


class StructuredClient:
    def __init__(self, settings: Settings, client: openai.OpenAI | None = None) -> None:
        if client is None and not (settings.openai_api_key or settings.openai_base_url):
            raise ProviderUnavailable(
                "The openai provider needs OPENAI_API_KEY or OPENAI_BASE_URL."
            )
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

    def temperature_args(self) -> dict[str, float]:
        return {} if is_reasoning_model(self.model) else {"temperature": CHAT_TEMPERATURE}

    def ask_structured(
        self,
        model: type[M],
        instructions: str,
        prompt: str,
        usage: Usage,
        check: Callable[[M, list[Evidence]], list[str]] | None = None,
        retries: int = 1,
    ) -> Structured[M]:
        """Ask for an answer in the model's schema. One that does not fit it, or that check
        (given the answer and its citations) finds problems with, is asked again, retries
        times, with the problems; what is still wrong after that is the result's problems.
        Every call counts in usage, priced. Raises ProviderError when the server fails."""
        result: Structured[M] = Structured(None)
        for _attempt in range(retries + 1):
            asked = prompt
            if result.problems:
                asked += "\nYour previous answer was rejected: " + "; ".join(result.problems)
            try:
                text, citations = self._ask(instructions, asked, model, usage)
            except openai.OpenAIError as exc:
                usage.cost_usd = self.cost(usage)
                raise ProviderError(f"The provider failed: {exc}", usage) from exc
            answer, problems = read_answer(model, text)
            if answer is not None and check is not None:
                problems = check(answer, citations)
            result = Structured(answer, problems, citations)
            if not problems:
                break
        usage.cost_usd = self.cost(usage)
        return result

    def _ask(
        self, instructions: str, prompt: str, model: type[BaseModel], usage: Usage
    ) -> tuple[str, list[Evidence]]:
        """The answer's text and the URLs the server cited; raises openai.OpenAIError.

        Not `responses.parse`: it validates inside the SDK, so an answer that does not fit
        would raise before its usage and citations could be counted."""
        schema = {"name": schema_name(model), "schema": strict_schema(model), "strict": True}
        if self.api == "chat":
            completion = self.client.chat.completions.create(
                model=self.model,
                messages=[
                    {"role": "system", "content": instructions},
                    {"role": "user", "content": prompt},
                ],
                response_format={"type": "json_schema", "json_schema": schema},
                **self.temperature_args(),
            )
            count_tokens(usage, completion.usage)
            return completion.choices[0].message.content or "", []
        response = self.client.responses.create(
            model=self.model,
            instructions=instructions,
            input=prompt,
            tools=[{"type": "web_search"}],
            text={"format": {"type": "json_schema", **schema}},
            **self.temperature_args(),
        )
        count_tokens(usage, response.usage)
        usage.web_searches += sum(1 for item in response.output if item.type == "web_search_call")
        return response.output_text, citations_of(response)
