"""Assumptions: the "- **Key**: Value" lines a system, a step and an intervention carry in their
Markdown, resolved most specific first, and the assumptions an intervention's own name and
description propose ("Désherbage Roundup Extra 360 3,5 L/ha sur 30 %"), which the user sees and can
correct. Calculators read only what is resolved here, so what they rest on is always shown."""

from __future__ import annotations

import copy
import functools
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from webapp.numbers import parse_number
from webapp.review.vocabulary import Issue, Severity
from webapp.units import Quantity, find_quantity, quantities

# Least to most specific. What the name and description propose sits below what the user wrote
# for the intervention itself but above the step and system: it is about this intervention.
# A step's name ("Blé tendre d'hiver") says its crop unless someone wrote one.
LEVELS = ("step_name", "system", "step", "proposed", "intervention")
WRITTEN_LEVELS = ("system", "step", "intervention")

# "- **Key**: Value", "- **Key** : Value", "* **Key:** Value"; a bold line without a colon is a
# statement, not a key and value.
_LINE = re.compile(
    r"^\s*[-*+]\s+\*\*(?P<key>[^*]+?)\s*(?P<inner>:)?\s*\*\*\s*(?P<outer>:)?(?P<value>.*)$"
)

# Canonical keys (what calculators ask for) and the spellings people use for them, normalised
# (no accents, lower case).
_ALIASES = {
    "Produit": ("produit", "produits", "product", "products", "spécialité"),
    "Dose": ("dose", "dose appliquée", "rate", "application rate", "dose applied"),
    "Surface traitée": ("surface traitée", "part traitée", "treated area", "share treated"),
    # The system's (or field's) area; an intervention's "Surface: 30 %" is read as its share.
    "Surface": ("surface", "area", "superficie", "surface totale", "sau"),
    "Teneur N": ("teneur n", "teneur en azote", "teneur azote", "n content", "nitrogen content"),
    "Opération": ("opération", "type d'opération", "operation", "operation type", "travail"),
    "Cible": ("cible", "target", "ravageur", "pest"),
    "Culture": ("culture", "crop"),
    "Segment": ("segment", "type de traitement", "treatment type"),
    "Carburant": ("carburant", "gnr", "fuel", "consommation", "fuel use"),
    "Débit de chantier": ("débit de chantier", "débit", "work rate", "rendement de chantier"),
    "Temps de travail": ("temps de travail", "work time"),
    "Prix GNR": ("prix gnr", "prix du gnr", "fuel price", "prix carburant"),
    "Sol": ("sol", "type de sol", "soil", "soil type"),
    "Largeur": ("largeur", "width", "largeur de travail", "working width"),
    "Puissance": (
        "puissance",
        "puissance tracteur",
        "tracteur",
        "power",
        "tractor power",
        "tractor",
    ),
    "Corps": ("corps", "nombre de corps", "furrows", "bottoms"),
    "Matériel": ("matériel", "equipment", "machine", "outil"),
    "Coût machine": ("coût machine", "coût mécanisation", "machinery cost"),
    "Dose de référence": ("dose de référence", "reference dose"),
    "Matière active": ("matière active", "substance active", "active ingredient"),
    "Concentration": ("concentration", "teneur en matière active"),
    "EIQ": ("eiq", "field eiq", "eiq field use", "eiq terrain"),
    "EIQ matière active": (
        "eiq matière active",
        "eiq de la matière active",
        "eiq de la substance",
        "eiq substance",
        "active ingredient eiq",
    ),
    "Facteur fabrication": ("facteur fabrication", "facteur de fabrication", "manufacture factor"),
    "Prix produit": ("prix produit", "prix du produit", "product price"),
    "Type d'azote": ("type d'azote", "nitrogen type", "forme d'azote"),
}


