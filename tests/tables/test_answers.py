"""The offline answerer reads answers, not titles: the figure a sentence about the row's subject
states, in a unit the column takes; a range stays a range; different figures are no answer."""

from pathlib import Path

import pytest
from sqlalchemy import select

from webapp.extensions import db
from webapp.library.search import Passage
from webapp.tables.answers import read_number, read_text, words
from webapp.tables.catalog import import_csv
from webapp.tables.coerce import coerce_value
from webapp.tables.enrichment import Target, work_on_row
from webapp.tables.models import TableRow
from webapp.tables.tools import OfflineTools

FAO_SAMPLE = Path(__file__).parent / "data" / "fao_yield_sample.csv"


def passage(text: str, title: str = "A source") -> Passage:
    return Passage(1, None, title, "https://example.org/s", text, text[:240], 1.0, "reference")


FAO_56 = passage(
    "Tomato, Tomate. FAO-56 Table 11 (lengths of crop development stages): total growing "
    "period for tomato 135–180 days.",
    "FAO Irrigation and Drainage Paper 56, Table 11",
)


def test_a_number_in_a_source_name_or_a_table_reference_is_never_the_answer():
    reading = read_number(
        [FAO_56], "How many days is the growing period of Tomato?", {"tomato"}, "days"
    )
    assert reading.answer == "135–180 days"
    assert reading.passed_over == [
        "56 Table: part of a name",
        "11: a reference (table, page, section …)",
    ]
    # The coercion layer makes the range its mean and says so.
    coerced = coerce_value(reading.answer, "number", unit="days")
    assert (coerced.value, coerced.valid) == (157.5, True)
    assert "The answer gives 135–180" in coerced.note


@pytest.mark.parametrize(
    "text",
    [
        "DüV 2017 Anlage 4 lists tomato among the vegetables with a growing period.",
        "See page 12 and section 4 for the tomato growing period.",
        "Tomato growing period studies began in 1987.",
    ],
)
def test_years_pages_sections_and_ordinances_are_no_answers(text):
    reading = read_number(
        [passage(text)], "What is the growing period of tomato?", {"tomato"}, None
    )
    assert reading.answer is None and reading.reason == "nothing"
    assert reading.passed_over


def test_only_a_sentence_about_the_rows_subject_answers():
    other = passage("Carrot: total growing period 100–200 days. Tomato needs staking.")
    reading = read_number(
        [other], "How many days is the growing period of Tomato?", {"tomato"}, "days"
    )
    assert reading.answer is None
    # "Sweet potatoes" is not "potato": two words of the subject, one named.
    potato = passage("Total growing period for potato 125–165 days.")
    subject = words("Sweet potatoes")
    assert (
        read_number([potato], "Growing period of Sweet potatoes in days?", subject, "days").answer
        is None
    )
    assert (
        read_number(
            [potato], "Growing period of Potatoes in days?", words("Potatoes"), "days"
        ).answer
        == "125–165 days"
    )


def test_a_figure_in_a_unit_the_column_does_not_take_is_passed_over():
    text = passage("Field tomato yields 0.12–0.25 kg/plant in that growing period.")
    reading = read_number([text], "What is the yield of tomato?", {"tomato"}, "t/ha")
    assert reading.answer is None
    assert "cannot be converted to t/ha" in reading.passed_over[0]
    # A number without a unit does not answer for a column that has one.
    bare = read_number(
        [passage("The tomato yield was 12.")], "What is the yield of tomato?", {"tomato"}, "t/ha"
    )
    assert bare.answer is None and bare.passed_over == ["12: no unit (the column is in t/ha)"]


def test_two_different_figures_are_ambiguous_and_both_are_kept_in_the_trace():
    sources = [
        FAO_56,
        passage("FAO crop information: the total growing period of tomato is 90–150 days."),
    ]
    reading = read_number(
        sources, "How many days is the growing period of Tomato?", {"tomato"}, "days"
    )
    assert (reading.answer, reading.reason) == (None, "ambiguous")
    assert [c["figure"] for c in reading.trace()["candidates"]] == ["135–180 days", "90–150 days"]
    # The same figure twice is one answer.
    twice = read_number(
        [FAO_56, FAO_56], "How many days is the growing period of Tomato?", {"tomato"}, "days"
    )
    assert twice.answer == "135–180 days"


def test_a_figure_in_another_unit_of_the_same_kind_answers_and_converts():
    text = passage("Lettuce matures 6–8 weeks after sowing, its growing period.")
    reading = read_number([text], "How long is the growing period of lettuce?", {"lettuce"}, "days")
    assert reading.answer == "6–8 weeks"
    assert coerce_value(reading.answer, "number", unit="days").value == 49


def test_a_year_answers_when_the_question_asks_for_one():
    text = passage("Acme was founded in 1952 in Leeds.")
    assert read_number([text], "What year was Acme founded?", {"acme"}, None).answer == "1952"


def test_text_answers_come_from_sentences_about_the_subject_not_titles():
    doc = passage("Leeks prefer cool weather. Tomato plants need warm soil.", "Tomato handbook")
    reading = read_text([doc], "What soil does the leek prefer?", {"leek"})
    assert reading.answer == "Leeks prefer cool weather."


@pytest.mark.parametrize("strategy", ["lookup", "research"])
def test_the_fao_yield_table_gets_the_growing_period_its_sources_state_or_nothing(app, strategy):
    """Quick Lookup and Deep Research, offline, over a public FAO yield table: once 56 (from
    "FAO-56") for every crop, medium confidence. Now each crop the library knows gets the
    figure a source states for it, and every other crop gets nothing."""
    table = import_csv("FAO yields", FAO_SAMPLE.read_text(encoding="utf-8"), {}, None)
    target = Target(99, "99", "Growing period", "number", "days", ())
    params = {
        "strategy": strategy,
        "params": {"question": "How many days is the growing period of {Item}?"},
    }
    names = {c.key: c.name for c in table.columns}
    found: dict[str, set] = {}
    for row in db.session.scalars(select(TableRow).where(TableRow.table_id == table.id)):
        cells = {names[k]: v for k, v in row.cells.items()}
        entry = work_on_row(cells, params, target, OfflineTools())
        found.setdefault(cells["Item"], set()).add(
            (entry["status"], entry["value"], entry["confidence"])
        )
    assert found == {
        "Maize": {("found", 152.5, "medium")},  # FAO-56: grain maize 125–180 days
        "Potatoes": {("found", 145, "medium")},  # FAO-56: potato 125–165 days
        "Wheat": {("found", 257.5, "medium")},  # FAO-56: winter wheat 180–335 days
        "Rice, paddy": {("not_found", None, "none")},
        "Sorghum": {("not_found", None, "none")},
        "Soybeans": {("not_found", None, "none")},
        "Cassava": {("not_found", None, "none")},
        "Sweet potatoes": {("not_found", None, "none")},
    }
    assert all(56 not in {v for _s, v, _c in values} for values in found.values())
