"""One OpenAI-compatible server, asked for structured answers: the Responses API with web search,
or Chat Completions for local servers, both with the strict JSON schema of a pydantic model.
Counts usage and prices it; the callers own prompts, schema models and their checks."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
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
# How many rounds of function calls one answer may take before the model must answer.
TOOL_ROUNDS = 3


@dataclass(frozen=True)
class FunctionTool:
    """A function the model may call while it works out its answer: run takes the model's
    arguments (an untrusted dict: check them) and returns the text the model reads back."""

    name: str
    description: str
    parameters: dict[str, Any]
    run: Callable[[dict[str, Any]], str]

    def call(self, arguments: str) -> str:
        try:
            args = json.loads(arguments or "{}")
        except json.JSONDecodeError:
            return "The arguments are not JSON; call again with a JSON object."
        if not isinstance(args, dict):
            return "The arguments must be a JSON object."
        return self.run(args)

    def chat_spec(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }

    def responses_spec(self) -> dict[str, Any]:
        return {
            "type": "function",
            "name": self.name,
            "description": self.description,
            "parameters": self.parameters,
        }


def run_tool(tools: Sequence[FunctionTool], name: str, arguments: str) -> str:
    tool = next((t for t in tools if t.name == name), None)
    return tool.call(arguments) if tool else f"There is no tool called {name!r}."


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


@lru_cache(maxsize=4)
def openai_client(api_key: str, base_url: str | None, timeout: float) -> openai.OpenAI:
    """The process's SDK client for one server, made once: its set-up (the SDK's resources,
    the HTTP pool and TLS context) is paid by the first caller, not by every run."""
    client = openai.OpenAI(
        api_key=api_key,
        base_url=base_url,
        timeout=timeout,
        max_retries=3,  # the SDK retries 429, 5xx and timeouts with exponential backoff
    )
    # The resources load their modules on first use: load them now, while nothing waits.
    client.responses, client.chat.completions  # noqa: B018
    return client


def warm(settings: Settings) -> None:
    """Make the client before the first job (a worker's start), so the work horses the worker
    forks inherit it and no job's first calls pay its set-up."""
    if settings.openai_api_key or settings.openai_base_url:
        shared_client(settings)


def shared_client(settings: Settings) -> openai.OpenAI:
    return openai_client(
        settings.openai_api_key or "not-needed-by-this-server",
        settings.openai_base_url,
        settings.openai_timeout,
    )


class StructuredClient:
    def __init__(self, settings: Settings, client: openai.OpenAI | None = None) -> None:
        if client is None and not (settings.openai_api_key or settings.openai_base_url):
            raise ProviderUnavailable(
                "The openai provider needs OPENAI_API_KEY or OPENAI_BASE_URL."
            )
        self.settings = settings
        self.model = settings.openai_model
        self.api = settings.openai_api
        self.client = client or shared_client(settings)

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
        tools: Sequence[FunctionTool] = (),
        web_search: bool = True,
    ) -> Structured[M]:
        """Ask for an answer in the model's schema. One that does not fit it, or that check
        (given the answer and its citations) finds problems with, is asked again, retries
        times, with the problems; what is still wrong after that is the result's problems.
        The model may call tools, at most TOOL_ROUNDS rounds per answer, and search the web
        (Responses API) unless web_search is False: an answer from given text only. Every
        call counts in usage, priced. Raises ProviderError when the server fails."""
        result: Structured[M] = Structured(None)
        for _attempt in range(retries + 1):
            asked = prompt
            if result.problems:
                asked += "\nYour previous answer was rejected: " + "; ".join(result.problems)
            try:
                text, citations = self._ask(instructions, asked, model, usage, tools, web_search)
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
        self,
        instructions: str,
        prompt: str,
        model: type[BaseModel],
        usage: Usage,
        tools: Sequence[FunctionTool] = (),
        web_search: bool = True,
    ) -> tuple[str, list[Evidence]]:
        """The answer's text and the URLs the server cited; raises openai.OpenAIError.

        Not `responses.parse`: it validates inside the SDK, so an answer that does not fit
        would raise before its usage and citations could be counted."""
        schema = {"name": schema_name(model), "schema": strict_schema(model), "strict": True}
        if self.api == "chat":
            return self._chat(instructions, prompt, schema, usage, tools), []
        asked: str | list[Any] = prompt
        searching = [{"type": "web_search"}] if web_search else []
        for round_ in range(TOOL_ROUNDS + 1):
            # The last round offers no functions: the model answers with what it has.
            offered = [t.responses_spec() for t in tools] if round_ < TOOL_ROUNDS else []
            response = self.client.responses.create(
                model=self.model,
                instructions=instructions,
                input=asked,
                tools=[*searching, *offered],
                text={"format": {"type": "json_schema", **schema}},
                **self.temperature_args(),
            )
            count_tokens(usage, response.usage)
            usage.web_searches += sum(1 for i in response.output if i.type == "web_search_call")
            calls = [i for i in response.output if i.type == "function_call"]
            if not calls:
                break
            if isinstance(asked, str):
                asked = [{"role": "user", "content": prompt}]
            asked += [item.model_dump(exclude_none=True) for item in response.output]
            asked += [
                {
                    "type": "function_call_output",
                    "call_id": call.call_id,
                    "output": run_tool(tools, call.name, call.arguments),
                }
                for call in calls
            ]
        return response.output_text, citations_of(response)

    def _chat(
        self,
        instructions: str,
        prompt: str,
        schema: dict[str, Any],
        usage: Usage,
        tools: Sequence[FunctionTool],
    ) -> str:
        messages: list[Any] = [
            {"role": "system", "content": instructions},
            {"role": "user", "content": prompt},
        ]
        for round_ in range(TOOL_ROUNDS + 1):
            offered = [t.chat_spec() for t in tools] if round_ < TOOL_ROUNDS else []
            completion = self.client.chat.completions.create(
                model=self.model,
                messages=messages,
                response_format={"type": "json_schema", "json_schema": schema},
                **({"tools": offered} if offered else {}),
                **self.temperature_args(),
            )
            count_tokens(usage, completion.usage)
            message = completion.choices[0].message
            calls = [c for c in message.tool_calls or [] if c.type == "function"]
            if not calls:
                break
            messages.append(message.model_dump(exclude_none=True))
            messages += [
                {
                    "role": "tool",
                    "tool_call_id": call.id,
                    "content": run_tool(tools, call.function.name, call.function.arguments),
                }
                for call in calls
            ]
        return message.content or ""
