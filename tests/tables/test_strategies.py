"""Strategies, the registry and the per-row flow, without a run: templates, skips, the
computation strategy, and lookup/research through the real SDK against a loopback server
(tool-call turns included)."""

import dataclasses
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.support.openai_server import (
    chat_body,
    chat_tool_call,
    openai_settings,
    responses_body,
    responses_function_call,
)
from webapp.jobs.runner import stage_events
from webapp.tables.enrichment import Target, work_on_row
from webapp.tables.strategies import (
    get_all_strategies,
    get_strategies_by_kind,
    get_strategy,
    register_strategy,
)
from webapp.tables.strategies.base import (
    EmptyReference,
    RowStep,
    RowStrategy,
    StrategyError,
    interpolate_template,
)
from webapp.tables.tools import OfflineTools, OpenAITools

FOUNDED = Target(1, "1", "Founded", "number", None, ())
SIZE = Target(2, "2", "Size", "select", None, ("small", "medium", "large"))
TOTAL = Target(3, "3", "Total", "number", None, ())


# Where a found value comes from: a model's answer without a source is not used.
CITED = ("https://registry.example.org/companies", "Company registry")


def lookup(question="What year was {Company} founded?"):
    return {"strategy": "lookup", "params": {"question": question}}


def test_templates_match_columns_case_insensitively_and_empty_cells_skip():
    row = {"Company": "Acme Corp", "City": ""}
    assert interpolate_template("When was {company} founded?", row) == "When was Acme Corp founded?"
    with pytest.raises(EmptyReference, match="City is empty"):
        interpolate_template("Where in {City}?", row)
    with pytest.raises(StrategyError, match="no column called 'Country'"):
        interpolate_template("{Country}", row)


def test_the_registry_knows_the_three_strategies_and_takes_a_new_one():
    assert {s.name for s in get_all_strategies()} >= {"lookup", "research", "computation"}
    assert get_strategy("lookup").display_name == "Quick Lookup"
    assert get_strategy("lookup").max_steps == 2 and get_strategy("computation").max_steps == 1
    assert {s.name for s in get_strategies_by_kind("action")} == set()
    with pytest.raises(StrategyError, match="no strategy called 'guess'"):
        get_strategy("guess")

    class Shout(RowStrategy):
        name = "shout"
        display_name = "Shout"
        kind = "action"
        max_steps = 1

        def execute_one(self, row, params, tools, target):
            yield RowStep("answer", interpolate_template(params["question"], row).upper())

    register_strategy(Shout())
    assert [s.name for s in get_strategies_by_kind("action")] == ["shout"]
    entry = work_on_row({"Name": "oat"}, {"strategy": "shout", "params": {"question": "{Name}"}},
                        Target(9, "9", "Loud", "text", None, ()), OfflineTools())  # fmt: skip
    assert (entry["status"], entry["value"]) == ("found", "OAT")


def test_computation_evaluates_skips_empty_cells_and_needs_a_model_for_more():
    params = {"strategy": "computation", "params": {"formula": "round({Price} * {Qty}, 2)"}}
    entry = work_on_row({"Price": 2.5, "Qty": 4}, params, TOTAL, OfflineTools())
    # Evaluated exactly: high, although the offline provider's own answers stop at medium.
    assert (entry["status"], entry["value"], entry["confidence"]) == ("found", 10, "high")
    divided = {"strategy": "computation", "params": {"formula": "{Price} / {Qty}"}}
    assert (
        work_on_row({"Price": 1, "Qty": 8}, divided, TOTAL, OfflineTools())["confidence"] == "high"
    )
    assert [s["type"] for s in entry["steps"]] == ["compute", "answer"]
    skipped = work_on_row({"Price": 2.5, "Qty": None}, params, TOTAL, OfflineTools())
    assert (skipped["status"], skipped["error"]) == ("skipped", "Skipped: Qty is empty.")
    complex_formula = {"strategy": "computation", "params": {"formula": "IF({Price} > 2, 1, 0)"}}
    offline = work_on_row({"Price": 3}, complex_formula, TOTAL, OfflineTools())
    assert offline["status"] == "error" and "needs an LLM provider" in offline["error"]
    broken = {"strategy": "computation", "params": {"formula": "{Price} / 0"}}
    assert work_on_row({"Price": 3}, broken, TOTAL, OfflineTools())["status"] == "error"


def test_a_complex_formula_goes_to_the_model(tmp_path, openai_server):
    openai_server.reply(responses_body("1", searches=0))
    tools = OpenAITools(openai_settings(tmp_path, openai_server))
    params = {"strategy": "computation", "params": {"formula": "IF({Price} > 2, 1, 0)"}}
    entry = work_on_row({"Price": 3}, params, TOTAL, tools)
    # The model's computation is not exact arithmetic: no more sure than the model.
    assert (entry["status"], entry["value"], entry["confidence"]) == ("found", 1, "high")
    assert "result" not in next(s for s in entry["steps"] if s["type"] == "compute")["data"]
    sent = openai_server.requests[0][1]
    assert "tools" not in sent and "IF({Price} > 2, 1, 0)" in sent["input"][0]["content"]


