"""With the openai provider (the loopback server): the calculators answer first, the model
answers what they cannot with the calculators as its tool; its answer is checked like any
untrusted input, stored as suggestions with the run's usage, and kept in the value's
conversation. A provider error is that cell's error; the run goes on."""

import copy
import json

import pytest
from sqlalchemy import select

from tests.support.openai_server import (
    chat_body,
    chat_tool_call,
    openai_settings,
    responses_body,
    responses_function_call,
)
from tests.support.tables import run_here
from tests.systems.test_ai_answers import GOOD
from tests.systems.test_system_api import api_client, create, itinera
from tests.tables.test_enrichment_runs import openai_app  # noqa: F401 - a fixture
from webapp.ai.client import ToolsIgnored
from webapp.extensions import db
from webapp.jobs.models import Run
from webapp.review import service as review
from webapp.review.models import Suggestion
from webapp.systems import ai
from webapp.systems.document import assumptions_path, flat_values, value_entry, value_path
from webapp.systems.models import System
from webapp.systems.runs import SystemCalculation, start_calculation

# Runs are worked here; the app asks the loopback server (openai_server) for this module.
pytestmark = pytest.mark.usefixtures("idle_queue", "openai_app")

DOCUMENT = itinera()
STEP = DOCUMENT["steps"][0]
LABOUR = STEP["interventions"][0]
SEEDS = value_path(STEP["id"], LABOUR["id"], "semences")


def answer(**changes):
    return responses_body(GOOD | changes, searches=0)


def calculate(client, system_id, key="semences", **more):
    body = {"step_id": STEP["id"], "intervention_id": LABOUR["id"], "key": key} | more
    sent = client.post(f"/api/v1/systems/{system_id}/calculate", json=body, headers=client.headers)
    assert sent.status_code == 202, sent.get_json()
    return run_here(db.session.get(Run, sent.get_json()["run_id"]), SystemCalculation())


def suggestions(run):
    query = select(Suggestion).where(Suggestion.run_id == run.id).order_by(Suggestion.id)
    return {s.field: s for s in db.session.scalars(query)}


def entry(system_id, path=SEEDS):
    db.session.expire_all()
    return value_entry(db.session.get(System, system_id).document, path)


def test_the_model_calls_a_calculator_then_answers_as_a_suggestion(
    client_as, make_user, openai_server
):
    openai_server.reply(responses_function_call("calculate", {"key": "gnr"}))
    openai_server.reply(answer())
    editor = api_client(client_as, "editor")
    system_id = create(editor).get_json()["id"]
    run = calculate(editor, system_id)

    assert run.status == "succeeded" and run.provider == "openai" and run.mode == "calculate"
    first, second = (body for _path, body in openai_server.requests)
    assert {"type": "function", "name": "calculate"}.items() <= first["tools"][1].items()
    for text in (STEP["name"], LABOUR["name"], "semences", "€/ha"):
        assert text in first["input"]
    output = next(i for i in second["input"] if i.get("type") == "function_call_output")
    assert json.loads(output["output"])["value"] == 21.0  # the fuel calculator's answer
    assert (run.input_tokens, run.output_tokens) == (1300, 220) and run.cost_usd > 0

    found = suggestions(run)
    seeds = found[SEEDS]
    assert (seeds.suggested_value, seeds.unit, seeds.confidence) == (94.5, "€/ha", "medium")
    assert seeds.status == "pending" and seeds.evidence[0]["title"] == GOOD["sources"][0]["title"]
    step_assumptions = found[assumptions_path(STEP["id"])]
    assert step_assumptions.suggested_value.endswith("- **Dose de semis**: 150 kg/ha\n")
    assert run.results[SEEDS]["assumptions_field"] == assumptions_path(STEP["id"])

    conversation = entry(system_id)["conversation"]
    assert [m["role"] for m in conversation] == ["system", "user", "assistant"]
    assert conversation[1]["action"] == "calculate" and conversation[1]["new_value"] == 94.5
    assert conversation[2]["content"].startswith(GOOD["message"])

    page = editor.get(f"/review/runs/{run.id}").get_data(as_text=True)
    assert "new assumptions of the step" in page and "Dose de semis" in page

    applied = review.apply([seeds.id, step_assumptions.id], make_user("reviewer"))
    db.session.commit()
    assert len(applied.applied) == 2, applied.refused
    values = flat_values(db.session.get(System, system_id).document)
    assert values[SEEDS] == 94.5 and values[SEEDS + ".reviewed"] is False
    assert values[SEEDS + ".confidence"] == "medium"
    db.session.expire_all()
    step = db.session.get(System, system_id).document["steps"][0]
    assert step["assumptions"].endswith("- **Dose de semis**: 150 kg/ha\n")


