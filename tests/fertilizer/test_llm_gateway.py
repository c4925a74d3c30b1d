"""The openai gateway through the real SDK against a loopback OpenAI-compatible server."""

import copy
import json

import pytest

from tests.fertilizer.profiles import TOMATO_FILE, load, profile
from tests.support.openai_server import chat_body, openai_settings, responses_body
from webapp.fertilizer.gateways.llm import OpenAIGateway
from webapp.fertilizer.interactor import NoRecommendation, recommend

EXTENSION = "https://extension.example.edu/tomato-fertility"
FAO_TOMATO = "https://www.fao.org/land-water/databases-and-software/crop-information/tomato/en/"
ANSWER = {
    "crop": {"crop_id": "tomato", "name": "Tomato"},
    "method": "UF/IFAS tomato recommendation",
    "totals": {"N": 22.4, "P": 4.364, "K": 16.602},
    "oxide_totals": {"P2O5": 10.0, "K2O": 20.0},
    "conversions": ["224 kg N/ha ÷ 10 = 22.4 g/m²", "P2O5 10 g/m² × 0.4364 = 4.364 g/m² P"],
    "applications": [
        {
            "type": "basal",
            "count": 1,
            "schedule_hint": "pre-plant",
            "nutrients": {"N": 6.4, "P": 4.364, "K": 16.602},
            "per_application": None,
        },
        {
            "type": "topdress",
            "count": 2,
            "schedule_hint": "生育期; 収穫期",
            "nutrients": {"N": 16.0, "P": 0.0, "K": 0.0},
            "per_application": {"N": 8.0, "P": 0.0, "K": 0.0},
        },
    ],
    "sources": [EXTENSION],
    "confidence": 0.6,
    "notes": "From the state extension guide.",
}


def gateway(tmp_path, server, **env):
    return OpenAIGateway(openai_settings(tmp_path, server, **env))


def tomato():
    return {"crop_profile": load(TOMATO_FILE), "region": "Kantō"}


def test_a_web_searched_plan_is_checked_and_returned_with_its_citations(tmp_path, openai_server):
    openai_server.reply(responses_body(ANSWER, citations=[(FAO_TOMATO, "FAO")], searches=2))
    result = recommend(tomato(), gateway(tmp_path, openai_server))

    path, sent = openai_server.requests[0]
    assert path == "/v1/responses"
    assert sent["tools"] == [{"type": "web_search"}]
    assert sent["text"]["format"]["strict"] is True
    assert sent["text"]["format"]["name"] == "fertilizer_plan"
    assert "Region: Kantō" in sent["input"] and "育苗期" in sent["input"]
    assert "temperature" not in sent  # gpt-5-mini reasons: no temperature
    plan = result.plan
    assert (plan.crop_id, plan.totals.N) == ("トマト", 22.4)
    assert plan.method == "UF/IFAS tomato recommendation"
    # The region's method and its figures are in the question: Kantō has none of its own.
    assert "The method this region follows is published extension range" in sent["input"]
    assert plan.sources == (EXTENSION, FAO_TOMATO)
    assert "Conversion: P2O5 10 g/m² × 0.4364" in plan.notes
    assert result.usage.web_searches == 2 and result.usage.cost_usd > 0
    assert result.gateway == "openai" and result.model == "gpt-5-mini"


def test_a_temperature_is_sent_to_models_that_take_one(tmp_path, openai_server):
    openai_server.reply(responses_body(ANSWER))
    recommend(tomato(), gateway(tmp_path, openai_server, OPENAI_MODEL="gpt-4.1"))
    assert openai_server.requests[0][1]["temperature"] <= 0.2


def test_a_plan_that_does_not_add_up_is_asked_again_with_the_reasons(tmp_path, openai_server):
    wrong = copy.deepcopy(ANSWER)
    wrong["totals"]["N"] = 25.0
    openai_server.reply(responses_body(wrong))
    openai_server.reply(responses_body(ANSWER))
    result = recommend(tomato(), gateway(tmp_path, openai_server))
    assert result.plan.totals.N == 22.4
    second = openai_server.requests[1][1]["input"]
    assert "Your previous answer was rejected" in second
    assert "applications add up to N 22.4 g/m² but totals.N is 25" in second
    assert result.usage.input_tokens == 2000  # both calls count


def test_a_wrong_oxide_conversion_is_asked_again(tmp_path, openai_server):
    wrong = copy.deepcopy(ANSWER)
    wrong["oxide_totals"]["P2O5"] = 4.364  # elemental figure passed off as the oxide
    openai_server.reply(responses_body(wrong))
    openai_server.reply(responses_body(ANSWER))
    recommend(tomato(), gateway(tmp_path, openai_server))
    assert "oxide_totals.P2O5 4.364 × 0.4364" in openai_server.requests[1][1]["input"]


