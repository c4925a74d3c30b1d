"""One OpenAI-compatible server and the one loop every workspace asks it through: the Responses
API with web search, or Chat Completions for local servers (FURROW_OPENAI_API); the model calls
the workspace's function tools and answers in text or in the strict JSON schema of a pydantic
model. Counts usage and prices it; the callers own prompts, tools, schema models and their
checks. The SDK is imported when a model is first called (or a worker warms the client), never
with the app."""

from __future__ import annotations

import contextlib
import ipaddress
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any, Generic
from urllib.parse import urlsplit

from webapp.ai import ProviderError, ProviderUnavailable, Usage
from webapp.ai.answers import M, bounded_arrays, read_answer, schema_name, strict_schema
from webapp.config import Settings
from webapp.review.vocabulary import Evidence, SourceKind

if TYPE_CHECKING:
    import openai

# Default prices (USD); FURROW_OPENAI_PRICES overrides or adds models.
DEFAULT_PRICES = {
    "gpt-5-mini": {"input_per_million": 0.25, "output_per_million": 2.0, "per_web_search": 0.01},
    "gpt-5": {"input_per_million": 1.25, "output_per_million": 10.0, "per_web_search": 0.01},
}
CHAT_TEMPERATURE = 0.2
# How many rounds of function calls one answer may take before the model must answer.
TOOL_ROUNDS = 3


class ToolOutput(str):
    """The text a function tool gives the model, with a note for the caller (a trace step,
    say) that the model never reads."""

    note: Any

    def __new__(cls, text: str, note: Any = None) -> ToolOutput:
        output = super().__new__(cls, text)
        output.note = note
        return output


@dataclass(frozen=True)
class FunctionTool:
    """A function the model may call while it works out its answer: run takes the model's
    arguments (an untrusted dict: check them) and returns the text the model reads back (a
    ToolOutput to add a note for the caller). strict asks the Responses API to hold the model
    to the parameters' schema."""

    name: str
    description: str
    parameters: dict[str, Any]
    run: Callable[[dict[str, Any]], str]
    strict: bool = False

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
        spec = {
            "type": "function",
            "name": self.name,
            "description": self.description,
            "parameters": self.parameters,
        }
        return {**spec, "strict": True} if self.strict else spec


def run_tool(tools: Sequence[FunctionTool], name: str, arguments: str) -> str:
    tool = next((t for t in tools if t.name == name), None)
    return tool.call(arguments) if tool else f"There is no tool called {name!r}."


# What the loop reports as the model works, in order; the last is always Answered.
@dataclass(frozen=True)
class Searched:
    """The server searched the web (Responses API) for query (None when it does not say)."""

    query: str | None


@dataclass(frozen=True)
class Called:
    """A function tool the model called ran: the text the model read back, and the tool's
    note (None when it gave none, or did not run: no such tool, arguments not an object)."""

    name: str
    text: str
    note: Any = None


@dataclass(frozen=True)
class Answered:
    """The model's answer (JSON when a schema was asked for) and the URLs the server cited."""

    text: str
    citations: list[Evidence]


Event = Searched | Called | Answered


def is_reasoning_model(model: str) -> bool:
    """Reasoning models refuse a temperature."""
    return model.startswith(("gpt-5", "o1", "o3", "o4"))


def count_tokens(usage: Usage, reported: Any) -> None:
    """Add the tokens a response reports, in either API's names."""
    if reported is None:
        return
    if hasattr(reported, "prompt_tokens"):  # Chat Completions
        usage.input_tokens += reported.prompt_tokens
        usage.output_tokens += reported.completion_tokens
    else:
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


# The usage of the call this thread is making, for the HTTP client's hook to count into.
CALLING: ContextVar[Usage | None] = ContextVar("calling", default=None)


@contextlib.contextmanager
def counted(usage: Usage) -> Iterator[None]:
    """What the HTTP client sees while this thread makes one call counts in usage."""
    token = CALLING.set(usage)
    try:
        yield
    finally:
        CALLING.reset(token)


def count_rate_limits(response: Any) -> None:
    """The HTTP client's hook on every answer: a 429 counts in the call's usage (the SDK then
    waits as its Retry-After says and asks again, unseen by the caller otherwise)."""
    usage = CALLING.get()
    if response.status_code == 429 and usage is not None:
        usage.rate_limited += 1