@pytest.mark.parametrize(
    "replies",
    [
        [answer(value="douze"), answer(value="douze")],  # a word, asked again, a word again
        [answer(value=[12]), answer(value=[12])],
        [responses_body(json.dumps(GOOD | {"value": float("nan")}), searches=0)] * 2,
    ],
    ids=["word", "list", "nan"],
)
def test_an_answer_that_is_no_number_is_the_cells_issue(client_as, openai_server, replies):
    for reply in replies:
        openai_server.reply(reply)
    editor = api_client(client_as, "editor")
    system_id = create(editor).get_json()["id"]
    run = calculate(editor, system_id)
    # A run that calculated nothing is not green: it says why.
    assert run.status == "nothing_found" and suggestions(run) == {}
    assert "The model's answer was unusable" in run.message
    kept = run.results[SEEDS]
    assert kept["outcome"] == "not calculated" and "value" in kept["error"]
    page = editor.get(f"/review/runs/{run.id}?level=nothing").get_data(as_text=True)
    assert "The model&#39;s answer was unusable" in page


def test_out_of_bounds_and_sources_without_figures_are_issues(client_as, openai_server):
    source = GOOD["sources"][0] | {"claim": "Les semences sont chères."}
    openai_server.reply(answer(value=5000, sources=[source]))
    editor = api_client(client_as, "editor")
    system_id = create(editor).get_json()["id"]
    run = calculate(editor, system_id)
    seeds = suggestions(run)[SEEDS]
    assert seeds.status == "blocked" and seeds.evidence == []
    assert {i["code"] for i in seeds.issues} >= {"out_of_bounds", "source_without_figure"}


def test_a_provider_error_is_that_cells_error_and_the_run_goes_on(client_as, openai_server):
    openai_server.reply({"error": {"message": "bad request"}}, status=400)
    openai_server.reply(answer())
    editor = api_client(client_as, "editor")
    system_id = create(editor).get_json()["id"]
    fertiliser = value_path(STEP["id"], LABOUR["id"], "engrais")
    system = db.session.get(System, system_id)
    run = run_here(start_calculation(system, None, [SEEDS, fertiliser]), SystemCalculation())
    assert run.status == "completed_with_errors"
    assert "The provider failed" in run.item_errors[SEEDS]
    assert suggestions(run)[fertiliser].suggested_value == 94.5
    assert entry(system_id) is None  # no answer, nothing said


def test_a_calculator_with_a_value_is_not_second_guessed(client_as, openai_server):
    editor = api_client(client_as, "editor")
    system_id = create(editor).get_json()["id"]
    run = calculate(editor, system_id, key="gnr")
    assert openai_server.requests == []
    assert suggestions(run)[value_path(STEP["id"], LABOUR["id"], "gnr")].suggested_value == 21.0


def test_a_refinement_gives_the_model_the_conversation_and_the_message(client_as, openai_server):
    openai_server.reply(answer())
    openai_server.reply(answer(value=80.0, message="Avec des semences fermières : 80 €/ha."))
    editor = api_client(client_as, "editor")
    document = copy.deepcopy(DOCUMENT)
    system_id = create(editor, document=document).get_json()["id"]
    calculate(editor, system_id)
    body = {
        "step_id": STEP["id"],
        "intervention_id": LABOUR["id"],
        "key": "semences",
        "message": "Ce sont des semences fermières",
    }
    sent = editor.post(f"/api/v1/systems/{system_id}/refine", json=body, headers=editor.headers)
    assert sent.status_code == 202, sent.get_json()
    run = run_here(db.session.get(Run, sent.get_json()["run_id"]), SystemCalculation())
    assert run.mode == "refine" and run.title.startswith("Refine")
    prompt = openai_server.requests[-1][1]["input"]
    assert "assistant: " + GOOD["message"] in prompt
    assert "The user now writes: Ce sont des semences fermières" in prompt
    assert suggestions(run)[SEEDS].suggested_value == 80.0
    conversation = entry(system_id)["conversation"]
    assert [m["role"] for m in conversation] == ["system", "user", "assistant", "user", "assistant"]
    assert conversation[3]["action"] == "refine" and conversation[3]["new_value"] == 80.0
    listed = editor.get("/runs").get_data(as_text=True)
    assert run.title in listed


def test_assumptions_past_the_limit_are_an_issue_not_a_cut(client_as, openai_server):
    openai_server.reply(answer(new_assumptions_level="intervention"))
    editor = api_client(client_as, "editor")
    document = copy.deepcopy(DOCUMENT)
    document["steps"][0]["interventions"][0]["assumptions"] = "x" * 9_990
    system_id = create(editor, document=document).get_json()["id"]
    run = calculate(editor, system_id)
    found = suggestions(run)
    assert set(found) == {SEEDS}
    assert "assumptions_too_long" in {i["code"] for i in found[SEEDS].issues}


def test_with_the_model_calculate_all_missing_counts_what_it_may_propose(client_as):
    editor = api_client(client_as, "editor")
    system_id = create(editor).get_json()["id"]
    confirm = editor.get(f"/systems/{system_id}/calculate").get_data(as_text=True)
    # 31 interventions × (10 calculators + seeds and fertiliser, which the model proposes)
    assert "<strong>372</strong> empty values" in confirm


