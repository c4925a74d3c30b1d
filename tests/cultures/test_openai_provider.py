"""The openai provider through the real SDK against a loopback server with scripted answers."""

import json

import pytest

from tests.support.openai_server import chat_body, openai_settings, responses_body, schema_at
from webapp.ai import ProviderError
from webapp.ai.client import is_reasoning_model
from webapp.cultures.providers.openai_provider import OpenAIProvider
from webapp.cultures.rules import postprocess

FIELDS = ["expected_yield", "harvest_method", "growth_duration_days"]
YIELD_URL = "https://extension.example.edu/tomato"
ANSWER = {
    "suggested_fields": {
        "expected_yield": {"value": "4-6", "unit": "kg/m²", "confidence": 0.7},
        "harvest_method": {"value": "pro m²", "unit": None, "confidence": 0.9},
        "growth_duration_days": None,
    },
    "evidence": {
        "expected_yield": [
            {
                "source_url": YIELD_URL,
                "title": "Tomato guide",
                "snippet": "Field tomatoes yield 4 to 6 kg per m².",
                "retrieved_at": "2026-11-01",
            }
        ],
        "harvest_method": [],
        "growth_duration_days": [],
    },
    "validation": {"warnings": ["Yields vary by region."], "errors": []},
    "note_blocks": ["Stake the plants."],
}


def provider(tmp_path, server, **env):
    return OpenAIProvider(openai_settings(tmp_path, server, **env))


def test_responses_mode_asks_with_web_search_and_a_strict_schema(tmp_path, openai_server):
    openai_server.reply(
        responses_body(ANSWER, citations=[("https://fao.org/t", "FAO")], searches=2)
    )
    answer = provider(tmp_path, openai_server).propose_culture({"name": "Tomato"}, FIELDS)

    path, sent = openai_server.requests[0]
    assert path == "/v1/responses"
    assert sent["tools"] == [{"type": "web_search"}]
    assert sent["text"]["format"]["strict"] is True
    schema = sent["text"]["format"]["schema"]
    assert schema_at(schema, "properties", "suggested_fields")["required"] == FIELDS
    assert "temperature" not in sent  # gpt-5-mini reasons: no temperature
    proposal = answer.proposal
    assert proposal.value("harvest_method") == "pro m²"
    assert "growth_duration_days" not in proposal.suggested
    assert proposal.evidence["expected_yield"][0].claim_summary.startswith("Field tomatoes")
    assert [c.source_url for c in proposal.citations] == ["https://fao.org/t"]
    assert proposal.note_blocks == ["Stake the plants."]
    assert (answer.usage.input_tokens, answer.usage.output_tokens) == (1000, 200)
    assert answer.usage.web_searches == 2
    # 1000 × 0.25/1e6 + 200 × 2.0/1e6 + 2 × 0.01
    assert answer.usage.cost_usd == pytest.approx(0.02065)

    postprocess(proposal, {"name": "Tomato"})
    assert proposal.value("harvest_method") == "per_sqm"
    assert proposal.value("expected_yield") == 5.0
    assert proposal.invalid_fields == set()


def test_a_schema_violation_is_asked_again_once_with_the_reasons(tmp_path, openai_server):
    broken = {"suggested_fields": {"colour": {"value": "red"}}}
    openai_server.reply(responses_body(broken))
    openai_server.reply(responses_body(ANSWER))
    answer = provider(tmp_path, openai_server).propose_culture({"name": "Tomato"}, FIELDS)
    assert answer.proposal.value("expected_yield") == "4-6"
    second = openai_server.requests[1][1]["input"]
    assert "Your previous answer was rejected" in second and "evidence: Field required" in second
    assert "suggested_fields.colour: Extra inputs are not permitted" in second
    assert answer.usage.input_tokens == 2000  # both calls count


def test_two_broken_answers_fail_cleanly(tmp_path, openai_server):
    openai_server.reply(responses_body({"nonsense": True}))
    openai_server.reply(responses_body({"nonsense": True}))
    with pytest.raises(ProviderError, match="broke the schema twice"):
        provider(tmp_path, openai_server).propose_culture({"name": "Tomato"}, FIELDS)
    assert len(openai_server.requests) == 2


