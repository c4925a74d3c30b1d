"""ask_structured through the real SDK against a loopback OpenAI-compatible server: the schema a
pydantic model gives, the answer read back against it, the re-ask, usage and price."""

import json

import pytest
from pydantic import BaseModel, ConfigDict

from tests.support.openai_server import chat_body, openai_settings, responses_body
from webapp.ai import ProviderError, ProviderUnavailable, Usage, pick
from webapp.ai.answers import MOST_ITEMS, MOST_PROBLEMS, bounded_arrays, read_answer, strict_schema
from webapp.ai.client import StructuredClient
from webapp.config import load_settings
from webapp.cultures.catalog import ENRICHABLE_FIELDS
from webapp.cultures.providers.schema import answer_model
from webapp.fertilizer.gateways.schema import PlanAnswer


class Weather(BaseModel):
    model_config = ConfigDict(strict=True, title="weather")

    city: str
    temperature_c: float
    warnings: list[str]


GOOD = {"city": "Lyon", "temperature_c": 21.5, "warnings": []}


def client(tmp_path, server, **env) -> StructuredClient:
    return StructuredClient(openai_settings(tmp_path, server, **env))


def ask(structured: StructuredClient, usage: Usage, **kwargs):
    return structured.ask_structured(Weather, "Report the weather.", "Lyon today?", usage, **kwargs)


def test_a_good_answer_is_the_model_with_its_citations_usage_and_cost(tmp_path, openai_server):
    openai_server.reply(
        responses_body(GOOD, citations=[("https://meteo.example/lyon", "Météo")], searches=2)
    )
    usage = Usage()
    result = ask(client(tmp_path, openai_server), usage)

    assert result.answer == Weather(**GOOD) and result.problems == []
    assert [(c.source_url, c.title) for c in result.citations] == [
        ("https://meteo.example/lyon", "Météo")
    ]
    path, sent = openai_server.requests[0]
    assert path == "/v1/responses"
    assert sent["tools"] == [{"type": "web_search"}]
    assert sent["text"]["format"] == {
        "type": "json_schema",
        "name": "weather",
        "schema": strict_schema(Weather),
        "strict": True,
    }
    assert sent["instructions"] == "Report the weather." and sent["input"] == "Lyon today?"
    assert "temperature" not in sent  # gpt-5-mini reasons
    assert (usage.input_tokens, usage.output_tokens, usage.web_searches) == (1000, 200, 2)
    # 1000 × 0.25/1e6 + 200 × 2.0/1e6 + 2 × 0.01
    assert usage.cost_usd == pytest.approx(0.02065)


def test_an_invalid_answer_is_asked_again_with_its_problems(tmp_path, openai_server):
    openai_server.reply(responses_body({"city": "Lyon", "temperature_c": "warm", "extra": 1}))
    openai_server.reply(responses_body(GOOD))
    usage = Usage()
    result = ask(client(tmp_path, openai_server), usage)

    assert result.answer == Weather(**GOOD) and result.problems == []
    second = openai_server.requests[1][1]["input"]
    assert second.startswith("Lyon today?\nYour previous answer was rejected: ")
    assert "temperature_c: Input should be a valid number" in second
    assert "warnings: Field required" in second
    assert (usage.input_tokens, usage.web_searches) == (2000, 2)  # both calls count
    # each: 1000 × 0.25/1e6 + 200 × 2.0/1e6 + 1 × 0.01
    assert usage.cost_usd == pytest.approx(2 * 0.01065)


def test_an_answer_still_invalid_after_the_retry_is_problems_not_an_exception(
    tmp_path, openai_server
):
    openai_server.reply(responses_body({"city": 7}))
    openai_server.reply(responses_body([GOOD]))
    usage = Usage()
    result = ask(client(tmp_path, openai_server), usage)

    assert result.answer is None
    assert result.problems == ["the answer: Input should be an object"]
    assert len(openai_server.requests) == 2
    assert usage.input_tokens == 2000 and usage.cost_usd > 0


def test_a_non_json_answer_is_a_problem_to_re_ask(tmp_path, openai_server):
    openai_server.reply(responses_body("It is sunny in Lyon."))
    openai_server.reply(responses_body(GOOD))
    result = ask(client(tmp_path, openai_server), Usage())

    assert result.answer == Weather(**GOOD)
    second = openai_server.requests[1][1]["input"]
    assert (
        "Your previous answer was rejected: the answer is not valid JSON (Invalid JSON:" in second
    )


