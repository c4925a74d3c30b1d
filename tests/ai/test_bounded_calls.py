"""Every model call is bounded: an output limit sent with each call, an answer cut off at it
is no answer (and is not asked again), and the SDK's retries are a setting."""

import json

import pytest

from tests.ai.test_structured import GOOD, ask, client
from tests.support.openai_server import chat_body, responses_body
from webapp.ai import ProviderError, Usage
from webapp.ai.answers import MOST_ITEMS, bounded_arrays
from webapp.ai.client import (
    LOCAL_PRICE,
    AnswerCutOff,
    FunctionTool,
    StructuredClient,
    ToolsIgnored,
    is_local_server,
    provider_words,
)
from webapp.config import load_settings


def cut_chat(content: str, tokens: int):
    body = chat_body(content, tokens=(400, tokens))
    body["choices"][0]["finish_reason"] = "length"
    return body


def cut_response(content: str, tokens: int):
    body = responses_body(content, tokens=(900, tokens))
    body["status"] = "incomplete"
    body["incomplete_details"] = {"reason": "max_output_tokens"}
    return body


def test_a_chat_answer_cut_off_at_the_limit_is_said_and_not_asked_again(tmp_path, openai_server):
    # A small local model repeating array items until the limit stops it.
    endless = '{"city": "Lyon", "temperature_c": 21.5, "warnings": ["hot", "hot", "hot", "ho'
    openai_server.reply(cut_chat(endless, 64))
    openai_server.reply(chat_body(json.dumps(GOOD)))  # never asked for
    chat = client(
        tmp_path,
        openai_server,
        FURROW_OPENAI_API="chat",
        OPENAI_MODEL="gemma-3-270m",
        FURROW_OPENAI_MAX_OUTPUT_TOKENS="64",
    )
    usage = Usage()
    with pytest.raises(AnswerCutOff, match=r"^The answer was cut off at 64 tokens") as caught:
        ask(chat, usage)
    assert len(openai_server.requests) == 1
    assert openai_server.requests[0][1]["max_tokens"] == 64
    assert caught.value.usage is usage and (usage.input_tokens, usage.output_tokens) == (400, 64)


def test_a_reasoning_model_on_chat_is_sent_the_limit_under_its_own_name(tmp_path, openai_server):
    openai_server.reply(chat_body(json.dumps(GOOD)))
    ask(client(tmp_path, openai_server, FURROW_OPENAI_API="chat"), Usage())
    sent = openai_server.requests[0][1]
    assert sent["max_completion_tokens"] == 8192 and "max_tokens" not in sent


def test_a_responses_answer_cut_off_at_the_limit_is_no_answer(tmp_path, openai_server):
    openai_server.reply(cut_response('{"city": "Ly', 2000))
    usage = Usage()
    limited = client(tmp_path, openai_server, FURROW_OPENAI_MAX_OUTPUT_TOKENS="2000")
    with pytest.raises(AnswerCutOff, match="cut off at 2,000 tokens"):
        ask(limited, usage)
    assert openai_server.requests[0][1]["max_output_tokens"] == 2000
    assert len(openai_server.requests) == 1 and usage.cost_usd > 0  # paid for all the same


def test_the_sdks_retries_are_a_setting(tmp_path, openai_server):
    failing = {"error": {"message": "overloaded"}}
    openai_server.reply(failing, status=500)
    with pytest.raises(Exception, match="overloaded"):
        ask(client(tmp_path, openai_server, FURROW_OPENAI_MAX_RETRIES="0"), Usage())
    assert len(openai_server.requests) == 1
    for _ in range(2):
        openai_server.reply(failing, status=500)
    openai_server.reply(responses_body(GOOD))
    # The default: two retries, then the answer.
    assert ask(client(tmp_path, openai_server), Usage()).answer is not None
    assert len(openai_server.requests) == 4


def test_every_array_of_a_chat_schema_gets_an_end_and_the_rest_stays():
    schema = {
        "type": "object",
        "properties": {
            "values": {"type": "array", "items": {"$ref": "#/$defs/Value"}},
            "notes": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]},
            "kept": {"type": ["array", "null"], "items": {"type": "number"}, "maxItems": 3},
        },
        "$defs": {"Value": {"type": "object", "properties": {"sources": {"type": "array"}}}},
    }
    bounded = bounded_arrays(schema)
    assert bounded["properties"]["values"]["maxItems"] == MOST_ITEMS
    assert bounded["properties"]["notes"]["anyOf"][0]["maxItems"] == MOST_ITEMS
    assert bounded["properties"]["kept"]["maxItems"] == 3  # its own end is kept
    assert bounded["$defs"]["Value"]["properties"]["sources"]["maxItems"] == MOST_ITEMS
    assert "maxItems" not in schema["properties"]["values"]  # the schema given is left as it is


def test_a_required_call_that_never_comes_is_said_on_the_responses_api_too(tmp_path, openai_server):
    openai_server.reply(responses_body("1998", searches=0))
    usage = Usage()
    noop = FunctionTool("read_page", "Read a page.", {"type": "object", "properties": {}}, str)
    events = client(tmp_path, openai_server).converse(
        "Look it up.", "When was Acme founded?", usage, tools=[noop], calls=2, call_first=True
    )
    with pytest.raises(ToolsIgnored, match="does not support tools"):
        list(events)
    assert openai_server.requests[0][1]["tool_choice"] == "required"
    assert usage.input_tokens == 1000  # what it used is counted all the same


