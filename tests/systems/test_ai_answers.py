"""A model's answer for a cell is untrusted input: read against the strict schema, then
checked — unit, bounds, sources that state their figure — each problem an Issue on the cell."""

import json
import math

import pytest

from tests.systems.test_system_api import itinera
from webapp.ai.answers import read_answer as read_schema
from webapp.ai.answers import strict_schema
from webapp.review.vocabulary import Evidence, SourceKind
from webapp.systems.ai import CellAnswer, calculator_tool, cell_unit, describe, read_answer
from webapp.systems.document import DocumentInvalid, appended_assumptions, value_path
from webapp.systems.runs import NothingToCalculate, askable_keys, missing_cells, one_cell

PATH = value_path("s1", "i1", "semences")
GOOD = {
    "message": "Semence certifiée d'orge à 150 kg/ha.",
    "value": 94.5,
    "unit": "€/ha",
    "confidence": "medium",
    "assumptions": ["Orge, 150 kg/ha"],
    "calculation_steps": ["150 kg/ha × 0,63 €/kg = 94,5 €/ha"],
    "sources": [
        {
            "title": "Arvalis, coût des semences",
            "url": "https://www.arvalis.fr/semences",
            "claim": "Semence certifiée d'orge : 0,63 €/kg",
        }
    ],
    "caveats": [],
    "new_assumptions": "- **Dose de semis**: 150 kg/ha",
    "new_assumptions_level": "step",
}


def answered(**changes):
    return CellAnswer.model_validate(GOOD | changes)


def codes(read):
    return {(i.code, i.severity.value) for i in read.issues}


def test_the_schema_is_strict_and_names_every_field():
    schema = strict_schema(CellAnswer)
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) == set(GOOD)


@pytest.mark.parametrize(
    "text",
    [
        json.dumps(GOOD | {"value": "douze"}),
        json.dumps(GOOD | {"value": [12]}),
        json.dumps(GOOD | {"value": math.nan}),  # NaN, as a careless server writes it
        json.dumps(GOOD | {"confidence": "sure"}),
        "not json",
    ],
)
def test_an_answer_that_breaks_the_schema_is_refused_with_its_problems(text):
    answer, problems = read_schema(CellAnswer, text)
    assert answer is None and problems


def test_a_good_answer_is_a_suggestion_with_its_evidence():
    read = read_answer(answered(), PATH)
    assert (read.value, read.unit, read.confidence.value) == (94.5, "€/ha", "medium")
    assert [e.title for e in read.evidence] == ["Arvalis, coût des semences"]
    assert read.evidence[0].claim_summary == "Semence certifiée d'orge : 0,63 €/kg"
    assert read.issues == [] and read.kept["outcome"] == "suggested"
    assert (read.new_assumptions, read.level) == ("- **Dose de semis**: 150 kg/ha", "step")


def test_a_unit_that_cannot_be_converted_is_an_error():
    read = read_answer(answered(unit="€/t"), PATH)
    assert ("unit_mismatch", "error") in codes(read) and read.kept["outcome"] == "out of bounds"


def test_a_unit_that_converts_is_converted():
    read = read_answer(answered(value=30, unit="min/ha"), value_path("s1", "i1", "tempsTravail"))
    assert read.value == 0.5 and ("unit_converted", "info") in codes(read)
    assert read.kept["unit"] == "h/ha"


def test_out_of_bounds_is_an_error():
    read = read_answer(answered(value=5000), PATH)
    assert ("out_of_bounds", "error") in codes(read)


def test_a_source_without_its_figure_is_not_evidence():
    source = GOOD["sources"][0] | {"claim": "Les semences certifiées coûtent cher."}
    read = read_answer(answered(sources=[source]), PATH)
    assert read.evidence == []
    assert {("source_without_figure", "warning"), ("no_evidence", "warning")} <= codes(read)
    assert read.kept["outcome"] == "suggested"  # a warning: shown, still applicable


@pytest.mark.parametrize(
    ("claim", "figure"),
    [
        ("Barème Cerfrance 2025", False),
        ("Table 11, Section 5.4", False),
        ("FAO-56", False),
        ("Semence certifiée d'orge : 0,63 €/kg", True),
        ("Values: glyphosate 15.33", True),
        ("Coût 2025 : 61 €/ha", True),
    ],
)
def test_a_year_or_a_reference_is_not_a_figure(claim, figure):
    source = GOOD["sources"][0] | {"claim": claim}
    read = read_answer(answered(sources=[source]), PATH)
    assert (("source_without_figure", "warning") not in codes(read)) is figure
    assert bool(read.evidence) is figure


def test_no_value_is_not_calculated_with_the_models_caveats():
    read = read_answer(answered(value=None, caveats=["Je ne connais pas la variété."]), PATH)
    assert read.value is None and read.proposed() is None
    assert read.kept["outcome"] == "not calculated"
    assert ("model_caveat", "info") in codes(read)