def test_lookup_answers_from_search_snippets_in_one_call(tmp_path, openai_server):
    openai_server.reply(
        responses_body(
            "Based on my research, 2010.",
            citations=[("https://acme.example/about", "About Acme")],
            searches=2,
        )
    )
    tools = OpenAITools(openai_settings(tmp_path, openai_server))
    while not stage_events.empty():
        stage_events.get_nowait()
    entry = work_on_row({"Company": "Acme Corp"}, lookup(), FOUNDED, tools, key="7")
    assert stage_events.get_nowait() == ("7", "searching")  # what the run page shows
    assert (entry["status"], entry["value"], entry["confidence"]) == ("found", 2010, "medium")
    assert entry["raw_value"] == "Based on my research, 2010."
    assert [s["type"] for s in entry["steps"]][:3] == ["search", "search", "answer"]
    assert entry["sources"] == [{"title": "About Acme", "url": "https://acme.example/about"}]
    sent = openai_server.requests[0][1]
    assert sent["tools"] == [{"type": "web_search"}]  # snippets only: no page reading
    assert sent["max_tool_calls"] == 1 and "What year was Acme Corp founded?" in str(sent["input"])
    assert "Could not determine an answer." in sent["instructions"]
    assert tools.usage.web_searches == 2


def test_a_not_found_answer_leaves_the_cell_empty(tmp_path, openai_server):
    openai_server.reply(responses_body("Could not determine an answer.", searches=1))
    tools = OpenAITools(openai_settings(tmp_path, openai_server))
    entry = work_on_row({"Company": "Nobody Ltd"}, lookup(), FOUNDED, tools)
    assert (entry["status"], entry["value"], entry["confidence"]) == ("not_found", None, "none")


@pytest.fixture
def page_server():
    """A web page the research agent reads (allowed explicitly: it is on loopback)."""

    class Page(BaseHTTPRequestHandler):
        def do_GET(self):
            body = b"<html><title>Acme history</title><body><p>Acme is a large firm.</p></body>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
    ).start()
    yield f"127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_research_searches_reads_a_page_through_our_fetch_and_answers(
    tmp_path, openai_server, page_server
):
    url = f"http://{page_server}/history"
    openai_server.reply(responses_function_call("fetch_page", {"url": url}))
    openai_server.reply(responses_body("large", searches=0))
    settings = openai_settings(tmp_path, openai_server, FURROW_FETCH_ALLOW_HOSTS=page_server)
    params = {"strategy": "research", "params": {"question": "How big is {Company}?"}}
    entry = work_on_row({"Company": "Acme"}, params, SIZE, OpenAITools(settings))
    assert (entry["status"], entry["value"], entry["confidence"]) == ("found", "large", "high")
    assert [s["type"] for s in entry["steps"]] == ["fetch", "answer"]
    assert entry["steps"][0]["data"]["url"] == url
    first, second = (body for _path, body in openai_server.requests)
    assert first["tool_choice"] == "required"  # search (or read) before answering
    assert {t.get("name", t["type"]) for t in first["tools"]} == {"web_search", "fetch_page"}
    output = second["input"][-1]
    assert output["type"] == "function_call_output" and "Acme is a large firm." in output["output"]


def test_research_refuses_to_read_private_addresses(tmp_path, openai_server):
    openai_server.reply(
        responses_function_call("fetch_page", {"url": "http://169.254.169.254/latest/"})
    )
    openai_server.reply(responses_body("Could not determine an answer.", searches=0))
    params = {"strategy": "research", "params": {"question": "How big is {Company}?"}}
    entry = work_on_row(
        {"Company": "Acme"}, params, SIZE, OpenAITools(openai_settings(tmp_path, openai_server))
    )
    assert entry["steps"][0]["type"] == "error"
    assert "Could not read the page" in openai_server.requests[1][1]["input"][-1]["output"]


def test_malformed_tool_arguments_and_answers_are_that_rows_finding(tmp_path, openai_server):
    """A model that calls a tool with a list for arguments, then answers a word for a number:
    the row says so; nothing raises."""
    openai_server.reply(responses_function_call("fetch_page", [1, 2]))
    openai_server.reply(responses_body("plenty", citations=[CITED], searches=0))
    params = {"strategy": "research", "params": {"question": "How big is {Company}?"}}
    tools = OpenAITools(openai_settings(tmp_path, openai_server))
    entry = work_on_row({"Company": "Acme"}, params, TOTAL, tools)
    assert entry["steps"][0]["type"] == "error"  # a fetch of "" refused, the run goes on
    assert (entry["status"], entry["valid"], entry["error_code"]) == (
        "not_found",
        False,
        "value_malformed",
    )
    assert entry["error"] == "No number in the answer 'plenty'."


def test_a_select_answer_that_matches_no_option_is_invalid_until_edited(tmp_path, openai_server):
    openai_server.reply(responses_body("gigantic", citations=[CITED], searches=1))
    params = {"strategy": "research", "params": {"question": "How big is {Company}?"}}
    tools = OpenAITools(openai_settings(tmp_path, openai_server))
    entry = work_on_row({"Company": "Acme"}, params, SIZE, tools)
    assert (entry["status"], entry["confidence"], entry["valid"]) == ("found", "low", False)