def test_what_the_check_finds_is_asked_again_and_returned_when_it_stays(tmp_path, openai_server):
    cold = {**GOOD, "temperature_c": -80.0}
    openai_server.reply(responses_body(cold, citations=[("https://a.example", "A")]))
    openai_server.reply(responses_body(cold))
    seen = []

    def check(answer: Weather, citations) -> list[str]:
        seen.append((answer.temperature_c, [c.source_url for c in citations]))
        return [] if answer.temperature_c > -60 else ["temperature_c is colder than Earth gets"]

    result = ask(client(tmp_path, openai_server), Usage(), check=check)

    assert seen == [(-80.0, ["https://a.example"]), (-80.0, [])]
    assert "colder than Earth gets" in openai_server.requests[1][1]["input"]
    # The answer fit the schema: the caller turns what is still wrong into issues or an error.
    assert result.answer == Weather(**cold)
    assert result.problems == ["temperature_c is colder than Earth gets"]


def test_no_retry_asks_once(tmp_path, openai_server):
    openai_server.reply(responses_body({"city": "Lyon"}))
    result = ask(client(tmp_path, openai_server), Usage(), retries=0)
    assert result.answer is None and len(openai_server.requests) == 1


def test_chat_mode_sends_the_same_strict_schema_and_counts_its_usage(tmp_path, openai_server):
    openai_server.reply(chat_body(json.dumps(GOOD), tokens=(500, 100)))
    usage = Usage()
    chat = client(tmp_path, openai_server, FURROW_OPENAI_API="chat", OPENAI_MODEL="llama3")
    result = ask(chat, usage)

    path, sent = openai_server.requests[0]
    assert path == "/v1/chat/completions"
    # The same schema, every array given an end: a local server's grammar holds the model to it.
    bounded = bounded_arrays(strict_schema(Weather))
    assert sent["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "weather", "schema": bounded, "strict": True},
    }
    assert bounded["properties"]["warnings"]["maxItems"] == MOST_ITEMS
    assert sent["temperature"] == 0.2
    assert [m["role"] for m in sent["messages"]] == ["system", "user"]
    assert result.answer == Weather(**GOOD) and result.citations == []
    assert (usage.input_tokens, usage.output_tokens, usage.web_searches) == (500, 100, 0)
    assert usage.cost_usd == 0  # no price for a local model


def test_a_failing_server_is_a_provider_error_that_carries_the_usage(tmp_path, openai_server):
    openai_server.reply(responses_body({"city": 7}))
    openai_server.reply({"error": {"message": "model not found"}}, status=404)
    usage = Usage()
    with pytest.raises(ProviderError, match=r"The provider failed: .*model not found") as caught:
        ask(client(tmp_path, openai_server), usage)
    assert caught.value.usage is usage and usage.input_tokens == 1000 and usage.cost_usd > 0


def test_the_openai_client_needs_a_key_or_a_server(tmp_path):
    settings = load_settings({"FURROW_INSTANCE_PATH": str(tmp_path)})
    with pytest.raises(ProviderUnavailable, match="needs OPENAI_API_KEY or OPENAI_BASE_URL"):
        StructuredClient(settings)


def _objects(schema):
    """Every object schema inside a JSON schema."""
    if isinstance(schema, dict):
        if schema.get("type") == "object":
            yield schema
        for value in schema.values():
            yield from _objects(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _objects(value)


@pytest.mark.parametrize(
    "model", [answer_model(ENRICHABLE_FIELDS), PlanAnswer, Weather], ids=lambda m: m.__name__
)
def test_every_schema_sent_is_strict(model):
    """OpenAI's strict mode: every property required, no additional properties, no defaults,
    and every value typed (a lenient value still declares its types)."""
    schema = strict_schema(model)
    objects = list(_objects(schema))
    assert objects
    for part in objects:
        assert part["additionalProperties"] is False
        assert part["required"] == list(part["properties"])
    assert '"default"' not in json.dumps(schema)
    assert "{}" not in json.dumps(schema)


def test_problems_are_capped_so_a_re_ask_stays_short():
    many = {"city": 1, "temperature_c": "x", "warnings": list(range(40))}
    _answer, problems = read_answer(Weather, json.dumps(many))
    assert len(problems) == MOST_PROBLEMS + 1
    assert problems[-1] == f"and {42 - MOST_PROBLEMS} more problem(s)"


def test_one_switch_picks_the_implementation_a_provider_name_names():
    built = []

    def make(name):
        return lambda: built.append(name) or name

    assert pick("offline", make("offline"), make("openai")) == "offline"
    assert pick("openai", make("offline"), make("openai")) == "openai"
    assert built == ["offline", "openai"]  # only the picked one is built
    with pytest.raises(ProviderUnavailable, match=r"no provider called 'oracle' \(offline or"):
        pick("oracle", make("offline"), make("openai"))
    assert built == ["offline", "openai"]