def test_the_prompt_holds_the_three_levels_and_the_conversation():
    document = itinera()
    document["assumptions"] = "- **Sol**: limoneux"
    step = document["steps"][0]
    step["assumptions"] = "- **Culture**: orge"
    work = step["interventions"][0]
    work["assumptions"] = "- **Corps**: 5"
    path = value_path(step["id"], work["id"], "gnr")
    prompt = describe(
        {"name": "Rotation bocage", "system_type": "polyculture"},
        document,
        path,
        [{"role": "assistant", "content": "21 L/ha"}],
        "la charrue n'a que 4 corps",
    )
    for expected in (
        "Rotation bocage",
        step["name"],
        work["name"],
        "- **Sol**: limoneux",
        "- **Culture**: orge",
        "- **Corps**: 5",
        "in L/ha",
        "assistant: 21 L/ha",
        "The user now writes: la charrue n'a que 4 corps",
    ):
        assert expected in prompt


def test_the_calculator_tool_answers_with_a_calculators_result():
    document = itinera()
    step = document["steps"][0]
    tool = calculator_tool(document, step["id"], step["interventions"][0]["id"])
    result = json.loads(tool.call('{"key": "gnr"}'))
    assert result["value"] == 21.0 and result["unit"] == "L/ha"
    assert "no calculator" in tool.call('{"key": "prixVente"}').lower()
    assert "JSON object" in tool.call("[1, 2]")


def test_the_calculator_tool_keeps_the_sources_it_gave():
    document = itinera()
    step = document["steps"][0]
    given = []
    tool = calculator_tool(document, step["id"], step["interventions"][0]["id"], given)
    tool.call('{"key": "gnr"}')
    assert [e.title for e in given] == [
        "Foucault et al., cited by agriculteur-normand.com "
        "“consommation-de-carburant-travaux-de-printemps”"
    ]


def test_without_web_search_only_a_source_the_calculators_gave_is_evidence():
    # A server that cannot search made up “Arvalis” (a small model writes any address).
    invented = read_answer(answered(), PATH, given=[])
    assert invented.evidence == [] and invented.value == 94.5
    assert codes(invented) == {("source_not_given", "warning"), ("no_evidence", "warning")}
    assert "was not among the sources the calculators gave" in invented.issues[0].message
    offered = Evidence("https://www.arvalis.fr/semences", "Arvalis", "", SourceKind.web, "")
    read = read_answer(answered(), PATH, given=[offered])
    assert [e.title for e in read.evidence] == ["Arvalis, coût des semences"] and read.issues == []


def test_new_assumptions_are_added_below_what_is_there_never_past_the_limit():
    assert appended_assumptions("", "- **Corps**: 4") == "- **Corps**: 4\n"
    # A list goes on as one list; other text gets a blank line before what is added.
    assert appended_assumptions("- **Sol**: limon\n", "- **Corps**: 4") == (
        "- **Sol**: limon\n- **Corps**: 4\n"
    )
    assert appended_assumptions("Sol limoneux.", "- **Corps**: 4") == (
        "Sol limoneux.\n\n- **Corps**: 4\n"
    )
    with pytest.raises(DocumentInvalid, match="over the 10,000"):
        appended_assumptions("x" * 9_990, "- **Corps**: 4")


def quintal_step():
    """The test rotation with its first step's yield stated in q/ha."""
    document = itinera()
    step = document["steps"][0]
    step["assumptions"] = "- **Unité rendement**: q/ha\n"
    return document, value_path(step["id"], None, "rendement")


def test_a_yield_is_asked_and_read_in_its_step_s_unit():
    document, path = quintal_step()
    assert cell_unit(document, path) == "q/ha"
    assert "Rendement / Yield, in q/ha" in describe({"name": "Essai"}, document, path)
    converted = read_answer(answered(value=90, unit="t/ha"), path, "q/ha")
    assert (converted.value, converted.kept["unit"]) == (900, "q/ha")
    assert ("unit_converted", "info") in codes(converted)
    as_stated = read_answer(answered(value=72, unit="q/ha"), path, "q/ha")
    assert as_stated.value == 72 and ("unit_converted", "info") not in codes(as_stated)
    refused = read_answer(answered(value=7.2, unit="kg"), path, "q/ha")
    assert ("unit_mismatch", "error") in codes(refused)
    assert refused.kept["outcome"] == "out of bounds"  # never applied


def test_a_run_never_proposes_a_yield():
    """A yield is a step's own value, entered by a person: no calculation asks for it, so a
    run's review has no yield row to show in t/ha."""
    document, _path = quintal_step()
    step = document["steps"][0]
    assert "rendement" not in askable_keys("openai")
    assert all(not cell.endswith(".rendement") for cell in missing_cells(document))
    with pytest.raises(NothingToCalculate):
        one_cell(document, step["id"], None, "rendement", keys=askable_keys("openai"))
