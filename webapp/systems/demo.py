"""A demo farm system for a new install: a four-year Beauce arable rotation, each intervention
with the product and dose people write in itinera, and the assumptions an adviser states where
the cited figures say nothing (a sprayer's fuel, a spreader's work rate), so that every indicator
with a calculator is calculated offline. Its products are those of the bundled reference doses;
its yields and sale prices are the adviser's, as step values."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from webapp.extensions import db
from webapp.systems.catalog import create_farm, import_system
from webapp.systems.models import System

TOP, BOTTOM = "intervention_top", "intervention_bottom"


def _work(
    key: str, day: int, name: str, description: str = "", lane: str = TOP, assumptions: str = ""
) -> dict[str, Any]:
    work = {"id": key, "name": name, "description": description, "day": str(day), "type": lane}
    return work | ({"assumptions": assumptions} if assumptions else {})


# What the adviser states where the reference cites no fuel or work rate: a 24 m trailed sprayer,
# a 24 m weighing fertiliser spreader, a 4 m drill, a 3 m flail mulcher, a 4 m disc cultivator.
SPRAYER = (
    "- **Matériel**: pulvérisateur traîné 24 m\n"
    "- **Carburant**: 1 L/ha\n"
    "- **Débit de chantier**: 8 ha/h\n"
)
SPREADER = (
    "- **Matériel**: distributeur d'engrais à pesée 24 m\n"
    "- **Carburant**: 0,8 L/ha\n"
    "- **Débit de chantier**: 10 ha/h\n"
)
DRILL = "- **Carburant**: 5 L/ha\n- **Débit de chantier**: 2 ha/h\n"
HARROW_DRILL = "- **Débit de chantier**: 1,5 ha/h\n"
MULCHER = (
    "- **Carburant**: 10 L/ha\n- **Débit de chantier**: 1,5 ha/h\n- **Coût machine**: 20 €/ha\n"
)
CULTIVATOR = "- **Débit de chantier**: 3 ha/h\n"


def _yield_and_price(tonnes: float, euros: float) -> list[dict[str, Any]]:
    """The step's yield (t/ha) and sale price (€/t), as the adviser states them."""
    return [
        {"key": "rendement", "value": tonnes, "reviewed": True},
        {"key": "prixVente", "value": euros, "reviewed": True},
    ]


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
            "stepValues": _yield_and_price(3.5, 450),
            "interventions": [
                _once(
                    _work(
                        "colza-dechaumage",
                        -10,
                        "Déchaumage",
                        "Déchaumeur à disques 4 m",
                        assumptions=CULTIVATOR,
                    )
                ),
                _once(
                    _work("colza-semis", 0, "Semis colza", "Semis colza 2,5 kg/ha au monograine")
                ),
                _work(
                    "colza-traitement",
                    3,
                    "Traitement d'automne",
                    "Altiplano DAM Tec 3 kg/ha sur 100 %",
                    assumptions=SPRAYER,
                ),
                _work(
                    "colza-azote",
                    200,
                    "Fertilisation azotée",
                    "Ammonitrate 33,5 % à 150 kg/ha",
                    assumptions=SPREADER,
                ),
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
            "stepValues": _yield_and_price(8.5, 200),
            "interventions": [
                _work(
                    "ble-glyphosate",
                    -15,
                    "Désherbage d'interculture",
                    "Désherbage Roundup Extra 360 3,5 L/ha sur 30 %",
                    assumptions=SPRAYER
                    + "- **Matière active**: glyphosate\n- **Concentration**: 360 g/L\n",
                ),
                _once(
                    _work(
                        "ble-semis",
                        0,
                        "Semis blé",
                        "Semis blé 160 kg/ha au combiné herse rotative + semoir 4 m",
                        assumptions=HARROW_DRILL,
                    )
                ),
                _work(
                    "ble-insecticide",
                    30,
                    "Insecticide pucerons d'automne",
                    "Insecticide Mavrik Flo 0,15 L/ha sur 100 %",
                    assumptions=SPRAYER,
                ),
                _work(
                    "ble-azote",
                    120,
                    "Fertilisation azotée",
                    "Ammonitrate 33,5 % à 180 kg/ha",
                    assumptions=SPREADER,
                ),
                _work(
                    "ble-fongicide",
                    180,
                    "Fongicide",
                    "Fongicide Revystar XL 1 L/ha sur 100 %",
                    assumptions=SPRAYER,
                ),
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
            # A cover crop is not harvested: it sells nothing.
            "stepValues": [{"key": "totalProduits", "value": 0, "reviewed": True}],
            "interventions": [
                _work(
                    "couvert-semis",
                    0,
                    "Semis du couvert",
                    "Moutarde 5 kg/ha + phacélie 3 kg/ha",
                    BOTTOM,
                    DRILL,
                ),
                _work(
                    "couvert-broyage",
                    180,
                    "Broyage",
                    "Broyeur à axe horizontal 3 m",
                    BOTTOM,
                    MULCHER,
                ),
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
            "stepValues": _yield_and_price(7, 220),
            "interventions": [
                _once(
                    _work(
                        "orge-semis",
                        0,
                        "Semis orge",
                        "Semis orge 140 kg/ha au combiné herse rotative + semoir 4 m",
                        assumptions=HARROW_DRILL,
                    )
                ),
                _work(
                    "orge-azote",
                    25,
                    "Fertilisation azotée",
                    "Ammonitrate 33,5 % à 120 kg/ha",
                    assumptions=SPREADER,
                ),
                _work(
                    "orge-desherbage",
                    30,
                    "Désherbage",
                    "Désherbage Axial Pratic 0,9 L/ha sur 100 %",
                    assumptions=SPRAYER,
                ),
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
