"""A demo farm system for a new install: a four-year Beauce arable rotation, each intervention
with the product and dose people write in itinera, so the calculators have something to read."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from webapp.extensions import db
from webapp.systems.catalog import create_farm, import_system
from webapp.systems.models import System

TOP, BOTTOM = "intervention_top", "intervention_bottom"


def _work(key: str, day: int, name: str, description: str = "", lane: str = TOP) -> dict[str, Any]:
    return {"id": key, "name": name, "description": description, "day": str(day), "type": lane}


def _once(work: dict[str, Any]) -> dict[str, Any]:
    """An intervention done once a year, as its adviser entered it."""
    return work | {"values": [{"key": "frequence", "value": 1, "reviewed": True}]}


DEMO_DOCUMENT: dict[str, Any] = {
    "title": "Colza – blé – orge de printemps (Beauce)",
    "assumptions": (
        "- **Surface**: 120 ha de grandes cultures\n"
        "- **Tracteur**: 150 CV\n"
        "- **Sol**: limon argileux profond\n"
        "- **Prix du GNR**: 1,10 €/L\n"
    ),
    "options": {
        "title_top_interventions": "Cultures principales",
        "title_bottom_interventions": "Couverts",
        "title_steps": "Rotation",
        "region": "France",
    },
    "steps": [
        {
            "id": "colza",
            "name": "Colza d'hiver",
            "color": "#ffd700",
            "startDate": "2025-08-25T00:00:00.000Z",
            "endDate": "2026-07-10T00:00:00.000Z",
            "description": "Rendement visé : 35 q/ha",
            "secondary_crop": False,
            "attributes": [{"id": "colza-sol", "name": "Travail du sol", "value": "Déchaumage"}],
            "assumptions": "- **Semoir**: monograine 6 rangs\n",
            "interventions": [
                _once(_work("colza-dechaumage", -10, "Déchaumage", "Déchaumeur à disques 4 m")),
                _once(
                    _work("colza-semis", 0, "Semis colza", "Semis colza 2,5 kg/ha au monograine")
                ),
                _work("colza-desherbage", 3, "Désherbage", "Désherbage Novall 2,5 L/ha sur 100 %"),
                _work("colza-azote", 200, "Fertilisation azotée", "Ammonitrate 33,5 % à 150 kg/ha"),
                _work("colza-insecticide", 215, "Insecticide", "Karaté Zeon 0,075 L/ha sur 100 %"),
                _work("colza-recolte", 319, "Récolte", "Moissonneuse-batteuse 6 m"),
            ],
        },
        {
            "id": "ble",
            "name": "Blé tendre d'hiver",
            "color": "#d2b48c",
            "startDate": "2026-10-20T00:00:00.000Z",
            "endDate": "2027-07-20T00:00:00.000Z",
            "description": "Rendement visé : 85 q/ha",
            "secondary_crop": False,
            "interventions": [
                _work(
                    "ble-glyphosate",
                    -15,
                    "Désherbage d'interculture",
                    "Désherbage Roundup Extra 360 3,5 L/ha sur 30 %",
                ),
                _once(_work("ble-semis", 0, "Semis blé", "Semis blé 160 kg/ha, combiné herse")),
                _work("ble-azote", 120, "Fertilisation azotée", "Ammonitrate 33,5 % à 180 kg/ha"),
                _work("ble-fongicide", 180, "Fongicide", "Fongicide Elatus Era 0,8 L/ha sur 100 %"),
                {
                    **_work("ble-recolte", 270, "Récolte", "Moissonneuse-batteuse 6 m"),
                    "values": [{"key": "ift", "value": 0, "reviewed": "n/a"}],
                },
            ],
        },
        {
            "id": "couvert",
            "name": "Moutarde + phacélie",
            "color": "#a7c6ed",
            "startDate": "2027-08-05T00:00:00.000Z",
            "endDate": "2028-02-15T00:00:00.000Z",
            "description": "Couvert d'interculture avant l'orge de printemps",
            "secondary_crop": True,
            "interventions": [
                _work(
                    "couvert-semis",
                    0,
                    "Semis du couvert",
                    "Moutarde 5 kg/ha + phacélie 3 kg/ha",
                    BOTTOM,
                ),
                _work("couvert-broyage", 180, "Broyage", "Broyeur à axe horizontal 3 m", BOTTOM),
            ],
        },
        {
            "id": "orge",
            "name": "Orge de printemps",
            "color": "#c9a66b",
            "startDate": "2028-03-01T00:00:00.000Z",
            "endDate": "2028-07-15T00:00:00.000Z",
            "description": "Rendement visé : 70 q/ha (brassicole)",
            "secondary_crop": False,
            "interventions": [
                _once(_work("orge-semis", 0, "Semis orge", "Semis orge 140 kg/ha")),
                _work("orge-azote", 25, "Fertilisation azotée", "Ammonitrate 33,5 % à 120 kg/ha"),
                _work("orge-desherbage", 30, "Désherbage", "Axial Pratic 0,9 L/ha sur 100 %"),
                _work("orge-recolte", 130, "Récolte", "Moissonneuse-batteuse 6 m"),
            ],
        },
    ],
}


def load_demo_system() -> bool:
    """Add the demo farm and its system when there is no system; True when it was added."""
    if db.session.scalar(select(func.count()).select_from(System)):
        return False
    farm = create_farm("Ferme de démonstration", "Beauce, Centre-Val de Loire")
    import_system(
        farm,
        "",
        DEMO_DOCUMENT,
        None,
        description="A four-year arable rotation with a cover crop, to try the workspace.",
        system_type="Grandes cultures",
        productions="Colza, blé tendre, orge de printemps",
    )
    db.session.commit()
    return True
