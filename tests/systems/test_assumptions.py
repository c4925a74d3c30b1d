import pytest

from webapp.review.vocabulary import Severity
from webapp.systems.assumptions import (
    OPERATIONS,
    canonical_key,
    is_organic,
    operation_id,
    operation_label,
    operation_type,
    parse_assumptions,
    propose_assumptions,
    resolve,
    resolve_for,
    treatment_segment,
)


def proposals(name, description=""):
    return {a.key: a.value for a in propose_assumptions(name, description)}


def test_parse_key_value_lines():
    markdown = (
        "## Labour\n\n- **Matériel** : Tracteur 150 CV + charrue 4 corps\n"
        "- **Vitesse**: 6 km/h\n* **Fuel:** 20 L/ha\n- **Semences fermières** pour le lupin\n"
    )
    found = parse_assumptions(markdown, "intervention")
    assert [(a.key, a.value) for a in found] == [
        ("Matériel", "Tracteur 150 CV + charrue 4 corps"),
        ("Vitesse", "6 km/h"),
        ("Carburant", "20 L/ha"),
    ]
    assert found[0].line == "- **Matériel**: Tracteur 150 CV + charrue 4 corps"


def test_aliases_in_both_languages():
    assert canonical_key("treated area") == canonical_key("Surface traitée") == "Surface traitée"
    assert canonical_key("Prix du GNR") == "Prix GNR"
    assert canonical_key("Couleur") == "Couleur"


def test_most_specific_wins_and_conflict_is_flagged():
    held = resolve(
        system="- **Sol**: limon\n- **Prix GNR**: 0,80 €/L",
        step="- **Sol**: argile",
        intervention="- **Sol**: argile lourde",
    )
    assert held.text("Sol") == "argile lourde"
    assert held.quantity("Prix GNR").value == pytest.approx(0.80)
    conflicts = [i for i in held.issues if i.code == "assumption_conflict"]
    assert len(conflicts) == 2
    assert all(i.severity == Severity.warning and i.field == "Sol" for i in conflicts)


def test_same_value_at_two_levels_is_no_conflict():
    held = resolve(system="- **Sol**: Argile", step="- **sol**: argile")
    assert held.issues == []


def test_user_assumption_beats_the_description_with_a_note():
    held = resolve(
        intervention="- **Dose**: 3 L/ha",
        proposed=propose_assumptions("Désherbage Roundup Extra 360 3,5 L/ha sur 30 %"),
    )
    assert held.text("Dose") == "3 L/ha"
    assert held.text("Produit") == "Roundup Extra 360"
    [note] = held.issues
    assert note.code == "assumption_overrides_description" and note.severity == Severity.info


def test_propose_herbicide_with_share_treated():
    assert proposals("Désherbage Roundup Extra 360 3,5 L/ha sur 30 %") == {
        "Opération": "Pulvérisation",
        "Segment": "herbicide",
        "Produit": "Roundup Extra 360",
        "Dose": "3.5 L/ha",
        "Surface traitée": "30 %",
    }


def test_propose_fertiliser_with_n_content():
    assert proposals("Ammonitrate 33,5 % 150 kg/ha") == {
        "Opération": "Épandage",
        "Produit": "Ammonitrate",
        "Teneur N": "33.5 %",
        "Dose": "150 kg/ha",
    }


def test_propose_a_mixture_from_the_description():
    found = proposals("Fongicide T2", "Revystar XL 0,75 L/ha + Mavrik Flo 0,1 L/ha")
    assert found["Produit"] == "Revystar XL + Mavrik Flo"
    assert found["Dose"] == "0.75 L/ha + 0.1 L/ha"
    assert found["Segment"] == "fungicide"


