from webapp.cultures.fields import NUMERIC_FIELDS
from webapp.cultures.rules import postprocess
from webapp.enrichment.providers import ProviderUnavailable, culture_provider
from webapp.enrichment.providers.offline import OfflineProvider
from webapp.enrichment.vocabulary import Severity, SourceKind

ALL = [*NUMERIC_FIELDS, "nutrient_demand", "harvest_method"]


def test_it_suggests_cited_ranges_that_the_rules_collapse_to_the_midpoint():
    answer = OfflineProvider().propose_culture({"name": "Tomate"}, ALL)
    proposal = answer.proposal
    assert proposal.value("growth_duration_days") == {"min": 135, "max": 180}
    assert proposal.value("harvest_method") == "per_sqm"
    [evidence] = proposal.evidence["expected_yield"]
    assert evidence.source_url.startswith("https://") and evidence.title
    assert evidence.source_kind == SourceKind.reference and evidence.derived is True

    postprocess(proposal, {"name": "Tomate"})
    assert proposal.value("growth_duration_days") == 158  # whole days
    assert proposal.value("expected_yield") == 7.0
    collapsed = [i for i in proposal.issues if i.code == "range_collapsed_to_mean"]
    assert {i.field for i in collapsed} >= {"growth_duration_days", "expected_yield"}
    assert proposal.invalid_fields == set()


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
        assert str(exc) == "There is no provider called 'crystal-ball'."
    else:
        raise AssertionError("an unknown provider was returned")
