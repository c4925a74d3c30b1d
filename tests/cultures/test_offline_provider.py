from webapp.ai import ProviderUnavailable
from webapp.cultures.fields import NUMERIC_FIELDS
from webapp.cultures.providers import culture_provider
from webapp.cultures.providers.offline import OfflineProvider
from webapp.cultures.rules import postprocess
from webapp.reference.library import library
from webapp.review.vocabulary import Confidence, Severity, SourceKind

ALL = [*NUMERIC_FIELDS, "nutrient_demand", "harvest_method"]


def test_it_suggests_cited_ranges_that_the_rules_collapse_to_the_midpoint():
    answer = OfflineProvider().propose_culture({"name": "Tomate"}, ALL)
    proposal = answer.proposal
    # Days to first harvest from transplanting, as the source states it; never FAO-56's
    # total growing period (135–180 days), which is another quantity.
    assert proposal.value("growth_duration_days") == {"min": 50, "max": 80}
    assert proposal.value("propagation_duration_days") == {"min": 25, "max": 35}
    assert proposal.value("harvest_method") == "per_sqm"
    [evidence] = proposal.evidence["expected_yield"]
    assert evidence.source_url.startswith("https://") and evidence.title
    assert evidence.source_kind == SourceKind.reference and evidence.derived is True
    [growth] = proposal.evidence["growth_duration_days"]
    assert growth.derived is False and "50 to 65 days from transplanting" in growth.claim_summary

    postprocess(proposal, {"name": "Tomate"})
    assert proposal.value("growth_duration_days") == 65  # whole days
    assert proposal.value("expected_yield") == 7.0
    collapsed = [i for i in proposal.issues if i.code == "range_collapsed_to_mean"]
    assert {i.field for i in collapsed} >= {"growth_duration_days", "expected_yield"}
    assert proposal.invalid_fields == set()
    # Without a cultivation type, what the count starts from is for a person to confirm.
    [unconfirmed] = [i for i in proposal.issues if i.code == "growth_basis_unconfirmed"]
    assert unconfirmed.severity == Severity.warning and "transplanting" in unconfirmed.message
    # The derived yield says its source does not state it.
    derived = [i.field for i in proposal.issues if i.code == "evidence_derived"]
    assert "expected_yield" in derived and "growth_duration_days" not in derived


def test_a_growth_duration_counts_from_what_the_culture_starts_from():
    transplanted = {"name": "Tomato", "cultivation_types": ["pre_cultivation"]}
    proposal = OfflineProvider().propose_culture(transplanted, ["growth_duration_days"]).proposal
    assert proposal.value("growth_duration_days") == {"min": 50, "max": 80}
    assert proposal.issues == []
    # A direct-sown tomato: the library only counts from transplanting, so nothing.
    sown = {"name": "Tomato", "cultivation_types": ["direct_sowing"]}
    proposal = OfflineProvider().propose_culture(sown, ["growth_duration_days"]).proposal
    assert "growth_duration_days" not in proposal.suggested
    assert [i.code for i in proposal.issues] == ["growth_basis_differs"]
    # Lettuce is counted from sowing: a direct-sown lettuce gets it.
    lettuce = {"name": "Lettuce", "cultivation_types": ["direct_sowing"]}
    proposal = OfflineProvider().propose_culture(lettuce, ["growth_duration_days"]).proposal
    assert proposal.value("growth_duration_days") == {"min": 45, "max": 70}
    # A direct-sown crop has no propagation period.
    proposal = OfflineProvider().propose_culture(sown, ["propagation_duration_days"]).proposal
    assert "propagation_duration_days" not in proposal.suggested


def test_no_library_fact_offered_for_a_culture_field_measures_something_else():
    """Each culture field draws only on facts that mean what it means (the field table)."""
    from webapp.cultures.providers.offline import RANGE_FACTS, YIELD_FACTS

    assert "total_growing_period_days" not in {*RANGE_FACTS.values(), *YIELD_FACTS.values()}
    for crop in library().crops:
        for name in ("total_growing_period_days",):
            fact = crop.fact(name)
            assert fact is None or "total" in fact.claim.lower() or "growing period" in fact.claim
        days = crop.fact("days_to_first_harvest")
        if days is not None:
            assert days.extra["basis"] in ("sowing", "transplanting")
            assert (
                days.extra["basis"] in days.claim or "seed" in days.claim or "plants" in days.claim
            )


def test_the_yield_follows_the_cultures_own_harvest_method():
    proposal = (
        OfflineProvider()
        .propose_culture({"name": "Lettuce", "harvest_method": "per_plant"}, ["expected_yield"])
        .proposal
    )
    assert proposal.value("expected_yield") == {"min": 0.3, "max": 0.8}
    assert "harvest_method" not in proposal.suggested


def test_an_unknown_crop_gets_nothing_and_says_so():
    proposal = OfflineProvider().propose_culture({"name": "Dragonfruit"}, ALL).proposal
    assert proposal.suggested == {}
    assert [(i.code, i.severity) for i in proposal.issues] == [
        ("reference_crop_unknown", Severity.info)
    ]


def test_only_the_asked_fields_are_suggested():
    proposal = (
        OfflineProvider()
        .propose_culture({"reference_crop": "winter_wheat"}, ["thousand_kernel_weight_g"])
        .proposal
    )
    assert list(proposal.suggested) == ["thousand_kernel_weight_g"]


def test_an_unknown_provider_name_is_refused_clearly():
    try:
        culture_provider("crystal-ball")
    except ProviderUnavailable as exc:
        assert str(exc) == "There is no provider called 'crystal-ball' (offline or openai)."
    else:
        raise AssertionError("an unknown provider was returned")


def test_offline_suggestions_carry_a_confidence_level_by_what_their_source_states():
    tomato = OfflineProvider().propose_culture({"name": "Tomate"}, ALL).proposal
    levels = {name: s.confidence for name, s in tomato.suggested.items()}
    # One figure the source states: high; a stated range (the rules take its midpoint): medium;
    # a derived range (the source does not state it): low, and the yield's context with it.
    assert levels["thousand_kernel_weight_g"] == Confidence.high
    assert levels["growth_duration_days"] == Confidence.medium
    assert levels["expected_yield"] == levels["harvest_method"] == Confidence.low
    assert tomato.evidence["expected_yield"][0].derived is True
    wheat = OfflineProvider().propose_culture({"reference_crop": "winter_wheat"}, ALL).proposal
    assert wheat.suggested["nutrient_demand"].confidence == Confidence.low  # a derived class
    for proposal in (tomato, wheat):
        for name, suggested in proposal.suggested.items():
            derived = all(e.derived for e in proposal.evidence[name])
            assert (suggested.confidence == Confidence.low) == derived, name
