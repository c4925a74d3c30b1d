"""Covered means answered: a sentence that restates a requirement's question, heading or
template prompt is not evidence; one that states something is."""

import pytest

from webapp.registry.answers import answer_text, answer_units, answers, sentences, states_any
from webapp.registry.checklist import StructuredField as F
from webapp.registry.checklist import bundled

REQUIREMENTS = {r.requirement_id: r for r in bundled().requirements}
# Each requirement's own words, as a registry template prints them.
PROMPTS = [
    (r.requirement_id, text)
    for r in bundled().requirements
    for text in (r.requirement_text, r.accepted_evidence, r.category)
]


@pytest.mark.parametrize(("requirement", "text"), PROMPTS)
def test_a_requirements_own_words_never_answer_it(requirement, text):
    assert not answer_text(text, REQUIREMENTS[requirement])


@pytest.mark.parametrize(
    ("requirement", "text"),
    [
        ("REQ-023", "[Insert a summary of the public consultation]"),
        ("REQ-023", "Was public consultation undertaken?"),
        ("REQ-007", "Project start date: [dd/mm/yyyy]"),
        ("REQ-007", "Project ID: ________"),
        ("REQ-017", "This section describes the monitoring plan and who is responsible."),
        ("REQ-013", "Permanence Period: the project shall have a 10-year permanence period"),
        ("REQ-020", "Guidance: list the mitigation plans agreed with neighbours."),
        ("REQ-006", "3.4 Credit ownership"),
    ],
)
def test_questions_prompts_placeholders_and_headings_do_not_answer(requirement, text):
    assert not answers(text, REQUIREMENTS[requirement])


@pytest.mark.parametrize(
    ("requirement", "text"),
    [
        ("REQ-001", "The project applies version 1.2.2 of the soil carbon methodology."),
        (
            "REQ-005",
            "The boundary holds soil organic carbon as its only sink; fuel is a source.",
        ),
        ("REQ-021", "Neighbouring farmers and the parish council were consulted in March 2023."),
        ("REQ-022", "No environmental impact assessment was required for a change in grazing."),
        ("REQ-007", "Project start date: 1 April 2024"),
        ("REQ-007", "Project ID: 123456Example23"),
        ("REQ-013", "The project shall have a 40-year permanence period."),
        ("REQ-017", "Soil organic carbon is sampled every five years at stratified points."),
        ("REQ-006", "The credits belong to the landowner, who receives 80 % of the proceeds."),
        ("REQ-002", "The Holloway family restores grassland soils; the trust favours grazing."),
    ],
)
def test_statements_answer(requirement, text):
    assert answers(text, REQUIREMENTS[requirement])


def test_a_passage_keeps_only_its_answering_sentences():
    passage = (
        "4.2 Local stakeholder consultation\n"
        "Describe how local stakeholders were identified and consulted.\n"
        "The parish council and six neighbouring farms were invited to two meetings;\n"
        "their questions on grazing were answered in writing. See p. 4 for the minutes."
    )
    assert next(iter(sentences(passage))) == "4.2 Local stakeholder consultation"
    answered = answer_text(passage, REQUIREMENTS["REQ-021"])
    assert answered.startswith("The parish council") and "Describe" not in answered


@pytest.mark.parametrize(
    ("fields", "text", "states"),
    [
        ([F.project_start_date], "The project start date is 1 April 2024.", True),
        ([F.project_start_date], "The project start date is given below.", False),
        ([F.project_start_date], "Sampling took place on 1 April 2024.", False),  # no field named
        ([F.permanence_period_years], "The permanence period is 40 years.", True),
        ([F.buffer_pool_percentage], "20 % of each issuance goes to the buffer pool.", True),
        ([F.owner_name], "The land is owned by Margaret Holloway.", True),
        ([F.owner_name], "The land is owned by the landowner.", False),
        ([F.area_hectares], "The project area is 412.6 ha.", True),
        ([F.project_id], "The project ID is 123456Example23.", True),
        ([F.credits_pending_issue], "Credits Pending Issue 584 credits", True),
        ([F.credits_total], "Total 730 credits", True),
        ([F.credits_total], "Credits Pending Issue 584 credits", False),
    ],
)
def test_a_field_is_stated_with_its_name_and_a_value_of_its_kind(fields, text, states):
    assert states_any(fields, [text]) is states


# As registry plans are written in Markdown (the real Botany Farm plan, tests/registry/data/botany).
@pytest.mark.parametrize(
    ("requirement", "text"),
    [
        ("REQ-001", "_Indicate the Credit Class and Methodology this project will employ_"),
        ("REQ-021", "- _Describe how local stakeholders were_\n_identified and consulted._"),
        ("REQ-015", "_Indicate whether the project has been registered, or is seeking_\n"
                    "_registration under any other GHG programs. Where the project has been_\n"
                    "_registered, provide the registration number._"),
    ],
)  # fmt: skip
def test_a_templates_guidance_in_italics_does_not_answer(requirement, text):
    assert answer_text(text, REQUIREMENTS[requirement]) == ""


def test_markdown_answers_are_read():
    boundary = REQUIREMENTS["REQ-005"]
    row = "|Soil - Reservoir and Sink|CO2|Soil is the largest<br>terrestrial reservoir of carbon.|"
    assert answers(next(iter(sentences(row))), boundary)  # <br> is no placeholder
    linked = "The technology is described at [Technology — Ecometric](https://ecometric.co.uk)."
    assert answers(linked, boundary)  # a link is no placeholder
    version = "|**Credit Class Version**|1.5.1|\n|---|---|\n|**Methodology Version**|1.1|"
    assert list(sentences(version)) == ["Credit Class Version: 1.5.1", "Methodology Version: 1.1"]
    assert answer_text(version, REQUIREMENTS["REQ-001"]) == (
        "Credit Class Version: 1.5.1 Methodology Version: 1.1"
    )
    assert list(sentences("|---|---|")) == []


def test_a_bare_value_answers_with_the_question_before_it():
    start = REQUIREMENTS["REQ-007"]
    passage = (
        "_Indicate and justify the project start date, specifying the day, month, and year._\n"
        "01/01/2022. The project will be aligned with the calendar year."
    )
    units = answer_units(passage, start)
    assert units[0].endswith("year._ 01/01/2022.") and states_any([F.project_start_date], units)
    assert not answers("19 Safeguards", REQUIREMENTS["REQ-019"])  # a heading, no value