def test_comprehensive_research_assesses_coverage(app, tmp_path, openai_server):
    openai_server.reply(responses_body("medium", citations=[CITED], searches=3))
    openai_server.reply(responses_body("low", searches=0))
    params = {
        "strategy": "research",
        "params": {"question": "How big is {Company}?", "thoroughness": "comprehensive"},
    }
    entry = work_on_row(
        {"Company": "Acme"}, params, SIZE, OpenAITools(openai_settings(tmp_path, openai_server))
    )
    assert entry["thoroughness"] == "comprehensive" and entry["coverage"] == "low"
    assert entry["confidence"] == "low"  # never surer than its coverage
    assert "at least three different query angles" in openai_server.requests[0][1]["instructions"]
    assert get_strategy("research").concurrency(params["params"]) == 2


def test_chat_mode_searches_the_document_library_as_a_tool(app, tmp_path, openai_server):
    openai_server.reply(chat_tool_call("search_documents", {"query": "tomato nitrogen"}))
    openai_server.reply(chat_body("120"))
    settings = openai_settings(
        tmp_path, openai_server, FURROW_OPENAI_API="chat", OPENAI_MODEL="llama3"
    )
    params = {"strategy": "lookup", "params": {"question": "N demand of {Crop}?"}}
    entry = work_on_row({"Crop": "tomato"}, params, FOUNDED, OpenAITools(settings))
    assert (entry["status"], entry["value"]) == ("found", 120)
    first, second = (body for _path, body in openai_server.requests)
    assert first["tools"][0]["function"]["name"] == "search_documents"
    assert second["messages"][-1]["role"] == "tool"
    assert "fao.org" in second["messages"][-1]["content"]  # the reference library is indexed


def test_a_server_that_ignores_a_required_tool_is_said_and_its_answer_not_used(
    app, tmp_path, openai_server
):
    """A chat template without tool support answers at once: a lookup that had to search
    first takes nothing from it."""
    openai_server.reply(chat_body("1998"))
    settings = openai_settings(
        tmp_path, openai_server, FURROW_OPENAI_API="chat", OPENAI_MODEL="gemma-3-270m"
    )
    params = {"strategy": "lookup", "params": {"question": "When was {Company} founded?"}}
    entry = work_on_row({"Company": "Acme"}, params, FOUNDED, OpenAITools(settings))
    assert openai_server.requests[0][1]["tool_choice"] == "required"
    assert entry["status"] != "found" and entry.get("value") is None
    assert "does not support tools" in entry["error"]
    assert [s["type"] for s in entry["steps"]] == ["error"]


def test_a_number_is_never_read_out_of_rambling(tmp_path, openai_server):
    """A small model's paragraphs mention numbers; none of them is the cell's value."""
    ramble = (
        "Peas are a cool-season crop. The time to germination depends on the soil: a 3-digit "
        "number of growing degree days is often quoted, and gardeners speak of weeks. "
    ) * 20
    openai_server.reply(responses_body(ramble, citations=[CITED], searches=1))
    params = {"strategy": "lookup", "params": {"question": "Days to germination of {Company}?"}}
    tools = OpenAITools(openai_settings(tmp_path, openai_server))
    entry = work_on_row({"Company": "pea"}, params, FOUNDED, tools)
    assert (entry["status"], entry["value"]) == ("error", None)
    assert entry["error"].startswith(f"The answer is {len(ramble.strip()):,} characters of text")


def test_an_answer_that_cites_nothing_is_not_a_found_value(tmp_path, openai_server):
    openai_server.reply(responses_body("1998", searches=1))  # searched, cited nothing
    params = {"strategy": "lookup", "params": {"question": "When was {Company} founded?"}}
    tools = OpenAITools(openai_settings(tmp_path, openai_server))
    entry = work_on_row({"Company": "Acme"}, params, FOUNDED, tools)
    assert (entry["status"], entry["value"]) == ("error", None)
    assert entry["error"] == "The answer cites no source: a value found without one is not used."
    assert entry["steps"][-1]["data"]["raw"] == "1998"  # kept in the trace for a person


def test_rows_asked_of_a_model_at_once_are_a_setting(app):
    saved = app.config["FURROW"]
    app.config["FURROW"] = dataclasses.replace(saved, model_concurrency=5)
    try:
        assert get_strategy("lookup").concurrency(lookup()["params"]) == 5
        assert get_strategy("research").concurrency({"question": "q"}) == 5
        comprehensive = {"question": "q", "thoroughness": "comprehensive"}
        assert get_strategy("research").concurrency(comprehensive) == 2
        # The evaluator's rows are worked in turn: threads would take turns at the interpreter.
        assert get_strategy("computation").quick({"formula": "{a} * 2"})
        assert not get_strategy("computation").quick({"formula": "IF({a} > 2, 1, 0)"})
        assert get_strategy("computation").concurrency({"formula": "IF({a} > 2, 1, 0)"}) == 5
    finally:
        app.config["FURROW"] = saved
