"""The matched reference crop is shown with its species on the culture page and beside every
culture's suggestions; a culture named by a known confusion gets no crop and no suggestion."""

import pytest

from tests.support.cultures import finished_enrichment, suggestion
from tests.support.html import by_id, soup
from webapp.cultures.fields import NO_CROP
from webapp.cultures.models import Culture
from webapp.cultures.providers.offline import OfflineProvider
from webapp.cultures.reference_match import reference_match, reference_matches
from webapp.extensions import db
from webapp.review.models import Change
from webapp.review.service import store_suggestions

ALL = ["growth_duration_days", "thousand_kernel_weight_g", "harvest_method", "expected_yield"]


@pytest.mark.parametrize(
    ("name", "stored", "text"),
    [
        ("Peas", None, "Pea, Pisum sativum"),
        ("Squash – Summer", None, "Zucchini, Cucurbita pepo (summer squash)"),
        ("Beans, Bush", None, "Green bean, Phaseolus vulgaris (snap bean, bush type)"),
        ("Sweet corn", "sweet_corn", "Sweet corn, Zea mays"),
        ("Dragonfruit", None, "no reference crop: the name matches none"),
        ("Anything", "moon_melon", "no reference crop: the library has no crop “moon_melon”"),
    ],
)
def test_the_match_names_the_crop_and_its_species_or_says_there_is_none(name, stored, text):
    assert reference_match(name, None, stored).text == text


@pytest.mark.parametrize(
    ("name", "stored", "species", "wrong"),
    [
        ("Black Eyed Peas", None, "Vigna unguiculata", "not Pea"),
        ("Cow Peas", "pea", "Vigna unguiculata", "not Pea"),
        ("Broccoli Rabe", "broccoli", "Brassica rapa", "not Broccoli"),
        ("Corn", "grain_maize", "Zea mays", "not Grain maize, Sweet corn"),
    ],
)
def test_a_known_confusion_matches_nothing_even_where_a_crop_was_stored(
    name, stored, species, wrong
):
    match = reference_match(name, None, stored)
    assert match.crop is None
    assert match.text.startswith("no reference crop: the name is a known confusion, " + species)
    assert match.text.endswith(wrong)


def test_a_stored_crop_stands_when_the_name_is_the_crops_own():
    assert reference_match("Field corn", None, "grain_maize").crop.id == "grain_maize"
    assert reference_match("Sweet corn", None, "sweet_corn").crop.id == "sweet_corn"
    # A culture someone pointed at a crop its name does not say is theirs to judge.
    assert reference_match("Mystery beans", None, "dry_bean").crop.id == "dry_bean"


@pytest.mark.parametrize(
    ("culture", "crop"),
    [
        ({"name": "Black Eyed Peas"}, None),
        ({"name": "Cow Peas", "reference_crop": "pea"}, None),
        ({"name": "Broccoli Rabe", "reference_crop": "broccoli"}, None),
        ({"name": "Corn", "reference_crop": "grain_maize"}, None),
        ({"name": "Beans, Pole"}, None),
        ({"name": "Beans, Bush"}, "green_bean"),
        ({"name": "Peppers"}, "bell_pepper"),
        ({"name": "Squash – Winter"}, "winter_squash"),
    ],
)
def test_the_offline_provider_suggests_for_the_right_crop_or_none(culture, crop):
    provider = OfflineProvider()
    found = provider.find_crop(culture)
    assert (found.id if found else None) == crop
    proposal = provider.propose_culture(culture, ALL).proposal
    if crop is None:
        assert proposal.suggested == {}
        [info] = proposal.issues
        assert info.code == "reference_crop_unknown"
    else:
        assert proposal.suggested


def test_the_confusion_is_named_where_nothing_is_suggested():
    proposal = OfflineProvider().propose_culture({"name": "Cow Peas"}, ALL).proposal
    [info] = proposal.issues
    assert "Vigna unguiculata" in info.message and "nothing is suggested" in info.message


@pytest.fixture
def cultures(app):
    made = [
        Culture(name="Peas", reference_crop="pea"),
        Culture(name="Black Eyed Peas", reference_crop="pea"),  # stored before confusions
        Culture(name="Dragonfruit"),
    ]
    db.session.add_all(made)
    db.session.commit()
    return {c.name: c.id for c in made}


def test_the_culture_page_shows_the_reference_crop_and_its_species(client_as, cultures):
    viewer = client_as("viewer")
    shown = {
        name: by_id(viewer.get(f"/cultures/{culture_id}"), "reference-crop").get_text()
        for name, culture_id in cultures.items()
    }
    assert shown["Peas"] == "Pea, Pisum sativum"
    assert shown["Black Eyed Peas"].startswith(
        "no reference crop: the name is a known confusion, Vigna unguiculata"
    )
    assert shown["Dragonfruit"] == "no reference crop: the name matches none"


