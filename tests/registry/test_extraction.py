"""The model's evidence: a type-aware prompt, an answer schema per requirement, a cache key, and
the answer read as untrusted input (a passage must be on the text page it names)."""

import json

import pytest

from webapp.ai.answers import read_answer
from webapp.registry.checklist import StructuredField as F
from webapp.registry.checklist import bundled
from webapp.registry.extraction import (
    answer_model,
    build_prompt,
    cache_key,
    is_stated,
    read_snippets,
)
from webapp.registry.pages import pages_of

CHECKLIST = bundled()
TENURE = CHECKLIST.requirement("REQ-002")
START = CHECKLIST.requirement("REQ-007")
MONITORING = CHECKLIST.requirement("REQ-017")
PAGES = pages_of(
    [
        "Contents\n1 Overview ..... 2\n2 Land tenure ..... 3\n3 Monitoring ..... 4",
        "1 Overview\nThe Project started on 06/02/2023 in Kent.",
        "2 Land tenure\nThe farm is owned by Nicholas Denman, 250 acres held freehold.",
        "",
    ]
)


def answer(requirement, *snippets):
    model = answer_model(requirement)
    parsed, problems = read_answer(model, json.dumps({"snippets": list(snippets)}))
    assert problems == []
    return parsed


def test_the_prompt_asks_a_structured_requirement_for_its_fields_by_name():
    prompt = build_prompt(TENURE, "Deed.pdf", PAGES)
    assert "- owner_name (Owner): the owner's actual name" in prompt
    assert "never a role such as 'The Project'" in prompt
    assert "- area_hectares (Area (ha))" in prompt and "[page 3]" in prompt
    assert "[page 1]" not in prompt and "[page 4]" not in prompt  # contents, no text
    start = build_prompt(START, "Plan.pdf", PAGES)
    assert "project_start_date" in start and "do not reorder day and month" in start
    assert "a year is never an ID" in start
    plain = build_prompt(MONITORING, "Plan.pdf", PAGES)
    assert "give these fields" not in plain


def test_the_answer_schema_holds_only_the_requirements_fields():
    schema = answer_model(TENURE).model_json_schema()
    fields = schema["$defs"]["StructuredFields"]["properties"]
    assert set(fields) == {"owner_name", "area_hectares", "tenure_type"}
    assert "StructuredFields" not in json.dumps(answer_model(MONITORING).model_json_schema())
    _parsed, problems = read_answer(
        answer_model(MONITORING),
        json.dumps(
            {"snippets": [{"page": "three", "section": None, "text": "x", "confidence": 1}]}
        ),
    )
    assert problems and "snippets.0.page" in problems[0]


def test_a_requirement_with_report_figures_asks_for_them_too():
    leakage = CHECKLIST.requirement("REQ-012")
    fields = answer_model(leakage).model_json_schema()["$defs"]["StructuredFields"]["properties"]
    assert set(fields) == {
        "leakage_percentage",
        "soc_change_tco2e",
        "project_emissions_tco2e",
        "leakage_tco2e",
        "net_reductions_tco2e",
    }
    prompt = build_prompt(leakage, "Monitoring report.pdf", PAGES)
    assert "- net_reductions_tco2e (Net reductions (t CO2e)): the report's figure" in prompt
    without = leakage.model_copy(update={"figures": []})
    assert cache_key("a" * 64, leakage) != cache_key("a" * 64, without)


def test_cache_keys_change_with_document_requirement_type_and_fields():
    key = cache_key("a" * 64, TENURE)
    assert key == cache_key("a" * 64, TENURE)
    assert key != cache_key("b" * 64, TENURE)
    assert key != cache_key("a" * 64, START)
    other_type = TENURE.model_copy(update={"validation_type": MONITORING.validation_type})
    assert key != cache_key("a" * 64, other_type)


def test_only_passages_on_the_text_page_they_name_are_evidence():
    fields = {"owner_name": "Nicholas Denman", "area_hectares": "250 acres", "tenure_type": None}
    parsed = answer(
        TENURE,
        {
            "page": 3,
            "section": "2 Land tenure",
            "text": "owned by Nicholas  Denman, 250 acres",
            "confidence": 1.4,
            "structured_fields": fields,
        },
        {"page": 1, "section": None, "text": "2 Land tenure", "confidence": 0.9,
         "structured_fields": fields},
        {"page": 9, "section": None, "text": "owned", "confidence": 0.9,
         "structured_fields": fields},
        {"page": 2, "section": None, "text": "The Project owns it", "confidence": 0.9,
         "structured_fields": fields | {"owner_name": "The Project"}},
    )  # fmt: skip
    snippets, problems = read_snippets(parsed, 7, "Deed.pdf", PAGES)
    assert len(snippets) == 1
    (kept,) = snippets
    assert (kept.document_key, kept.page, kept.section, kept.confidence) == (
        7,
        3,
        "2 Land tenure",
        1.0,
    )
    assert kept.fields == {"owner_name": "Nicholas Denman", "area_hectares": "250 acres"}
    assert problems == [
        "A passage was quoted from page 1 of Deed.pdf, a contents page.",
        "A passage names page 9 of Deed.pdf, which does not exist.",
        "A passage said to be on page 2 of Deed.pdf is not there: it is not evidence.",
    ]