# What the (English) pages call each key; each is also one of its spellings, so a person can
# write the key as the page names it.
_ENGLISH = {
    "Produit": "Product",
    "Dose": "Dose",
    "Surface traitée": "Treated area",
    "Surface": "Area",
    "Teneur N": "N content",
    "Opération": "Operation",
    "Cible": "Target",
    "Culture": "Crop",
    "Segment": "Treatment type",
    "Carburant": "Fuel use",
    "Débit de chantier": "Work rate",
    "Temps de travail": "Work time",
    "Prix GNR": "Fuel price",
    "Sol": "Soil type",
    "Largeur": "Working width",
    "Puissance": "Tractor power",
    "Corps": "Furrows",
    "Matériel": "Equipment",
    "Coût machine": "Machinery cost",
    "Dose de référence": "Reference dose",
    "Matière active": "Active ingredient",
    "Concentration": "Concentration",
    "EIQ": "EIQ",
    "EIQ matière active": "Active ingredient EIQ",
    "Facteur fabrication": "Manufacture factor",
    "Prix produit": "Product price",
    "Type d'azote": "Nitrogen type",
}


def key_label(key: str) -> str:
    """A key as the pages name it ("Prix produit" → "Product price"); another word stays."""
    return _ENGLISH.get(key, key)


@functools.lru_cache(maxsize=4096)
def normalise(text: str) -> str:
    """Lower case, no accents, single spaces: how keys and words are compared (kept: a system
    page reads every intervention's name and description again)."""
    stripped = "".join(
        c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)
    )
    return " ".join(stripped.replace("’", "'").casefold().split())


_CANONICAL = {normalise(alias): key for key, aliases in _ALIASES.items() for alias in aliases}
_CANONICAL.update({normalise(key): key for key in _ALIASES})


def is_known_key(written: str) -> bool:
    """Whether written is a key (or a spelling of one) the calculators read."""
    return normalise(written) in _CANONICAL


def canonical_key(written: str) -> str:
    """The calculators' name for a key as written ("fuel" → "Carburant"); unknown keys stay."""
    return _CANONICAL.get(normalise(written), written.strip())


@dataclass(frozen=True)
class Assumption:
    key: str  # canonical
    value: str
    level: str  # one of LEVELS
    written_key: str = ""

    @property
    def line(self) -> str:
        """The assumption as a Markdown line, to show or to append to a level's text."""
        return f"- **{self.written_key or self.key}**: {self.value}"

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "value": self.value, "level": self.level}


def parse_assumptions(markdown: str | None, level: str = "intervention") -> list[Assumption]:
    """Every "- **Key**: Value" line of markdown, in order, keys made canonical."""
    return list(_parsed(markdown or "", level))


# Kept per text: a system's and a step's are read again for each of their interventions (the
# stale values of a system page resolve every intervention's).
@functools.lru_cache(maxsize=2048)
def _parsed(markdown: str, level: str) -> tuple[Assumption, ...]:
    found = []
    for line in markdown.splitlines():
        match = _LINE.match(line)
        if match is None or not (match.group("inner") or match.group("outer")):
            continue
        value = match.group("value").strip()
        if value:
            written = match.group("key").strip()
            found.append(Assumption(canonical_key(written), value, level, written))
    return tuple(found)


class Assumptions:
    """The assumptions that hold for one intervention: per key, the most specific level's."""

    def __init__(self, by_level: Mapping[str, Iterable[Assumption]]) -> None:
        self.chosen: dict[str, Assumption] = {}
        self.issues: list[Issue] = []
        # When watched: every key a calculator read and what it held ("" when unset).
        self.read: dict[str, str] | None = None
        seen: dict[str, list[Assumption]] = {}
        for level in LEVELS:
            for assumption in by_level.get(level, ()):
                seen.setdefault(assumption.key, []).append(assumption)
                self.chosen[assumption.key] = assumption
        for key, found in seen.items():
            self._flag(key, found)

    def _flag(self, key: str, found: list[Assumption]) -> None:
        winner = found[-1]
        for other in found[:-1]:
            if normalise(other.value) == normalise(winner.value):
                continue
            written = other.level in WRITTEN_LEVELS and winner.level in WRITTEN_LEVELS
            self.issues.append(
                Issue(
                    "assumption_conflict" if written else "assumption_overrides_description",
                    Severity.warning if written else Severity.info,
                    key,
                    f"{key}: “{other.value}” ({other.level}) and “{winner.value}” "
                    f"({winner.level}); the {winner.level} one is used.",
                    {"levels": [other.level, winner.level], "values": [other.value, winner.value]},
                )
            )

    def get(self, key: str) -> Assumption | None:
        key = canonical_key(key)
        found = self.chosen.get(key)
        if self.read is not None:
            self.read[key] = found.value if found else ""
        return found

    def watched(self) -> Assumptions:
        """The same assumptions, noting in read each key asked for: what a calculated value
        rests on, so that it is known to be stale when one of them changes."""
        watching = copy.copy(self)
        watching.read = {}
        return watching

    def text(self, key: str) -> str | None:
        found = self.get(key)
        return found.value if found else None

    def quantity(self, key: str) -> Quantity | None:
        """The first number (with its unit) in key's value, or None."""
        text = self.text(key)
        return find_quantity(text) if text else None

    def lines(self, keys: Iterable[str]) -> list[str]:
        """ "Key: value (level)" for each of keys that holds, for a result's assumptions[]."""
        return [f"{a.key}: {a.value} ({a.level})" for k in keys if (a := self.get(k)) is not None]