@pytest.mark.parametrize(
    ("base_url", "local"),
    [
        ("http://127.0.0.1:8080/v1", True),
        ("http://localhost:11434/v1", True),
        ("http://192.168.1.20:8000/v1", True),
        ("http://llama.local/v1", True),
        ("https://api.openai.com/v1", False),
        ("https://inference.example.org/v1", False),
        (None, False),
    ],
)
def test_a_local_server_is_told_from_a_remote_one(base_url, local):
    assert is_local_server(base_url) is local


def test_a_local_server_costs_nothing_and_is_named_so(tmp_path, openai_server):
    local = client(tmp_path, openai_server, OPENAI_MODEL="gemma-3-270m")
    assert local.is_local and local.price() == LOCAL_PRICE
    assert provider_words(local.settings) == "Local server · gemma-3-270m · no cost"
    priced = client(
        tmp_path,
        openai_server,
        OPENAI_MODEL="gemma-3-270m",
        FURROW_OPENAI_PRICES='{"gemma-3-270m": {"input_per_million": 0.01}}',
    )
    assert priced.price() == {"input_per_million": 0.01}  # a price set is the price
    cloud = load_settings({"FURROW_INSTANCE_PATH": str(tmp_path), "OPENAI_API_KEY": "sk-test"})
    assert provider_words(cloud) == "OpenAI · gpt-5-mini"


def test_a_server_that_cannot_be_reached_is_named(tmp_path):
    settings = load_settings(
        {
            "FURROW_INSTANCE_PATH": str(tmp_path),
            "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",  # discard: nothing listens
            "FURROW_OPENAI_MAX_RETRIES": "0",
        }
    )
    with pytest.raises(ProviderError, match=r"^Could not reach the model server at http://127"):
        ask(StructuredClient(settings), Usage())


@pytest.mark.parametrize(
    ("env", "sent"),
    [
        ({"FURROW_OPENAI_API": "chat", "OPENAI_MODEL": "gemma-3-270m"}, ("max_tokens", 300)),
        (  # the setting caps every kind of answer
            {
                "FURROW_OPENAI_API": "chat",
                "OPENAI_MODEL": "gemma-3-270m",
                "FURROW_OPENAI_MAX_OUTPUT_TOKENS": "200",
            },
            ("max_tokens", 200),
        ),
        ({"OPENAI_MODEL": "gpt-4.1-mini"}, ("max_output_tokens", 300)),
        # A reasoning model's thinking counts in the limit: it gets the whole setting.
        ({}, ("max_output_tokens", 8192)),
        ({"FURROW_OPENAI_API": "chat"}, ("max_completion_tokens", 8192)),
    ],
    ids=["chat", "capped", "responses", "reasoning", "reasoning-chat"],
)
def test_each_kind_of_answer_is_limited_to_what_it_needs(tmp_path, openai_server, env, sent):
    chat = env.get("FURROW_OPENAI_API") == "chat"
    openai_server.reply(chat_body(json.dumps(GOOD)) if chat else responses_body(GOOD))
    ask(client(tmp_path, openai_server, **env), Usage(), answer_tokens=300)
    name, tokens = sent
    assert openai_server.requests[0][1][name] == tokens


def test_a_call_that_times_out_says_so_and_counts_no_tokens(tmp_path, openai_server):
    openai_server.delay = 1.0
    openai_server.reply(responses_body(GOOD))
    slow = client(
        tmp_path,
        openai_server,
        FURROW_OPENAI_TIMEOUT_SECONDS="0.2",
        FURROW_OPENAI_MAX_RETRIES="0",
    )
    usage = Usage()
    with pytest.raises(ProviderError) as caught:
        ask(slow, usage)
    message = str(caught.value)
    assert message.startswith(f"The model server at {openai_server.base_url} gave no answer")
    assert "within 0.2 s (1 try)" in message and "what it used is not counted" in message
    assert (usage.input_tokens, usage.output_tokens, usage.cost_usd) == (0, 0, 0)


def test_a_tool_to_call_first_is_required_and_a_server_that_ignores_it_is_said(
    tmp_path, openai_server
):
    openai_server.reply(chat_body(json.dumps(GOOD)))  # answered without calling
    noop = FunctionTool("calculate", "Calculate.", {"type": "object", "properties": {}}, str)
    chat = client(tmp_path, openai_server, FURROW_OPENAI_API="chat", OPENAI_MODEL="gemma-3-270m")
    with pytest.raises(ToolsIgnored, match=r"^This server or its chat template"):
        ask(chat, Usage(), tools=[noop], call_first=True)
    first = openai_server.requests[0][1]
    assert first["tool_choice"] == "required"
    assert first["tools"][0]["function"]["name"] == "calculate"


def test_a_rate_limited_call_waits_as_told_and_is_counted(tmp_path, openai_server):
    too_many = {"error": {"message": "Rate limit reached", "type": "requests"}}
    openai_server.reply(too_many, status=429, headers={"retry-after-ms": "20"})
    openai_server.reply(responses_body(GOOD))
    usage = Usage()
    assert ask(client(tmp_path, openai_server), usage).answer is not None
    assert len(openai_server.requests) == 2 and usage.rate_limited == 1
    assert usage.input_tokens == 1000  # the answer that came is counted as ever