@lru_cache(maxsize=4)
def openai_client(
    api_key: str, base_url: str | None, timeout: float, max_retries: int
) -> openai.OpenAI:
    """The process's SDK client for one server, made once: its set-up (importing the SDK, its
    resources, the HTTP pool and TLS context) is paid by the first caller, not by every run.
    The SDK retries 429 (waiting as Retry-After says), 5xx, lost connections and timeouts
    max_retries times, backing off: one call may take (max_retries + 1) × timeout. Its HTTP
    client counts each 429 in the calling run's usage."""
    import openai

    client = openai.OpenAI(
        api_key=api_key,
        base_url=base_url,
        timeout=timeout,
        max_retries=max_retries,
        http_client=openai.DefaultHttpxClient(event_hooks={"response": [count_rate_limits]}),
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
        settings.openai_max_retries,
    )


# What a model on this machine or its network costs: nothing per token.
LOCAL_PRICE = {"input_per_million": 0.0, "output_per_million": 0.0, "per_web_search": 0.0}


def is_local_server(base_url: str | None) -> bool:
    """Whether the server runs on this machine or a private network (llama.cpp, Ollama)."""
    host = urlsplit(base_url).hostname if base_url else None
    if not host:
        return False
    if host == "localhost" or host.endswith((".localhost", ".local")):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private


def provider_words(settings: Settings) -> str:
    """The model as people choose it: “OpenAI · gpt-5-mini”, “local server · gemma-3-270m ·
    no cost”, or the host of another OpenAI-compatible server."""
    model, base_url = settings.openai_model, settings.openai_base_url
    if is_local_server(base_url):
        return f"Local server · {model} · no cost"
    if base_url:
        return f"{urlsplit(base_url).hostname} · {model}"
    return f"OpenAI · {model}"


class AnswerCutOff(ProviderError):
    """The answer reached the output limit before it ended: what came is not read (a cut-off
    JSON, or a number from half a sentence), and the same prompt is not asked again."""


class ToolsIgnored(ProviderError):
    """A call was required and none came back: the server (or its model's chat template) does
    not support tools, and an answer it made up without them is no researched answer."""


def tools_ignored(usage: Usage) -> ToolsIgnored:
    return ToolsIgnored(
        "This server or its chat template does not support tools: asked to call one, it "
        "answered without, so its answer is not used.",
        usage,
    )


def cut_off(tokens: int, usage: Usage) -> AnswerCutOff:
    return AnswerCutOff(
        f"The answer was cut off at {tokens:,} tokens, the most this kind of answer may take "
        "(at most FURROW_OPENAI_MAX_OUTPUT_TOKENS): nothing of it is used.",
        usage,
    )