def test_two_broken_answers_fail_cleanly_without_a_fallback(tmp_path, openai_server):
    openai_server.reply(responses_body({"plan": "use compost"}))
    openai_server.reply(responses_body({**ANSWER, "applications": []}))
    with pytest.raises(NoRecommendation) as caught:
        recommend(tomato(), gateway(tmp_path, openai_server))
    assert caught.value.code == "provider_invalid_plan"
    assert "broke the rules twice" in str(caught.value)
    assert "at least one application" in str(caught.value)
    assert len(openai_server.requests) == 2
    assert caught.value.usage.input_tokens == 2000


def test_a_refusing_server_is_a_clear_failure(tmp_path, openai_server):
    openai_server.reply({"error": {"message": "model not found"}}, status=404)
    with pytest.raises(NoRecommendation) as caught:
        recommend(tomato(), gateway(tmp_path, openai_server))
    assert caught.value.code == "provider_failed"
    assert "model not found" in str(caught.value)


def test_an_answer_cut_off_says_so_in_the_plans_words(tmp_path, openai_server):
    cut = responses_body("{", tokens=(900, 2048))
    cut["status"] = "incomplete"
    cut["incomplete_details"] = {"reason": "max_output_tokens"}
    openai_server.reply(cut)
    with pytest.raises(NoRecommendation) as caught:
        recommend(tomato(), gateway(tmp_path, openai_server, OPENAI_MODEL="gpt-4.1-mini"))
    assert caught.value.code == "provider_failed"
    assert str(caught.value).startswith("the answer was cut off at 2,048 tokens")
    assert openai_server.requests[0][1]["max_output_tokens"] == 2048


def test_chat_mode_grounds_the_model_in_library_snippets(tmp_path, openai_server):
    answer = {**ANSWER, "sources": [FAO_TOMATO, EXTENSION]}
    openai_server.reply(chat_body(json.dumps(answer)))
    chat = gateway(tmp_path, openai_server, FURROW_OPENAI_API="chat", OPENAI_MODEL="llama3")
    result = recommend(tomato(), chat)
    path, sent = openai_server.requests[0]
    assert path == "/v1/chat/completions"
    assert sent["temperature"] == 0.2
    assert sent["response_format"]["json_schema"]["strict"] is True
    assert FAO_TOMATO in sent["messages"][1]["content"]
    assert result.plan.sources == (FAO_TOMATO,)  # the URL it was not given is dropped
    assert [i.code for i in result.issues] == ["source_not_given"]


def test_chat_mode_without_any_source_makes_no_plan(tmp_path, openai_server):
    chat = gateway(tmp_path, openai_server, FURROW_OPENAI_API="chat", OPENAI_MODEL="llama3")
    with pytest.raises(NoRecommendation, match="no sources for Okra"):
        recommend({"crop_profile": profile("Okra")}, chat)
    assert openai_server.requests == []


def test_a_plan_outside_every_published_range_carries_a_warning(tmp_path, openai_server):
    light = copy.deepcopy(ANSWER)
    light["totals"]["N"] = 5.0
    light["applications"][0]["nutrients"]["N"] = 1.0
    light["applications"][1]["nutrients"]["N"] = 4.0
    light["applications"][1]["per_application"]["N"] = 2.0
    openai_server.reply(responses_body(light))
    result = recommend(tomato(), gateway(tmp_path, openai_server))
    assert [i.code for i in result.issues] == ["outside_published_range"]
    assert "N 50 kg/ha is outside every published range" in result.issues[0].message
    assert "UF/IFAS" in result.issues[0].message or "Florida" in result.issues[0].message


def test_a_nutrient_no_source_gives_is_null_never_zero(tmp_path, openai_server):
    unknown = copy.deepcopy(ANSWER)
    unknown["totals"]["K"] = None
    unknown["oxide_totals"]["K2O"] = None
    unknown["applications"][0]["nutrients"]["K"] = None
    openai_server.reply(responses_body(unknown))
    result = recommend(tomato(), gateway(tmp_path, openai_server))
    assert result.plan.totals.K is None and result.plan.unknown == ["K"]
    assert result.plan.basis_of("K") == "no cited figure"


def test_a_total_far_from_the_regions_method_is_warned_naming_the_method(tmp_path, openai_server):
    openai_server.reply(responses_body(ANSWER))
    document = {"crop_profile": profile("Winterweizen"), "region": "Bayern", "nmin": 30}
    result = recommend(document, gateway(tmp_path, openai_server))
    asked = openai_server.requests[0][1]["input"]
    assert "Soil mineral N (0–90 cm): 30 kg N/ha" in asked
    assert "The method this region follows is DüV 2017 (as amended 2020), Anlage 4" in asked
    # The model's 224 kg N/ha against the DüV's 230 − 30 = 200: within a quarter, no warning;
    # its 200 kg K2O/ha against wheat's maintenance 48 kg K2O/ha: warned.
    warned = [i for i in result.issues if i.code == "differs_from_method"]
    assert [i.field for i in warned] == ["P", "K"]
    assert "K2O 200 kg/ha differs from the 48 kg/ha of DüV" in warned[1].message