def resolve(
    system: str | None = None,
    step: str | None = None,
    intervention: str | None = None,
    proposed: Iterable[Assumption] = (),
    crop: str | None = None,
) -> Assumptions:
    """The assumptions of the three levels' Markdown plus those proposed from the description
    and, as its crop, the step's name."""
    return Assumptions(
        {
            "step_name": [Assumption("Culture", crop, "step_name", "Culture")] if crop else [],
            "system": parse_assumptions(system, "system"),
            "step": parse_assumptions(step, "step"),
            "proposed": list(proposed),
            "intervention": parse_assumptions(intervention, "intervention"),
        }
    )


def resolve_for(document: Mapping[str, Any], step_id: str, intervention_id: str) -> Assumptions:
    """The assumptions for one intervention of a system document (seed 003's shape)."""
    step = find_step(document, step_id)
    return resolve_at(document, step, find_intervention(step, intervention_id))


def resolve_at(
    document: Mapping[str, Any], step: Mapping[str, Any], intervention: Mapping[str, Any]
) -> Assumptions:
    """resolve_for with the step and intervention at hand (a loop over every intervention)."""
    proposed = propose_assumptions(
        intervention.get("name") or "", intervention.get("description") or ""
    )
    return resolve(
        document.get("assumptions"),
        step.get("assumptions"),
        intervention.get("assumptions"),
        proposed,
        step.get("name"),
    )


def find_step(document: Mapping[str, Any], step_id: str) -> Mapping[str, Any]:
    for step in document.get("steps") or ():
        if step.get("id") == step_id:
            return step
    raise KeyError(f"no step {step_id!r}")


def find_intervention(step: Mapping[str, Any], intervention_id: str) -> Mapping[str, Any]:
    for intervention in step.get("interventions") or ():
        if intervention.get("id") == intervention_id:
            return intervention
    raise KeyError(f"no intervention {intervention_id!r} in step {step.get('id')!r}")


# Operation types and the words (French and English, normalised) that name them; the more
# specific phrases come first ("semis direct" before "semis").
OPERATIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("semis_direct", ("semis direct", "direct drilling", "direct seeding", "no-till drilling")),
    (
        "semis_monograine",
        ("semis monograine", "monograine", "precision drilling", "precision drill"),
    ),
    ("herse_rotative", ("herse rotative", "rotary harrow", "power harrow")),
    ("labour", ("labour", "charrue", "ploughing", "plowing", "plough", "plow")),
    ("decompactage", ("decompactage", "decompacteur", "sous-solage", "subsoiling", "loosening")),
    (
        "dechaumage",
        ("dechaumage", "dechaumeur", "stubble cultivation", "stubble cultivator", "stubble"),
    ),
    ("binage", ("binage", "bineuse", "desherbage mecanique", "herse etrille", "hoeing")),
    ("semis", ("semis", "semer", "semoir", "sowing", "drilling", "seeding")),
    (
        "pulverisation",
        (
            "pulverisation",
            "pulverisateur",
            "traitement",
            "desherbage",
            "herbicide",
            "fongicide",
            "fungicide",
            "insecticide",
            "spraying",
            "spray",
        ),
    ),
    (
        "epandage",
        (
            "epandage",
            "epandeur",
            "fertilisation",
            "apport",
            "ammonitrate",
            "uree",
            "engrais",
            "lisier",
            "fumier",
            "spreading",
            "fertiliser",
            "fertilizer",
        ),
    ),
    ("fauche", ("fauche", "faucheuse", "mowing", "mower")),
    ("fanage", ("fanage", "faneuse", "tedding", "tedder")),
    ("andainage", ("andainage", "andaineur", "swathing", "raking", "windrowing")),
    ("ensilage", ("ensilage", "ensileuse", "silage", "forage harvester")),
    ("moisson", ("moisson", "moissonneuse", "recolte", "battage", "combining", "harvest")),
    # Last: a harvest "avec broyage des pailles" is a harvest.
    ("broyage", ("broyage", "broyeur", "mulching", "mulcher", "shredding", "shredder")),
)