class StructuredClient:
    """The one way a workspace asks a model: `converse` is the loop (the model searches, calls
    the workspace's function tools, answers), `ask_structured` an answer in a pydantic model's
    schema, checked and re-asked. The SDK client is made (and the SDK imported) when first
    needed, so pricing a run loads nothing."""

    def __init__(self, settings: Settings, client: openai.OpenAI | None = None) -> None:
        if client is None and not (settings.openai_api_key or settings.openai_base_url):
            raise ProviderUnavailable(
                "The openai provider needs OPENAI_API_KEY or OPENAI_BASE_URL."
            )
        self.settings = settings
        self.model = settings.openai_model
        self.api = settings.openai_api
        if client is not None:
            self.client = client

    @cached_property
    def client(self) -> openai.OpenAI:
        return shared_client(self.settings)

    @property
    def searches_the_web(self) -> bool:
        return self.api != "chat"

    @property
    def is_local(self) -> bool:
        return is_local_server(self.settings.openai_base_url)

    def price(self) -> Mapping[str, float]:
        """The model's price; a local server's costs nothing unless FURROW_OPENAI_PRICES
        says otherwise."""
        prices = {**DEFAULT_PRICES, **self.settings.openai_prices}
        return prices.get(self.model) or (LOCAL_PRICE if self.is_local else {})

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

    def output_tokens(self, answer_tokens: int | None) -> int:
        """The most tokens one answer may take: what its kind needs (answer_tokens, a short
        lookup far less than a culture's every field), never more than the setting. A
        reasoning model gets the whole setting: its reasoning counts in the limit."""
        most = self.settings.openai_max_output_tokens
        if answer_tokens is None or is_reasoning_model(self.model):
            return most
        return min(answer_tokens, most)

    def output_limit(self, limit: int) -> dict[str, int]:
        """Chat Completions' output limit: reasoning models take only the newer name; local
        servers (llama.cpp's among them) read max_tokens."""
        return {"max_completion_tokens" if is_reasoning_model(self.model) else "max_tokens": limit}

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
        answer_tokens: int | None = None,
        call_first: bool = False,
    ) -> Structured[M]:
        """Ask for an answer in the model's schema. One that does not fit it, or that check
        (given the answer and its citations) finds problems with, is asked again, retries
        times, with the problems; what is still wrong after that is the result's problems.
        The model may call tools, at most TOOL_ROUNDS rounds per answer, and search the web
        (Responses API) unless web_search is False: an answer from given text only;
        call_first requires a tool call before the answer (a server that ignores it raises
        ToolsIgnored). answer_tokens is what the answer needs (see output_tokens). Every
        call counts in usage, priced. Raises ProviderError when the server fails.

        Not `responses.parse`: it validates inside the SDK, so an answer that does not fit
        would raise before its usage and citations could be counted."""
        schema = {"name": schema_name(model), "schema": strict_schema(model), "strict": True}
        result: Structured[M] = Structured(None)
        for _attempt in range(retries + 1):
            asked = prompt
            if result.problems:
                asked += "\nYour previous answer was rejected: " + "; ".join(result.problems)
            events = self.converse(
                instructions,
                asked,
                usage,
                tools=tools,
                web_search=web_search,
                schema=schema,
                answer_tokens=answer_tokens,
                call_first=call_first,
            )
            answered = next(e for e in events if isinstance(e, Answered))
            answer, problems = read_answer(model, answered.text)
            if answer is not None and check is not None:
                problems = check(answer, answered.citations)
            result = Structured(answer, problems, answered.citations)
            if not problems:
                break
        usage.cost_usd = self.cost(usage)
        return result

    def converse(
        self,
        instructions: str,
        prompt: str | list[dict[str, Any]],
        usage: Usage,
        *,
        tools: Sequence[FunctionTool] = (),
        web_search: bool = True,
        schema: dict[str, Any] | None = None,
        calls: int | None = None,
        call_first: bool = False,
        answer_tokens: int | None = None,
    ) -> Iterator[Event]:
        """The model at work on one prompt (or the messages so far), as it goes: each web
        search the server ran, each function tool it called (run here, its text sent back),
        then its answer, always last. The API is the one FURROW_OPENAI_API selects: the
        Responses API searches the web unless web_search is False; Chat Completions has only
        the tools. schema (name, schema, strict) asks for JSON in that schema.

        How long it may go on: by default, TOOL_ROUNDS rounds of function calls, the web
        search offered throughout. With calls, at most that many tool calls of any kind (web
        searches included; the Responses API is told how many remain), nothing offered once
        they are spent. call_first makes the first round call one (either way). answer_tokens
        bounds each response (see output_tokens). Every response counts in usage, priced as it
        goes. Raises ProviderError (carrying usage) when the server fails or times out.
        """
        import openai

        rounds = TOOL_ROUNDS if calls is None else calls
        loop = self._chat if self.api == "chat" else self._responses
        limit = self.output_tokens(answer_tokens)
        where = self.settings.openai_base_url or "https://api.openai.com/v1"
        try:
            yield from loop(
                instructions,
                prompt,
                usage,
                tools,
                web_search,
                schema,
                rounds,
                calls,
                call_first,
                limit,
            )
        except openai.APITimeoutError as exc:
            usage.cost_usd = self.cost(usage)
            tries = self.settings.openai_max_retries + 1
            raise ProviderError(
                f"The model server at {where} gave no answer within "
                f"{self.settings.openai_timeout:g} s ({tries} tr{'y' if tries == 1 else 'ies'}): "
                "a call that times out reports no tokens, so what it used is not counted.",
                usage,
            ) from exc
        except openai.APIConnectionError as exc:
            usage.cost_usd = self.cost(usage)
            raise ProviderError(
                f"Could not reach the model server at {where}: {exc}", usage
            ) from exc
        except openai.OpenAIError as exc:
            usage.cost_usd = self.cost(usage)
            raise ProviderError(f"The provider failed: {exc}", usage) from exc

    def _responses(
        self,
        instructions: str,
        prompt: str | list[dict[str, Any]],
        usage: Usage,
        tools: Sequence[FunctionTool],
        web_search: bool,
        schema: dict[str, Any] | None,
        rounds: int,
        calls: int | None,
        call_first: bool,
        limit: int,
    ) -> Iterator[Event]:
        asked: str | list[Any] = prompt if isinstance(prompt, str) else list(prompt)
        searching = [{"type": "web_search"}] if web_search else []
        functions = [t.responses_spec() for t in tools]
        text = {"text": {"format": {"type": "json_schema", **schema}}} if schema else {}
        used = 0
        for round_ in range(rounds + 1):
            offered: dict[str, Any]
            if calls is None:
                # The last round offers no functions: the model answers with what it has.
                offered = {"tools": [*searching, *(functions if round_ < rounds else [])]}
                if call_first and round_ == 0 and offered["tools"]:
                    offered["tool_choice"] = "required"
            elif used < calls and (searching or functions):
                offered = {
                    "tools": [*searching, *functions],
                    "max_tool_calls": calls - used,
                    "tool_choice": "required" if call_first and used == 0 else "auto",
                }
            else:
                offered = {}
            with counted(usage):
                response = self.client.responses.create(
                    model=self.model,
                    instructions=instructions,
                    input=asked,
                    max_output_tokens=limit,
                    **offered,
                    **text,
                    **self.temperature_args(),
                )
            count_tokens(usage, response.usage)
            details = getattr(response, "incomplete_details", None)
            if getattr(details, "reason", None) == "max_output_tokens":
                usage.cost_usd = self.cost(usage)
                raise cut_off(response.usage.output_tokens if response.usage else 0, usage)
            searches = [i for i in response.output if i.type == "web_search_call"]
            usage.web_searches += len(searches)
            usage.cost_usd = self.cost(usage)
            for item in searches:
                yield Searched(getattr(getattr(item, "action", None), "query", None))
            used += len(searches)
            called = [i for i in response.output if i.type == "function_call"]
            if offered.get("tool_choice") == "required" and not (searches or called):
                raise tools_ignored(usage)
            if not called or round_ == rounds:
                break
            if isinstance(asked, str):
                asked = [{"role": "user", "content": prompt}]
            asked += [item.model_dump(exclude_none=True) for item in response.output]
            for call in called:
                used += 1
                output = run_tool(tools, call.name, call.arguments)
                yield Called(call.name, output, getattr(output, "note", None))
                asked.append(
                    {"type": "function_call_output", "call_id": call.call_id, "output": str(output)}
                )
        yield Answered(response.output_text, citations_of(response))

    def _chat(
        self,
        instructions: str,
        prompt: str | list[dict[str, Any]],
        usage: Usage,
        tools: Sequence[FunctionTool],
        web_search: bool,
        schema: dict[str, Any] | None,
        rounds: int,
        calls: int | None,
        call_first: bool,
        limit: int,
    ) -> Iterator[Event]:
        messages: list[Any] = [
            {"role": "system", "content": instructions},
            *([{"role": "user", "content": prompt}] if isinstance(prompt, str) else prompt),
        ]
        functions = [t.chat_spec() for t in tools]
        bounded = {**schema, "schema": bounded_arrays(schema["schema"])} if schema else None
        answer_format = (
            {"response_format": {"type": "json_schema", "json_schema": bounded}} if schema else {}
        )
        used = 0
        for round_ in range(rounds + 1):
            offered: dict[str, Any] = {}
            if functions and (round_ < rounds if calls is None else used < calls):
                offered["tools"] = functions
                if call_first and used == 0:
                    offered["tool_choice"] = "required"
                elif calls is not None:
                    offered["tool_choice"] = "auto"
            with counted(usage):
                completion = self.client.chat.completions.create(
                    model=self.model,
                    messages=messages,
                    **self.output_limit(limit),
                    **answer_format,
                    **offered,
                    **self.temperature_args(),
                )
            count_tokens(usage, completion.usage)
            usage.cost_usd = self.cost(usage)
            if completion.choices[0].finish_reason == "length":
                raise cut_off(completion.usage.completion_tokens if completion.usage else 0, usage)
            message = completion.choices[0].message
            called = [c for c in message.tool_calls or [] if c.type == "function"]
            if offered.get("tool_choice") == "required" and not called:
                raise tools_ignored(usage)
            if not called or round_ == rounds:
                break
            messages.append(message.model_dump(exclude_none=True))
            for call in called:
                used += 1
                output = run_tool(tools, call.function.name, call.function.arguments)
                yield Called(call.function.name, output, getattr(output, "note", None))
                messages.append({"role": "tool", "tool_call_id": call.id, "content": str(output)})
        yield Answered(message.content or "", [])