def test_chat_servers_get_the_calculator_as_a_function_too(tmp_path, openai_server):
    openai_server.reply(chat_tool_call("calculate", {"key": "gnr"}))
    openai_server.reply(chat_body(json.dumps(GOOD)))
    settings = openai_settings(tmp_path, openai_server, FURROW_OPENAI_API="chat")
    read = ai.ask(settings, {"name": "Bocage"}, DOCUMENT, SEEDS)
    assert read.value == 94.5 and read.usage.input_tokens == 1000
    first, second = (body for _path, body in openai_server.requests)
    assert first["tools"][0]["function"]["name"] == "calculate"
    tool = next(m for m in second["messages"] if m["role"] == "tool")
    assert json.loads(tool["content"])["value"] == 21.0


def test_the_model_may_call_tools_three_rounds_then_must_answer(tmp_path, openai_server):
    for n in range(3):
        openai_server.reply(responses_function_call("calculate", {"key": "gnr"}, f"call_{n}"))
    openai_server.reply(answer())
    read = ai.ask(openai_settings(tmp_path, openai_server), {"name": "Bocage"}, DOCUMENT, SEEDS)
    assert read.value == 94.5
    offered = [[t["type"] for t in body["tools"]] for _path, body in openai_server.requests]
    assert offered == [["web_search", "function"]] * 3 + [["web_search"]]


def test_with_the_model_the_drawer_refines_a_value_no_calculator_gives(client_as):
    editor = api_client(client_as, "editor")
    system_id = create(editor).get_json()["id"]
    query = f"step={STEP['id']}&intervention={LABOUR['id']}&key=semences"
    page = editor.get(f"/systems/{system_id}/cell/drawer?{query}").get_data(as_text=True)
    assert f'action="/systems/{system_id}/cell/refine"' in page
    assert "Calculate</button>" in page and "The calculator needs" not in page


def test_an_applied_model_answer_is_the_model_s_in_a_file_with_statuses(
    client_as, make_user, openai_server
):
    openai_server.reply(answer())
    editor = api_client(client_as, "editor")
    system_id = create(editor, document=itinera("itinera-text-values.json")).get_json()["id"]
    body = {"step_id": "step-ble", "intervention_id": "int-herbicide", "key": "semences"}
    sent = editor.post(f"/api/v1/systems/{system_id}/calculate", json=body, headers=editor.headers)
    assert sent.status_code == 202, sent.get_json()
    run = run_here(db.session.get(Run, sent.get_json()["run_id"]), SystemCalculation())
    path = value_path("step-ble", "int-herbicide", "semences")
    applied = review.apply([suggestions(run)[path].id], make_user("reviewer"))
    db.session.commit()
    assert len(applied.applied) == 1, applied.refused
    made = entry(system_id, path)
    assert (made["value"], made["reviewed"], made["status"]) == (94.5, False, "ia")
    assert made["confidence"] == "medium"


def test_a_value_a_calculator_handles_needs_the_tool_called_first(tmp_path, openai_server):
    # A chat template without tools: asked to call the calculator, it answers straight away.
    openai_server.reply(chat_body(json.dumps(GOOD)))
    settings = openai_settings(
        tmp_path, openai_server, FURROW_OPENAI_API="chat", OPENAI_MODEL="gemma-3-270m"
    )
    fuel = value_path(STEP["id"], LABOUR["id"], "gnr")
    with pytest.raises(ToolsIgnored, match="does not support tools"):
        ai.ask(settings, {"name": "Bocage"}, DOCUMENT, fuel)
    first = openai_server.requests[0][1]
    assert first["tool_choice"] == "required" and first["max_tokens"] == ai.ANSWER_TOKENS
    assert "cite only sources the `calculate` tool gave you" in first["messages"][0]["content"]
    # A value no calculator gives may be answered without one: the tool stays optional.
    openai_server.reply(chat_body(json.dumps(GOOD)))
    read = ai.ask(settings, {"name": "Bocage"}, DOCUMENT, SEEDS)
    assert "tool_choice" not in openai_server.requests[1][1] and read.value == 94.5
    assert read.evidence == []  # its “Arvalis” was never given to it


def test_a_refine_on_a_server_that_ignores_tools_says_so_and_is_not_green(client_as, openai_server):
    openai_server.reply(answer())  # no call to the calculator it was required to make
    editor = api_client(client_as, "editor")
    system_id = create(editor).get_json()["id"]
    body = {"step_id": STEP["id"], "intervention_id": LABOUR["id"], "key": "gnr", "message": "?"}
    sent = editor.post(f"/api/v1/systems/{system_id}/refine", json=body, headers=editor.headers)
    assert sent.status_code == 202, sent.get_json()
    run = run_here(db.session.get(Run, sent.get_json()["run_id"]), SystemCalculation())
    fuel = value_path(STEP["id"], LABOUR["id"], "gnr")
    assert run.status != "succeeded" and suggestions(run) == {}
    assert "does not support tools" in run.item_errors[fuel]
    page = editor.get(f"/review/runs/{run.id}?level=nothing").get_data(as_text=True)
    assert "does not support tools" in page
