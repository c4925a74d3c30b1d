"""IFT by campaign (1 September n−1 to 31 August n, MAA guide v3, 2018), each treatment in the
campaign of its own date, segments kept apart per intervention, step and campaign. Reference
doses from the farm-systems reference file (Agrosyst test data): REVYSTAR XL soft wheat 1.5 L/ha,
MAVRIK FLO winter soft wheat autumn aphids 0.2 L/ha."""

from datetime import date

import pytest

from tests.systems.test_system_api import api_client, create
from tests.systems.test_system_views_totals import stored
from tests.systems.test_totals import value
from webapp.systems.campaigns import campaign_label, campaign_of, ift_by_campaign
from webapp.systems.summary import campaign_table
from webapp.systems.totals import system_totals


@pytest.mark.parametrize(
    ("day", "campaign"),
    [(date(2024, 9, 1), 2025), (date(2025, 8, 31), 2025), (date(2025, 9, 1), 2026)],
)
def test_a_campaign_runs_from_1_september_to_31_august(day, campaign):
    assert campaign_of(day) == campaign


def test_a_campaign_is_named_by_its_two_years():
    assert campaign_label(2025) == "2024–2025 campaign"


def treatment(ident, name, day, ift, assumptions="", frequency=1):
    return {
        "id": ident,
        "name": name,
        "day": str(day),
        "assumptions": assumptions,
        "values": [value("frequence", frequency), value("ift", ift)],
    }


def wheat():
    """Sown 15 October 2025: autumn treatments in 2025–2026, one on 5 September 2026 in the next."""
    return {
        "id": "ble",
        "name": "Blé tendre d'hiver",
        "startDate": "2025-10-15T00:00:00.000Z",
        "endDate": "2026-09-10T00:00:00.000Z",
        "interventions": [
            treatment("herbi", "Désherbage", 0, 0.15, "- **Segment**: herbicide", frequency=2),
            # A mixture the calculator splits: 0.75/1.5 + 0.1/0.2 = 0.5 fungicide + 0.5 insecticide.
            treatment(
                "mix",
                "Traitement",
                150,
                1.0,
                "- **Produit**: Revystar XL + Mavrik Flo\n- **Dose**: 0,75 L/ha + 0,1 L/ha\n"
                "- **Segment**: fungicide + insecticide\n- **Cible**: autumn aphids",
            ),
            # Biocontrol: outside the total (the calculator gives 0, and 0.5 apart).
            treatment(
                "bio",
                "Biocontrôle",
                200,
                0,
                "- **Dose**: 1 L/ha\n- **Dose de référence**: 2 L/ha\n- **Segment**: biocontrol",
            ),
            # A value a person entered, with no segment: counted as other, said in words.
            treatment("late", "Traitement tardif", 325, 0.4),
            {"id": "recolte", "name": "Récolte", "day": "280", "values": []},
        ],
    }


def test_each_treatment_counts_in_its_own_campaign_with_its_segments():
    found = ift_by_campaign({"steps": [wheat()]})
    first, second = (found.campaigns[c] for c in (2026, 2027))
    assert first.label == "2025–2026 campaign"
    assert first.segments["herbicide"] == 0.3  # 0.15 × 2 passes
    assert first.segments["fungicide"] == 0.5 and first.segments["insecticide"] == 0.5
    assert first.segments["biocontrol"] == 0.5 and first.total == 1.3  # biocontrol apart
    assert second.segments["other"] == 0.4 and second.total == 0.4
    late = next(t for t in found.treatments if t.intervention_id == "late")
    assert late.day == date(2026, 9, 5) and late.note == "counted as other: no segment"
    assert found.steps["ble"].total == 1.7 and found.missing == ["Récolte"]


def test_the_api_gives_the_campaigns_and_says_each_basis(client_as):
    editor = api_client(client_as, "editor")
    system_id = create(editor, document=stored(wheat())).get_json()["id"]
    body = editor.get(f"/api/v1/systems/{system_id}/totals").get_json()
    assert "divided by the rotation's years" in body["basis"]
    campaigns = body["ift_by_campaign"]
    assert "1 September to 31 August" in campaigns["basis"]
    assert [c["label"] for c in campaigns["campaigns"]] == [
        "2025–2026 campaign",
        "2026–2027 campaign",
    ]
    mix = next(i for i in campaigns["interventions"] if i["intervention_id"] == "mix")
    assert mix["campaign"] == "2025–2026 campaign" and mix["segments"]["fungicide"] == 0.5
    assert campaigns["steps"]["ble"]["segments"]["biocontrol"] == 0.5


def test_the_page_shows_the_ift_by_campaign(client_as):
    editor = api_client(client_as, "editor")
    system_id = create(editor, document=stored(wheat())).get_json()["id"]
    page = editor.get(f"/systems/{system_id}").get_data(as_text=True)
    table = page.split('id="ift-campaigns"')[1]
    assert "2025–2026 campaign" in table and "2026–2027 campaign" in table
    assert "Biocontrol" in table and "Seed treatment" in table
    assert "Not counted, without an IFT value: Récolte." in table
    assert "Traitement tardif (05/09/2026): counted as other: no segment" in table


def test_the_campaign_table_rows_are_in_column_order():
    doc = {"steps": [wheat()]}
    table = campaign_table(system_totals(doc).ift_campaigns)
    assert table.headings == (
        "Herbicide",
        "Fungicide",
        "Insecticide",
        "Other",
        "Total",
        "Biocontrol",
        "Seed treatment",
    )
    assert table.rows[0].values == (0.3, 0.5, 0.5, 0, 1.3, 0.5, 0)