# What people read for each operation type (the types are the calculators' ids).
OPERATION_LABELS = {
    "semis_direct": "Semis direct",
    "semis_monograine": "Semis monograine",
    "herse_rotative": "Herse rotative",
    "labour": "Labour",
    "decompactage": "Décompactage",
    "dechaumage": "Déchaumage",
    "binage": "Binage",
    "semis": "Semis",
    "pulverisation": "Pulvérisation",
    "epandage": "Épandage",
    "broyage": "Broyage",
    "fauche": "Fauche",
    "fanage": "Fanage",
    "andainage": "Andainage",
    "ensilage": "Ensilage",
    "moisson": "Moisson",
}

# Words that name an IFT segment; seed treatment and biocontrol first, as they are also
# "traitement".
SEGMENTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("seed_treatment", ("traitement de semences", "traitement semences", "seed treatment")),
    ("biocontrol", ("biocontrole", "biocontrol", "biologique")),
    ("herbicide", ("herbicide", "desherbage", "weed")),
    ("fungicide", ("fongicide", "fungicide", "maladie")),
    ("insecticide", ("insecticide", "acaricide", "puceron", "aphid", "ravageur")),
    ("other", ("regulateur", "growth regulator", "molluscicide", "anti-limace")),
)

_ORGANIC_WORDS = ("fumier", "lisier", "compost", "digestat", "fientes", "manure", "slurry")


@functools.cache
def _phrase_patterns(
    table: tuple[tuple[str, tuple[str, ...]], ...],
) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """Each name of a table with one pattern for its phrases as whole words."""
    return tuple(
        (name, re.compile("|".join(rf"(?<!\w){re.escape(p)}(?!\w)" for p in phrases)))
        for name, phrases in table
    )


def _first_match(text: str, table: tuple[tuple[str, tuple[str, ...]], ...]) -> str | None:
    words = normalise(text)
    return next((name for name, found in _phrase_patterns(table) if found.search(words)), None)


def operation_type(text: str) -> str | None:
    """The operation type the words of text name ("Labour 25 cm" → "labour"), or None."""
    return _first_match(text, OPERATIONS)


def operation_id(text: str) -> str:
    """The operation type an "Opération" value names ("Charrue 4 corps" → "labour"); one that
    names none stays as written, in the ids' spelling."""
    return operation_type(text) or normalise(text).replace(" ", "_")


def operation_label(kind: str, written: str = "") -> str:
    """The words people read for an operation type ("semis_monograine" → "Semis monograine");
    written (or the type) when it is not one of ours."""
    return OPERATION_LABELS.get(kind) or written or kind


def treatment_segment(text: str) -> str | None:
    """The IFT segment the words of text name ("Désherbage …" → "herbicide"), or None."""
    return _first_match(text, SEGMENTS)


def is_organic(text: str) -> bool:
    """Whether text names an organic fertiliser (its N counts as azoteOrganique)."""
    words = normalise(text)
    return any(re.search(rf"(?<!\w){w}(?!\w)", words) for w in _ORGANIC_WORDS)