def test_a_heading_or_a_passage_without_confidence_is_not_evidence():
    """A small model quoted "Land tenure" (the heading) for a tenure type of "land tenure", at
    confidence 0; neither is evidence."""
    fields = {"owner_name": None, "area_hectares": None, "tenure_type": "land tenure"}
    parsed = answer(
        TENURE,
        {"page": 3, "section": None, "text": "Land tenure", "confidence": 0.8,
         "structured_fields": fields},
        {"page": 3, "section": None, "text": "2 Land tenure", "confidence": 0.8,
         "structured_fields": fields},
        {"page": 3, "section": None, "text": "The farm is owned by Nicholas Denman",
         "confidence": 0, "structured_fields": fields | {"tenure_type": "owned"}},
    )  # fmt: skip
    snippets, problems = read_snippets(parsed, 7, "Deed.pdf", PAGES)
    assert snippets == []
    assert problems == [
        "A passage on page 3 of Deed.pdf is only a heading: it is not evidence.",
        "A passage on page 3 of Deed.pdf is only a heading: it is not evidence.",
        "A passage on page 3 of Deed.pdf was given no confidence: it is not evidence.",
    ]


def test_a_field_value_not_in_its_passage_is_not_evidence():
    parsed = answer(
        TENURE,
        {
            "page": 3,
            "section": "2 Land tenure",
            "text": "owned by Nicholas Denman, 250 acres held freehold",
            "confidence": 0.9,
            "structured_fields": {
                "owner_name": "Mary Smith",
                "area_hectares": "2,500 acres",
                "tenure_type": "freehold",
            },
        },
    )
    (kept,), problems = read_snippets(parsed, 7, "Deed.pdf", PAGES)
    assert kept.fields == {"tenure_type": "freehold"}
    assert problems == [
        "Owner “Mary Smith” is not in the passage quoted from page 3 of Deed.pdf: it is not "
        "evidence.",
        "Area (ha) “2,500 acres” is not in the passage quoted from page 3 of Deed.pdf: it is not "
        "evidence.",
    ]


@pytest.mark.parametrize(
    ("name", "value", "passage", "stated"),
    [
        (F.owner_name, "Denman, Nicholas", "owned by Nicholas Denman", True),
        (F.owner_name, "N. Denman", "owned by Nicholas DENMAN", True),
        (F.owner_name, "José García", "propriété de Jose GARCIA", True),
        (F.owner_name, "王伟", "土地所有人王伟", True),  # Chinese writes no spaces
        (F.owner_name, "王伟", "土地所有人李娜", False),
        (F.owner_name, "Ann Lee", "owned by Annabel Lee", False),
        (F.owner_name, "Mary Denman", "owned by Nicholas Denman", False),
        (F.area_hectares, "1200 ha", "an area of 1,200 ha", True),
        (F.area_hectares, "120 ha", "an area of 1,200 ha", False),
        (F.leakage_percentage, "5%", "leakage is 5 % of the total", True),
        (F.project_id, "C06-4997", "registered as C06 4997", True),
        (F.project_id, "C06-4998", "registered as C06-4997", False),
        (F.project_start_date, "06/02/2023", "started on 06/02/2023", True),
        (F.project_start_date, "2023", "started in 2022", False),
        (F.tenure_type, "freehold", "held freehold", True),
    ],
)
def test_a_value_is_stated_when_its_numbers_and_names_are_in_the_passage(
    name, value, passage, stated
):
    assert is_stated(name, value, passage) is stated


def test_a_passages_section_is_the_heading_it_stands_under_not_the_models_word():
    parsed = answer(
        MONITORING,
        {"page": 2, "section": "Overview " * 60, "text": "The Project started", "confidence": 1},
    )
    (kept,), problems = read_snippets(parsed, 7, "Plan.pdf", PAGES)
    assert problems == [] and kept.section == "1 Overview"
    on_page_3 = answer(
        MONITORING,
        {"page": 3, "section": "1 Overview", "text": "owned by Nicholas", "confidence": 1},
    )
    (kept,), _problems = read_snippets(on_page_3, 7, "Plan.pdf", PAGES)
    assert kept.section == "2 Land tenure"


def test_a_quoted_question_is_no_answer():
    """The model quoting a template's question back is refused, with the reason."""
    template = pages_of(
        [
            "3 Monitoring plan\n"
            "Provide a detailed plan for ongoing monitoring, including indicators, methods, and "
            "responsibilities.\n"
            "Soil is sampled every five years at 40 stratified points by the farm manager."
        ]
    )
    question = "Provide a detailed plan for ongoing monitoring, including indicators"
    parsed = answer(
        MONITORING,
        {"page": 1, "section": "", "text": question, "confidence": 0.9},
        {"page": 1, "section": "", "text": "Soil is sampled every five years", "confidence": 0.9},
    )
    (kept,), problems = read_snippets(parsed, 7, "Plan.pdf", template, None, MONITORING)
    assert kept.text == "Soil is sampled every five years" and kept.section == "3 Monitoring plan"
    assert problems == [
        "A passage on page 1 of Plan.pdf restates the requirement's question or prompt; "
        "it does not answer it."
    ]