def test_rate_limits_and_server_errors_are_retried_by_the_sdk(tmp_path, openai_server):
    openai_server.reply({"error": {"message": "slow down"}}, status=429)
    openai_server.reply({"error": {"message": "oops"}}, status=500)
    openai_server.reply(responses_body(ANSWER))
    answer = provider(tmp_path, openai_server).propose_culture({"name": "Tomato"}, FIELDS)
    assert answer.proposal.suggested and len(openai_server.requests) == 3


def test_a_provider_that_keeps_failing_is_a_clear_error(tmp_path, openai_server):
    for _ in range(4):
        openai_server.reply({"error": {"message": "down for maintenance"}}, status=503)
    with pytest.raises(ProviderError, match="The provider failed"):
        provider(tmp_path, openai_server).propose_culture({"name": "Tomato"}, FIELDS)


def test_chat_mode_sends_reference_snippets_and_keeps_only_evidence_citing_them(
    tmp_path, openai_server
):
    chat = provider(tmp_path, openai_server, FURROW_OPENAI_API="chat", OPENAI_MODEL="llama3")
    fao = chat._snippets({"name": "Tomato"})[0].source_url
    answer = {
        **ANSWER,
        "evidence": {
            "expected_yield": [
                {"source_url": YIELD_URL, "title": "t", "snippet": "s", "retrieved_at": None}
            ],
            "harvest_method": [],
            "growth_duration_days": [
                {"source_url": fao, "title": "FAO", "snippet": "135–180 days", "retrieved_at": None}
            ],
        },
    }
    openai_server.reply(chat_body(json.dumps(answer)))
    result = chat.propose_culture({"name": "Tomato"}, FIELDS).proposal

    path, sent = openai_server.requests[0]
    assert path == "/v1/chat/completions"
    assert sent["response_format"]["json_schema"]["strict"] is True
    assert sent["temperature"] == 0.2
    assert fao in sent["messages"][1]["content"]
    assert "expected_yield" not in result.evidence  # it cited a URL it was not given
    assert [i.code for i in result.issues_for("expected_yield")] == [
        "evidence_not_in_given_sources"
    ]
    assert result.evidence["growth_duration_days"][0].source_url == fao


def test_reasoning_models_are_recognised():
    assert is_reasoning_model("gpt-5-mini") and is_reasoning_model("o3")
    assert not is_reasoning_model("gpt-4.1") and not is_reasoning_model("llama3")


def test_the_batch_estimate_uses_the_price_table(tmp_path, openai_server):
    priced = provider(
        tmp_path,
        openai_server,
        OPENAI_MODEL="house-model",
        FURROW_OPENAI_PRICES='{"house-model": {"input_per_million": 1, '
        '"output_per_million": 10, "per_web_search": 0.1}}',
    )
    # per culture: 4000 × 1e-6 + 800 × 1e-5 + 3 × 0.1 = 0.312 USD
    assert priced.estimate_cost(100) == 31.2


def test_chat_mode_with_nothing_in_the_library_keeps_no_made_up_source(tmp_path, openai_server):
    # A crop the reference library does not know: a server without web search was given no
    # source, so every source it cites is made up, and a number it gives cites nothing.
    chat = provider(tmp_path, openai_server, FURROW_OPENAI_API="chat", OPENAI_MODEL="gemma")
    culture = {"name": "Zzyzx berry"}
    assert chat._snippets(culture) == []
    answer = {
        **ANSWER,
        "suggested_fields": {
            **ANSWER["suggested_fields"],
            "growth_duration_days": {"value": 90, "unit": "days", "confidence": 0.6},
        },
    }
    openai_server.reply(chat_body(json.dumps(answer)))
    result = chat.propose_culture(culture, FIELDS).proposal
    sent = openai_server.requests[0][1]
    assert sent["max_tokens"] == 512 + 256 * len(FIELDS)
    assert result.evidence == {}
    assert "evidence_not_in_given_sources" in {i.code for i in result.issues_for("expected_yield")}
    postprocess(result, culture, fields=FIELDS)
    unsourced = result.issues_for("growth_duration_days")
    assert [(i.code, i.severity.value) for i in unsourced] == [("value_without_source", "warning")]
    assert unsourced[0].message == "90 cites no source: confirm it yourself before applying."