_RATE_UNIT = re.compile(r"^(?:k?g|t|q|m3|m³|l|ml|hl|u)\s*/\s*ha$", re.IGNORECASE)
# Operation words that are also product names stay in the product ("Ammonitrate 33,5 %").
_PRODUCT_WORDS = frozenset({"ammonitrate", "uree", "lisier", "fumier"})
_OPERATION_PHRASES = frozenset(
    p for _, phrases in OPERATIONS for p in phrases if p not in _PRODUCT_WORDS
)
# A width is proposed only when written in metres right after an implement ("Déchaumeur à disques
# 4 m", "rampe de 24 m"), at most three words apart: never a number from elsewhere.
_IMPLEMENTS = (
    "dechaumeur",
    "charrue",
    "herse",
    "semoir",
    "pulverisateur",
    "rampe",
    "broyeur",
    "faucheuse",
    "moissonneuse",
    "barre de coupe",
    "coupe",
    "epandeur",
    "bineuse",
    "rouleau",
    "cultivateur",
    "vibroculteur",
    "decompacteur",
    "andaineur",
    "faneuse",
    "combine",
    "drill",
    "sprayer",
    "boom",
    "mower",
    "mulcher",
    "plough",
    "plow",
    "cultivator",
    "harrow",
    "header",
    "spreader",
)
_WIDTH = re.compile(
    rf"(?<!\w)(?:{'|'.join(_IMPLEMENTS)})\w*(?:[ -][^\W\d][\w'-]*){{0,3}}"
    r"\s+(?P<width>\d+(?:[.,]\d+)?)\s*m(?![\w²³])"
)
_CONNECTORS = frozenset({"au", "a", "avec", "de", "du", "with", "of", "par", ":", "-", "–"})
_ON = re.compile(r"(?:\bsur|\bon|\bover)\s*$", re.IGNORECASE)


def propose_assumptions(name: str, description: str = "") -> list[Assumption]:
    """What an intervention's name and description say: operation type, product(s), dose(s),
    share treated, N content, IFT segment and the implement's width — proposals the user can
    correct."""
    return list(_proposed(name, description))


@functools.lru_cache(maxsize=2048)
def _proposed(name: str, description: str) -> tuple[Assumption, ...]:
    proposed: dict[str, str] = {}
    text = f"{name}. {description}"
    if (operation := operation_type(text)) is not None:
        proposed["Opération"] = operation_label(operation)
    if (segment := treatment_segment(text)) is not None and operation == "pulverisation":
        proposed["Segment"] = segment
    for part in (name, description):
        if "Dose" not in proposed:
            proposed.update(_products_and_doses(part))
    if (width := _WIDTH.search(normalise(text))) is not None:
        proposed["Largeur"] = f"{_shown(parse_number(width['width']))} m"
    return tuple(Assumption(k, v, "proposed", k) for k, v in proposed.items())


def _products_and_doses(text: str) -> dict[str, str]:
    """Products, doses, share treated and N content written in one text ("A 1 L/ha + B 2 L/ha")."""
    products, doses, found = [], [], {}
    for chunk in text.split(" + "):
        start, dosed = 0, False
        for quantity in quantities(chunk):
            unit = (quantity.unit or "").strip()
            if unit == "%":
                if _ON.search(chunk[: quantity.start]):
                    found["Surface traitée"] = _written(chunk, quantity, unit)
                else:
                    found["Teneur N"] = _written(chunk, quantity, unit)
                    start = start or quantity.start
            elif _RATE_UNIT.match(unit) and not dosed:
                dosed, start = True, start or quantity.start
                doses.append(_written(chunk, quantity, unit))
                if product := _product_name(chunk[:start]):
                    products.append(product)
    if doses:
        found["Dose"] = " + ".join(doses)
        if len(products) == len(doses):
            found["Produit"] = " + ".join(products)
    return found


def _product_name(text: str) -> str:
    """The words before a dose, less the leading operation words and connectors."""
    words = text.replace(",", " ").split()
    while words:
        for size in (3, 2, 1):
            head = normalise(" ".join(words[:size]))
            if head in _OPERATION_PHRASES or (size == 1 and head in _CONNECTORS):
                del words[:size]
                break
        else:
            break
    return " ".join(words).strip(" :;.-–")


def _shown(value: float) -> str:
    return f"{value:g}"


def _written(text: str, quantity: Quantity, unit: str) -> str:
    """A number and its unit as proposed: "3.5 L/ha"; a range as written ("2 à 3 L/ha"), so
    that the calculators read it as a range, never as its first bound."""
    if quantity.bounds is not None:
        return text[quantity.start : quantity.end]
    return f"{_shown(quantity.value)} {unit}"
