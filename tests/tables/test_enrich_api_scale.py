import dataclasses

import pytest
from flask import current_app

from tests.support.tables import make_table
from webapp.ai.client import StructuredClient
from webapp.config import ConfigError, load_settings
from webapp.extensions import db
from webapp.jobs.models import Run
from webapp.tables.runs import cost_basis


@pytest.fixture
def scores():
    return make_table(
        "Scores",
        [("Name", "text"), ("Score", "number"), ("Note", "text")],
        [{"Name": f"n{i}"} for i in range(60)],
    )


def enrich(client, table, **body):
    body = {"target_column": "Score", "strategy": "computation", "params": {"formula": "1"}, **body}
    return client.post(
        f"/api/v1/tables/{table.id}/enrich",
        json=body,
        headers={"X-CSRFToken": client.csrf_token("/")},
    )


def test_the_api_takes_more_than_twenty_rows_in_one_run(client_as, idle_queue, scores):
    answer = enrich(client_as("editor"), scores)
    assert answer.status_code == 202
    body = answer.get_json()
    run = db.session.get(Run, body["run_id"])
    assert body["rows"] == 60 and run.total == 60
    assert body["estimated_cost"] is None  # the safe evaluator calls no model


def test_above_the_cap_the_api_answers_422_naming_it(client_as, idle_queue, scores, monkeypatch):
    capped = dataclasses.replace(current_app.config["FURROW"], max_rows_per_run=50)
    monkeypatch.setitem(current_app.config, "FURROW", capped)
    answer = enrich(client_as("editor"), scores)
    assert answer.status_code == 422
    error = answer.get_json()["error"]
    assert error["code"] == "too_many_rows"
    assert error["message"] == (
        "At most 50 rows per run (FURROW_MAX_ROWS_PER_RUN); these are 60: "
        "split them over several runs."
    )
    assert db.session.query(Run).count() == 0


def test_the_cap_is_a_setting(tmp_path):
    assert load_settings({"FURROW_INSTANCE_PATH": str(tmp_path)}).max_rows_per_run == 10_000
    env = {"FURROW_INSTANCE_PATH": str(tmp_path), "FURROW_MAX_ROWS_PER_RUN": "250"}
    assert load_settings(env).max_rows_per_run == 250
    with pytest.raises(ConfigError, match="FURROW_MAX_ROWS_PER_RUN must be at least 1"):
        load_settings({**env, "FURROW_MAX_ROWS_PER_RUN": "0"})


def test_an_llm_strategy_answers_with_its_cost_estimate(
    client_as, idle_queue, scores, openai_server, monkeypatch
):
    settings = dataclasses.replace(
        current_app.config["FURROW"],
        provider="openai",
        openai_base_url=openai_server.base_url,
        openai_api_key="sk-t",
        openai_model="gpt-5-mini",
    )
    monkeypatch.setitem(current_app.config, "FURROW", settings)
    editor = client_as("editor")
    lookup = enrich(editor, scores, strategy="lookup", params={"question": "{Name}?"})
    assert lookup.status_code == 202
    estimate = lookup.get_json()["estimated_cost"]
    # 2,000 input tokens at 0.25 USD, 100 output at 2 USD a million, a search at 0.01 USD.
    per_row = 2000 / 1e6 * 0.25 + 100 / 1e6 * 2.0 + 0.01
    assert estimate["rows"] == 60 and estimate["model"] == "gpt-5-mini"
    assert estimate["per_row_usd"] == pytest.approx(per_row)
    assert estimate["usd"] == round(60 * per_row, 2) == 0.64
    assert estimate["typical_row"] == {
        "input_tokens": 2000,
        "output_tokens": 100,
        "web_searches": 1,
    }

    deep = enrich(
        editor,
        scores,
        target_column="Name",
        strategy="research",
        params={"question": "{Name}?", "thoroughness": "comprehensive"},
    )
    assert deep.get_json()["estimated_cost"]["usd"] > estimate["usd"]
    # A model no price is known for, on a server elsewhere: no sum is guessed.
    remote = "https://inference.example.org/v1"
    unpriced = dataclasses.replace(settings, openai_model="other-model", openai_base_url=remote)
    monkeypatch.setitem(current_app.config, "FURROW", unpriced)
    beyond = {"formula": "CONCAT({Name})"}  # beyond the safe evaluator: each row asks the model
    note = enrich(editor, scores, target_column="Note", params=beyond)
    assert note.status_code == 202
    estimate = note.get_json()["estimated_cost"]
    assert estimate["usd"] is None
    assert estimate["basis"] == "No price is known for other-model: set FURROW_OPENAI_PRICES."
    # The same model on a server of this machine costs nothing.
    local = StructuredClient(dataclasses.replace(settings, openai_model="other-model"))
    assert cost_basis(local, bool(local.price())) == "A local server: no cost."