def test_every_cultures_suggestions_say_what_they_were_matched_to(client_as, cultures):
    peas = cultures["Peas"]
    run = finished_enrichment(list(cultures.values()))
    store_suggestions([suggestion(run, peas, "row_spacing_cm", 5.0)])
    db.session.commit()
    reviewer = client_as("reviewer")
    page = reviewer.get(f"/cultures/{peas}?run={run.id}")
    assert by_id(page, "suggestions-matched").get_text() == "Matched to: Pea, Pisum sativum"
    queue = by_id(reviewer.get(f"/cultures/runs/{run.id}/review"), "review-queue")
    matched = {
        row.select_one("td[data-label=Culture]").get_text(): row.select_one(
            "td[data-label='Matched to']"
        ).get_text()
        for row in queue.select("tbody tr")
    }
    assert matched["Peas"] == "Pea, Pisum sativum"
    assert matched["Black Eyed Peas"].startswith("no reference crop")
    assert matched["Dragonfruit"] == "no reference crop: the name matches none"
    assert reference_matches([peas])[peas].crop.id == "pea"


def test_a_persons_choice_stands_over_the_name_and_none_is_a_choice():
    assert reference_match("Cow Peas", None, "pea", chosen=True).text == (
        "Pea, Pisum sativum (chosen by a person)"
    )
    cleared = reference_match("Peas", None, NO_CROP, chosen=True)
    assert cleared.crop is None
    assert cleared.text == "no reference crop: a person said none of the library's applies"
    proposal = (
        OfflineProvider()
        .propose_culture(
            {"name": "Peas", "reference_crop": NO_CROP, "reference_crop_chosen": True}, ALL
        )
        .proposal
    )
    assert proposal.suggested == {}
    assert "a person said none" in proposal.issues[0].message


def _edit(editor, culture_id, crop, **more):
    values = {"name": db.session.get(Culture, culture_id).name, "reference_crop": crop, **more}
    page = f"/cultures/{culture_id}/edit"
    return editor.submit(page, values, page=page)


def _shown(client, culture_id):
    return by_id(client.get(f"/cultures/{culture_id}"), "reference-crop").get_text()


def test_a_person_changes_and_clears_the_matched_crop_and_undo_gives_both_back(client_as, cultures):
    peas = cultures["Peas"]
    editor = client_as("editor")
    form = soup(editor.get(f"/cultures/{peas}/edit"))
    select = form.find("select", attrs={"name": "reference_crop"})
    options = {o["value"]: o.get_text() for o in select.find_all("option")}
    assert options["pea"] == "Pea, Pisum sativum" and options[NO_CROP] == "No reference crop"
    # Found from the name, the crop is not shown as chosen: saved as it is, it stays found.
    assert select.find("option", selected=True)["value"] == ""
    assert _edit(editor, peas, "").status_code == 302
    assert not db.session.get(Culture, peas).reference_crop_chosen

    assert _edit(editor, peas, NO_CROP).status_code == 302
    assert _shown(editor, peas) == "no reference crop: a person said none of the library's applies"
    db.session.expire_all()
    culture = db.session.get(Culture, peas)
    assert (culture.reference_crop, culture.reference_crop_chosen) == (NO_CROP, True)
    # Renamed, a chosen crop stays chosen; given back to the name, it is found again.
    assert _edit(editor, peas, NO_CROP, variety="Kelvedon").status_code == 302
    assert _shown(editor, peas).startswith("no reference crop: a person said")
    assert _edit(editor, peas, "").status_code == 302
    assert _shown(editor, peas) == "Pea, Pisum sativum"

    reviewer = client_as("reviewer")
    eyed = cultures["Black Eyed Peas"]
    assert _edit(editor, eyed, "Pea, Pisum sativum").status_code == 302
    assert _shown(reviewer, eyed) == "Pea, Pisum sativum (chosen by a person)"
    history = reviewer.get(f"/cultures/{eyed}").get_data(as_text=True)
    assert "Reference crop chosen by a person" in history
    group = (
        db.session.query(Change)
        .filter_by(target_id=eyed, field="reference_crop_chosen")
        .one()
        .group_id
    )
    undone = reviewer.submit(f"/review/undo/{group}", page=f"/cultures/{eyed}")
    assert undone.status_code == 302
    assert _shown(reviewer, eyed).startswith("no reference crop: the name is a known confusion")


def test_an_unknown_crop_is_refused_and_a_crop_the_name_gives_anyway_is_no_choice(client_as):
    editor = client_as("editor")
    token = editor.csrf_token("/")
    refused = editor.post(
        "/api/v1/cultures",
        json={"name": "Peas", "reference_crop": "moon melon"},
        headers={"X-CSRFToken": token},
    )
    assert refused.status_code == 422
    assert "reference_crop" in refused.get_data(as_text=True)
    made = editor.post(
        "/api/v1/cultures",
        json={"name": "Peas", "reference_crop": "pea"},
        headers={"X-CSRFToken": token},
    )
    assert made.status_code == 201
    culture = db.session.get(Culture, made.get_json()["id"])
    assert (culture.reference_crop, culture.reference_crop_chosen) == ("pea", False)