@pytest.mark.parametrize(
    ("words", "operation"),
    [
        ("Labour 25 cm", "labour"),
        ("Ploughing", "labour"),
        ("Déchaumage", "dechaumage"),
        ("stubble cultivation", "dechaumage"),
        ("Herse rotative + semoir", "herse_rotative"),
        ("rotary harrow", "herse_rotative"),
        ("Semis blé", "semis"),
        ("sowing", "semis"),
        ("Semis monograine maïs", "semis_monograine"),
        ("precision drilling", "semis_monograine"),
        ("Semis direct", "semis_direct"),
        ("Pulvérisation fongicide", "pulverisation"),
        ("Traitement", "pulverisation"),
        ("spraying", "pulverisation"),
        ("Épandage lisier", "epandage"),
        ("spreading", "epandage"),
        ("Fauche", "fauche"),
        ("mowing", "fauche"),
        ("Fanage", "fanage"),
        ("tedding", "fanage"),
        ("Andainage", "andainage"),
        ("swathing", "andainage"),
        ("Moisson", "moisson"),
        ("Récolte", "moisson"),
        ("combining", "moisson"),
        ("Décompactage", "decompactage"),
        ("Binage", "binage"),
        ("Broyage", "broyage"),
        ("Broyeur à axe horizontal 3 m", "broyage"),
        ("mulching", "broyage"),
        ("Récolte avec broyage des pailles", "moisson"),
        ("Pulvérisateur traîné", "pulverisation"),
        ("Visite de parcelle", None),
    ],
)
def test_operation_words(words, operation):
    assert operation_type(words) == operation


def test_segments_and_organic():
    assert treatment_segment("Traitement de semences") == "seed_treatment"
    assert treatment_segment("Insecticide pucerons") == "insecticide"
    assert treatment_segment("Biocontrôle soufre") == "biocontrol"
    assert is_organic("Épandage fumier 30 t/ha") and not is_organic("Ammonitrate")


def test_resolve_for_a_document():
    document = {
        "assumptions": "- **Sol**: limon",
        "steps": [
            {
                "id": "s1",
                "name": "Blé tendre d'hiver",
                "assumptions": "- **Prix GNR**: 0,9 €/L",
                "interventions": [
                    {
                        "id": "i1",
                        "name": "Désherbage",
                        "description": "Roundup Extra 360 3,5 L/ha sur 30 %",
                        "assumptions": "- **Surface traitée**: 40 %",
                        "values": [],
                    }
                ],
            }
        ],
    }
    held = resolve_for(document, "s1", "i1")
    assert held.text("Surface traitée") == "40 %"
    assert held.text("Dose") == "3.5 L/ha"
    assert held.text("Culture") == "Blé tendre d'hiver"
    assert held.text("Sol") == "limon"
    with pytest.raises(KeyError):
        resolve_for(document, "s1", "nope")


def test_a_written_crop_beats_the_step_name():
    held = resolve(step="- **Culture**: orge d'hiver", crop="Orge + Lupin")
    assert held.text("Culture") == "orge d'hiver"
    assert [i.severity for i in held.issues] == [Severity.info]


def test_every_operation_has_a_label_and_labels_read_back():
    for kind, _ in OPERATIONS:
        label = operation_label(kind)
        assert label != kind or kind == label.casefold()
        assert operation_id(label) == kind
    assert operation_id("Charrue 4 corps") == "labour"
    assert operation_label("visite", "Visite de parcelle") == "Visite de parcelle"


def test_the_system_area_is_not_a_share_treated():
    assert canonical_key("Surface") == "Surface" != canonical_key("Surface traitée")
    proposed = propose_assumptions("Désherbage X 1 L/ha sur 30 %")
    held = resolve("- **Surface**: 120 ha", proposed=proposed)
    assert held.text("Surface") == "120 ha" and held.text("Surface traitée") == "30 %"
    assert held.issues == []


def test_tractor_is_its_power():
    assert canonical_key("Tracteur") == "Puissance"


@pytest.mark.parametrize(
    ("description", "width"),
    [
        ("Déchaumeur à disques 4 m", "4 m"),
        ("Herse rotative 3,5 m + semoir", "3.5 m"),
        ("Pulvérisateur, rampe de 24 m", "24 m"),
        ("Moissonneuse-batteuse 6 m", "6 m"),
        ("Labour 25 cm", None),
        ("Déchaumage à 4 m de la haie", None),
        ("Déchaumeur à disques, 10 cm de profondeur", None),
        ("Déchaumeur à disques 4 m3", None),
        ("Semis blé 160 kg/ha, 4 m entre passages", None),
    ],
)
def test_the_implements_width_is_proposed_only_next_to_it(description, width):
    assert proposals("Travail", description).get("Largeur") == width


def test_a_range_in_the_description_is_proposed_as_written():
    found = proposals("Désherbage Roundup Extra 360 2 à 3 L/ha sur 30-50 %")
    assert (found["Dose"], found["Surface traitée"]) == ("2 à 3 L/ha", "30-50 %")
    assert proposals("Ammonitrate 27-33,5 % à 150 kg/ha")["Teneur N"] == "27-33,5 %"
