"""A model's answer is untrusted input: whatever shape it sends is that field's (or that plan's)
issue or a problem to re-ask, never an exception, and what is kept is JSON any database stores."""

import json

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from webapp.ai.answers import read_answer
from webapp.cultures.fields import ENUM_ALIASES, NUMERIC_FIELDS
from webapp.cultures.providers.openai_provider import proposal_of
from webapp.cultures.providers.schema import answer_model
from webapp.cultures.rules import postprocess
from webapp.fertilizer.gateways.llm import plan_of
from webapp.fertilizer.gateways.schema import PlanAnswer, confidence_score
from webapp.fertilizer.request import parse_request
from webapp.review.vocabulary import Confidence, Severity

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.sampled_from(["3-5", "4,5 kg", "high", "pro m²", "Direktsaat", "1e400", "NaN", "~12 weeks"]),
)
JSON = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=10,
)
UNITS = st.one_of(
    st.none(),
    st.integers(),
    st.sampled_from(["", "days", "weeks", "cm", "inches", "kg", "kg/plant", "t/ha", "g/m²",
                     "seeds/m²", "g/1000 seeds", "bananas", "x" * 200]),
)  # fmt: skip
FIELDS = [*NUMERIC_FIELDS, *ENUM_ALIASES, "seed_packages", "crop_family", "name"]
ITEM = st.one_of(
    st.none(),
    st.fixed_dictionaries({"value": JSON, "unit": UNITS, "confidence": st.one_of(SCALARS, JSON)}),
)
# A culture with nothing that gives a value its context.
NO_CONTEXT = {
    "name": "Tomato",
    "harvest_method": None,
    "seed_rate_unit": None,
    "expected_yield": None,
}
TEXT_OR_ANY = st.one_of(st.text(max_size=20), JSON)
EVIDENCE = st.lists(
    st.fixed_dictionaries(
        {
            "source_url": TEXT_OR_ANY,
            "title": TEXT_OR_ANY,
            "snippet": TEXT_OR_ANY,
            "retrieved_at": TEXT_OR_ANY,
        }
    ),
    max_size=2,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(  # a choice with a number for its unit once reached a text column as an integer
    items={"harvest_method": {"value": "PRO M2", "unit": 0, "confidence": None}},
    evidence={},
    culture=NO_CONTEXT,
)
@example(
    items={"crop_family": {"value": "Solanaceae", "unit": "x" * 200, "confidence": "high"}},
    evidence={},
    culture=NO_CONTEXT,
)
@example(
    items={
        "seed_packages": {
            "value": [{"size_value": 5, "size_unit": "g", "evidence_text": float("nan"), "x": [1]}],
            "unit": None,
            "confidence": None,
        }
    },
    evidence={},
    culture={**NO_CONTEXT, "name": "Carrot"},
)
@given(
    items=st.dictionaries(st.sampled_from(FIELDS), ITEM, max_size=8),
    evidence=st.dictionaries(st.sampled_from(FIELDS), EVIDENCE, max_size=3),
    culture=st.fixed_dictionaries(
        {
            "name": st.sampled_from(["Tomato", "Rote Bete", "Mystery"]),
            "harvest_method": st.sampled_from([None, "per_plant", "per_sqm"]),
            "seed_rate_unit": st.sampled_from([None, "g_per_m2", "seeds_per_plant"]),
            "expected_yield": st.sampled_from([None, 4.0]),
        }
    ),
)
def test_any_answer_becomes_suggestions_and_issues_that_any_database_keeps(
    items, evidence, culture
):
    data = {
        "suggested_fields": items,
        "evidence": evidence,
        "validation": {"warnings": [], "errors": []},
        "note_blocks": [],
    }
    answer, problems = read_answer(answer_model(FIELDS), json.dumps(data))
    if answer is None:  # a broken structure is asked again, with what is wrong
        assert problems and all(isinstance(p, str) for p in problems)
        return
    proposal = proposal_of(answer, [], None)
    postprocess(proposal, culture, mode="reresearch", fields=list(items))
    for name, suggested in {**proposal.suggested, **proposal.malformed}.items():
        # What a Suggestion row would hold: strict JSON (no NaN), a short unit, a level.
        json.dumps(suggested.value, allow_nan=False)
        assert suggested.unit is None or (
            isinstance(suggested.unit, str) and len(suggested.unit) <= 32
        )
        assert suggested.confidence is None or isinstance(suggested.confidence, Confidence)
        if name in proposal.malformed:
            assert name in proposal.invalid_fields
    for issue in proposal.issues:
        json.dumps(issue.to_dict(), allow_nan=False)
        assert isinstance(issue.severity, Severity)


REQUEST = parse_request({"crop_profile": {"crop": {"crop_id": "tomato", "name": "Tomato"}}})


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(
        JSON,
        st.fixed_dictionaries(
            {
                "totals": JSON,
                "oxide_totals": JSON,
                "applications": JSON,
                "sources": JSON,
                "conversions": JSON,
                "confidence": st.one_of(SCALARS, JSON),
                "notes": JSON,
            }
        ),
    )
)
def test_any_fertilizer_answer_is_a_plan_or_problems_to_re_ask(data):
    answer, problems = read_answer(PlanAnswer, json.dumps(data))
    if answer is not None:
        plan, _issues, problems = plan_of(answer, REQUEST, [], [])
        if not problems:
            json.dumps(plan, allow_nan=False)
    assert isinstance(problems, list) and all(isinstance(p, str) for p in problems)


def test_a_confidence_word_is_read_through_the_one_scale_in_a_plan():
    assert confidence_score("High") == Confidence.high.score == 0.9
    assert confidence_score(0.42) == 0.42
    with pytest.raises(ValueError, match="is not a confidence"):
        confidence_score("very")
    _answer, problems = read_answer(PlanAnswer, json.dumps({"confidence": "very"}))
    assert "confidence: “very” is not a confidence: give high, medium, low or a number 0–1." in (
        problems
    )
