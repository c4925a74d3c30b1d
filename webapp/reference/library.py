"""Load and look up the bundled crop reference library (``crops.json`` next to this module).

Every value in the library comes from the public sources it lists: transcribed,
unit-converted, or marked ``derived`` where it is a range worked out from them. Each
fact cites a source (URL and title); the library never cites itself.

JSON shape::

    {"sources": {"<source_id>": {"url": "https://...", "title": "...", "publisher": "...",
                                 "scope": ["Germany", "Deutschland"]}},  # optional: where
                                 # its figures hold; a row about elsewhere takes none of them
     "crops": [
       {"id": "tomato",                       # snake_case English, unique
        "names": {"en": "...", "de": "...", "fr": "...", "ja": "..."},
        "aliases": ["tomatoes", "トマト", ...],  # extra spellings; no alias names two crops
        "family": "Solanaceae",
        "species": "Solanum lycopersicum",    # the Latin binomial (or the species' genus
                                              # and species where a crop spans several)
        "crop_type": "sweet corn",            # optional: the named type within the species
                                              # ("sweet corn" vs "grain maize" for Zea mays)
        "excludes": ["tree tomato"],          # optional: names that contain one of this crop's
                                              # names but are other crops ("sweet potato")
        "facts": {"<fact name>": {<fact>}}}],
     "confusions": [                          # optional: names known to be taken for a crop
       {"name": "black-eyed pea",             # the name as people write it
        "species": "Vigna unguiculata",       # what it really is
        "not": ["pea"],                       # the library crops it must never match
        "note": "cowpea, a Vigna, not the garden pea"}]}

A fact always has ``min``, ``max``, ``cap`` (number or null), ``unit``, ``source`` (a source
id), ``claim`` (what the source states, with its numbers; derived facts say they are derived
and not a quotation) and ``derived`` (bool). ``value`` holds a text value (only
``nutrient_demand_class``). Every other key lands in ``Fact.extra``; JSON objects become
read-only mappings and JSON lists become tuples. Ranges stated by a source are ``[lo, hi]``.

Fact names and their extra keys:

- ``total_growing_period_days``: total days, sowing or planting to the end of the season, as
  FAO-56 Table 11, FAO Ecocrop or a crop manual states them; min-max. Not a culture's growth
  duration (planting to *first* harvest).
- ``days_to_first_harvest``: days to first harvest as a source states it ("days to maturity"
  tables); extra ``basis``: ``sowing`` or ``transplanting``, what the count starts from.
- ``yield_per_sqm_kg``, ``yield_per_plant_kg``: typical min-max; ``cap`` is Furrow's hard
  plausibility limit for the crop (a limit, never evidence).
- ``plants_per_m2``: typical min-max.
- ``thousand_kernel_weight_g``: min-max (faba bean: max only); absent for potato and garlic,
  where TKG does not apply.

``derived`` says whether min/max (or ``value``) are what the cited source states for this crop
(false: transcribed, or converted by a unit factor or a formula the claim shows, such as spacing
to plants/m² or seeds per gram to TKG) or a range worked out beyond that (true). A derived fact
is never evidence for a value: it can only be offered for a person to confirm.
- ``n_demand_kg_per_ha``: DüV Anlage 4, min = max = the N demand; extra
  ``reference_yield_dt_per_ha``.
- ``nutrient_demand_class``: derived from the DüV N demand; ``value`` is low, medium or high.
- ``nutrient_removal_lb_per_acre``: New England Vegetable Management Guide; min/max null; extra
  ``n``, ``p2o5``, ``k2o`` (number or ``[lo, hi]``) and ``at_yield`` (e.g. "20 t/A").
- ``nutrient_uptake_kg_per_ha``: FAO tomato page; min/max null; extra ``n``, ``p``, ``k``, each
  ``[lo, hi]`` kg/ha as the page states them.
- ``nutrient_uptake_kg_per_t``: elemental uptake per tonne of harvested product (rice grain);
  min/max null; extra ``n``, ``p``, ``k`` in kg per t as the source states them.

Every nutrient fact says in extra ``basis`` whether its P and K are ``elemental``, ``oxide``
(P2O5, K2O) or ``unstated`` (the source does not say: both readings are shown, neither used as
a dose); ``kind`` names what a figure is where the fact's name does not (FAO's "fertilizer
requirements"). None of these figures is a dose for a field: fertilizer.methods gives doses.

Optional extra keys on any fact:

- ``anchor`` (derived facts): the figure in the cited source that the range rests on, or null
  when the cited source gives no figure for this crop (the claim then says so).
- ``setting``: what min/max apply to when the source also gives other settings, e.g. "field,
  one cycle" or "quality groups A/B".
- ``variants``: those other settings, ``{label: {"min", "max", "cap", ...}}``, e.g. greenhouse
  tomato per year, or winter wheat quality group E.
- ``figure``: the figure as the source writes it ("26-40 t/ha", "8-10 weeks"), found verbatim
  in the claim, for facts whose min/max are a unit conversion of it.

Names match whole words, accents and case aside; an English plural the library does not list
("strawberries", "parsnips") is matched by its singular when the name as given matches nothing.
A catalog form "X, Y" or "X – Y" (one comma, or one dash with spaces around it) is read as
"Y X": "Beans, Bush" is "Bush Beans", "Squash – Summer" is "Summer Squash".

A reference crop is a species, or a named crop type within one (sweet corn and grain maize are
both Zea mays). A name that is another species or type matches nothing, never the nearest
crop: a crop is not matched through a shorter name inside a known confusion ("Black-eyed
peas" holds "peas" but is a cowpea), and a name that only says the species where the library
holds two of its types ("corn") is itself a confusion. Only a crop's own whole name overrides:
"sweet corn" holds "corn" and is sweet corn.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

DEFAULT_PATH = Path(__file__).with_name("crops.json")

_FACT_KEYS = frozenset(
    {"min", "max", "cap", "unit", "value", "source", "claim", "derived"},
)
_WORD_BREAK = re.compile(r"[\W_]+")
# Catalog forms: "Beans, Bush" and "Squash – Summer" (a dash with spaces around it; "Rote-Bete"
# is one name) name the second part's kind of the first.
_COMMA_FORM = re.compile(r"^([^,]+),([^,]+)$")
_DASH_FORM = re.compile(r"^(.+?)\s+[-\u2010-\u2015]\s+(.+)$")
_HYPHEN_FORM = re.compile(r"^([^\s,\-\u2010-\u2015]+)[-\u2010\u2011]([^,\-\u2010-\u2015]+)$")
# What a days-to-first-harvest count starts from.
BASES = ("sowing", "transplanting")


@dataclass(frozen=True)
class Source:
    id: str
    url: str
    title: str
    publisher: str
    # Where its figures hold, when a place bounds them ("Germany", "Deutschland"): the first
    # name is the one shown. Empty: no place is named.
    scope: tuple[str, ...] = ()


@dataclass(frozen=True)
class Fact:
    name: str
    min: float | None
    max: float | None
    cap: float | None
    unit: str
    value: str | None
    source: Source
    claim: str
    derived: bool
    extra: Mapping[str, Any]

    def __hash__(self) -> int:
        return hash((self.name, self.source.id, self.min, self.max, self.cap, self.value))

    @property
    def midpoint(self) -> float | None:
        if self.min is None or self.max is None:
            return None
        return (self.min + self.max) / 2

    @property
    def is_range(self) -> bool:
        return self.min is not None and self.max is not None and self.min != self.max


@dataclass(frozen=True)
class Crop:
    id: str
    names: Mapping[str, str]
    aliases: tuple[str, ...]
    family: str
    facts: Mapping[str, Fact]
    excludes: tuple[str, ...] = ()
    species: str = ""
    crop_type: str | None = None

    def __hash__(self) -> int:
        return hash(self.id)

    def label(self, lang: str = "en") -> str:
        """The crop as a person checks a match: "Pea, Pisum sativum"; "Sweet corn, Zea mays"; the
        type is named where the name does not say it: "Zucchini, Cucurbita pepo (summer squash)"."""
        name = self.name(lang)
        text = f"{name}, {self.species}" if self.species else name
        if self.crop_type and self.crop_type.casefold() != name.casefold():
            return f"{text} ({self.crop_type})"
        return text

    def fact(self, name: str) -> Fact | None:
        return self.facts.get(name)

    def name(self, lang: str = "en") -> str:
        return self.names.get(lang) or self.names["en"]


def _words(text: str) -> tuple[str, ...]:
    """Lower-case words without accents: 'Rote-Bete', ' rote  bete ' and 'ROTE BETE' agree."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    # Drop Latin accents (é -> e) but keep other marks, such as the kana voicing marks.
    decomposed = unicodedata.normalize("NFD", folded)
    bare = "".join(ch for ch in decomposed if not "\u0300" <= ch <= "\u036f")
    return tuple(word for word in _WORD_BREAK.split(unicodedata.normalize("NFC", bare)) if word)


def _contains(words: tuple[str, ...], phrase: tuple[str, ...]) -> bool:
    size = len(phrase)
    return any(words[i : i + size] == phrase for i in range(len(words) - size + 1))


def _without(words: tuple[str, ...], phrase: tuple[str, ...]) -> tuple[str, ...]:
    size = len(phrase)
    for i in range(len(words) - size + 1):
        if words[i : i + size] == phrase:
            return words[:i] + words[i + size :]
    return words


def _singular(word: str) -> str:
    """The English singular of a plural word ("strawberries", "potatoes", "radishes", "leeks");
    other words as they are. Only asked when the name as given matches no crop."""
    if len(word) <= 3 or not word.isascii():
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("oes", "ches", "shes", "xes", "sses")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _singulars(words: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(_singular(word) for word in words)


def _excluded(crop: Crop, said: Iterable[tuple[str, ...]]) -> bool:
    """Whether what was said contains a name the crop excludes ("sweet potato" for potato)."""
    phrases = [_words(phrase) for phrase in crop.excludes]
    return any(_contains(words, phrase) for words in said for phrase in phrases)


@dataclass(frozen=True)
class Confusion:
    """A name known to be taken for a library crop it is not (cowpea for the garden pea)."""

    name: str
    species: str
    not_crops: tuple[str, ...]
    note: str

    @property
    def words(self) -> tuple[str, ...]:
        return _words(self.name)


def catalog_reading(name: str) -> str:
    """ "Beans, Bush" -> "Bush Beans", "Squash – Summer" -> "Summer Squash"; other names as
    they are. Only a name with one comma, or one spaced dash, is read this way."""
    for form in (_COMMA_FORM, _DASH_FORM):
        found = form.match(name.strip())
        if found and all(_words(part) for part in found.groups()):
            first, second = found.groups()
            if form is _DASH_FORM and _DASH_FORM.match(second):
                return name
            return f"{second.strip()} {first.strip()}"
    return name


def _hyphen_swapped(name: str) -> str | None:
    """ "Bean-Bush" -> "Bush Bean": a one-word first part and a bare hyphen, read the other way
    round; None for other names."""
    found = _HYPHEN_FORM.match(name.strip())
    if found is None or not all(_words(part) for part in found.groups()):
        return None
    return f"{found.group(2).strip()} {found.group(1)}"


def _frozen(value: Any) -> Any:
    if isinstance(value, Mapping):
        return MappingProxyType({key: _frozen(item) for key, item in value.items()})
    if isinstance(value, list | tuple):
        return tuple(_frozen(item) for item in value)
    return value


class ReferenceLibrary:
    """The crops of one library file, looked up by id or by any of their names."""

    def __init__(
        self,
        crops: Iterable[Crop],
        sources: Mapping[str, Source],
        confusions: Iterable[Confusion] = (),
    ) -> None:
        self.crops: tuple[Crop, ...] = tuple(crops)
        self.sources: Mapping[str, Source] = MappingProxyType(dict(sources))
        self.confusions: tuple[Confusion, ...] = tuple(confusions)
        self._by_id: dict[str, Crop] = {}
        self._by_name: dict[tuple[str, ...], Crop] = {}
        for crop in self.crops:
            if crop.id in self._by_id:
                raise ValueError(f"crop {crop.id!r} appears twice")
            self._by_id[crop.id] = crop
            for spelling in (crop.id, *crop.names.values(), *crop.aliases):
                key = _words(spelling)
                if not key:
                    raise ValueError(f"crop {crop.id!r}: the name {spelling!r} has no letters")
                owner = self._by_name.setdefault(key, crop)
                if owner is not crop:
                    raise ValueError(
                        f"crop {crop.id!r}: the alias {spelling!r} also names crop {owner.id!r}"
                    )
        for crop in self.crops:
            for excluded in crop.excludes:
                if self._by_name.get(_words(excluded)) is crop:
                    raise ValueError(
                        f"crop {crop.id!r}: {excluded!r} is both a name and an exclusion"
                    )
        for confusion in self.confusions:
            if not confusion.words:
                raise ValueError(f"the confusion {confusion.name!r} has no letters")
            if (owner := self._by_name.get(confusion.words)) is not None:
                raise ValueError(f"the confusion {confusion.name!r} is a name of crop {owner.id!r}")
            for crop_id in confusion.not_crops:
                if crop_id not in self._by_id:
                    raise ValueError(
                        f"the confusion {confusion.name!r} names unknown crop {crop_id!r}"
                    )

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> ReferenceLibrary:
        """Build from parsed JSON, refusing anything that would cite or state a bad value."""
        try:
            raw_sources = data["sources"]
            raw_crops = data["crops"]
        except (KeyError, TypeError) as exc:
            raise ValueError("reference library needs 'sources' and 'crops'") from exc
        sources = {key: _source(key, raw) for key, raw in raw_sources.items()}
        confusions = data.get("confusions", [])
        if not isinstance(confusions, list):
            raise ValueError("'confusions' must be a list")
        return cls(
            (_crop(raw, sources) for raw in raw_crops),
            sources,
            [_confusion(raw) for raw in confusions],
        )

    def get(self, crop_id: str) -> Crop | None:
        return self._by_id.get(crop_id)

    def resolve(self, name: str, variety: str | None = None) -> Crop | None:
        """The crop a person means by ``name`` (and ``variety``), or None; never a fuzzy guess.

        Whole-name matches come first: the name with the variety added after or before it
        ("Barley" + "Spring" is spring barley), the name as given, and the name with the
        variety taken out. Then runs of words of the name without the variety, longest first:
        "Cherry tomato" and "Tomate 'Harzfeuer'" find tomato. Runs of one length that name two
        crops, or a name the crop excludes ("sweet potato"), give None. A name that matches
        nothing is tried once more with its English plurals made singular ("Parsnips").
        A catalog form is read first ("Beans, Bush" is "Bush Beans"); a name of two parts
        joined by a bare hyphen is read the other way round ("Bean-Bush", "Squash-summer")
        only when as written it matches nothing, since "Rote-Bete" is one name. A crop found
        through a run of words that lies inside a known confusion ("peas" in "Black Eyed
        Peas") gives None: the name is that other species or type.
        """
        if not isinstance(name, str):
            return None
        reading = catalog_reading(name)
        crop = self._resolve_reading(reading, variety)
        swapped = _hyphen_swapped(name)
        if swapped is None:
            return crop
        if crop is None:
            # "Black-eyed peas" matches nothing as written: a confusion, not a catalog form.
            # A one-word confusion ("Squash-summer": squash alone is ambiguous) is what the
            # other reading may settle.
            if self._holds_confusion(_words(reading)):
                return None
            return self._resolve_reading(swapped, variety)
        return None if self.confusion_with(crop, swapped, variety) else crop

    def _holds_confusion(self, words: tuple[str, ...]) -> bool:
        said = (words, _singulars(words))
        return any(
            _contains(spoken, phrase)
            for confusion in self.confusions
            if len(confusion.words) > 1
            for phrase in (confusion.words, _singulars(confusion.words))
            for spoken in said
        )

    def _resolve_reading(self, reading: str, variety: str | None) -> Crop | None:
        words = _words(reading)
        if not words:
            return None
        variety_words = _words(variety) if isinstance(variety, str) else ()
        crop = self._resolve_words(words, variety_words)
        if crop is None and _singulars(words) != words:
            crop = self._resolve_words(_singulars(words), _singulars(variety_words))
        return crop

    def _resolve_words(self, words: tuple[str, ...], variety_words: tuple[str, ...]) -> Crop | None:
        base = _without(words, variety_words) if variety_words else words
        combined = [base + variety_words, variety_words + base] if variety_words else []
        said = [words, base, *combined]
        # "Sweet potatoes" names what "sweet potato" does: exclusions read the singular too.
        said += [_singulars(spoken) for spoken in said]
        for candidate in [*combined, words, base]:
            crop = self._by_name.get(candidate)
            if crop is not None:
                return None if _excluded(crop, said) else crop
        for size in range(len(base) - 1, 0, -1):
            found = {
                self._by_name[run].id: (self._by_name[run], run)
                for run in (base[i : i + size] for i in range(len(base) - size + 1))
                if run in self._by_name
            }
            if len(found) > 1:
                return None
            if found:
                ((crop, run),) = found.values()
                if _excluded(crop, said) or self.confusion_for(crop, run, said) is not None:
                    return None
                return crop
        return None

    def confusion(self, name: str, variety: str | None = None) -> Confusion | None:
        """Why ``name`` matches no crop, when it is a known confusion ("Cow peas": a cowpea,
        Vigna unguiculata, not the pea); None for a name that matches a crop."""
        if not isinstance(name, str) or self.resolve(name, variety) is not None:
            return None
        words = _words(catalog_reading(name))
        variety_words = _words(variety) if isinstance(variety, str) else ()
        said = [words, _without(words, variety_words), _singulars(words)]
        if (swapped := _hyphen_swapped(name)) is not None:
            said += [_words(swapped), _singulars(_words(swapped))]
        for confusion in sorted(self.confusions, key=lambda known: -len(known.words)):
            phrase = confusion.words
            if any(_contains(spoken, phrase) for spoken in said) or any(
                _contains(spoken, _singulars(phrase)) for spoken in said
            ):
                return confusion
        return None

    def confusion_with(self, crop: Crop, name: str, variety: str | None = None) -> Confusion | None:
        """The known confusion that says ``name`` is not ``crop`` though the crop may have been
        chosen or stored for it (a culture "Black Eyed Peas" kept as pea): None when the name
        holds no confusion of the crop, or is one of the crop's own whole names."""
        if not isinstance(name, str):
            return None
        words = _words(catalog_reading(name))
        variety_words = _words(variety) if isinstance(variety, str) else ()
        base = _without(words, variety_words) if variety_words else words
        said = [words, base, _singulars(words), _singulars(base)]
        if any(self._by_name.get(spoken) is crop for spoken in said):
            return None
        runs = [
            spoken[i : i + size]
            for spoken in said
            for size in range(len(spoken), 0, -1)
            for i in range(len(spoken) - size + 1)
            if self._by_name.get(spoken[i : i + size]) is crop
        ]
        own = max(runs, key=len, default=())
        return self.confusion_for(crop, own, said)

    def confusion_for(
        self, crop: Crop, run: tuple[str, ...], said: Iterable[tuple[str, ...]]
    ) -> Confusion | None:
        """A confusion said beside ``run`` (the words that named ``crop``) that must not be
        taken for it; a confusion inside the run ("corn" in "field corn") is no reason."""
        said = list(said)
        for confusion in self.confusions:
            if crop.id not in confusion.not_crops:
                continue
            for phrase in {confusion.words, _singulars(confusion.words)}:
                inside = _contains(run, phrase) or _contains(_singulars(run), phrase)
                if not inside and any(_contains(spoken, phrase) for spoken in said):
                    return confusion
        return None


def _text(value: Any, where: str, field: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{where}: '{field}' must be non-empty text")
    return value


def _number(value: Any, where: str, field: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{where}: '{field}' must be a number or null")
    return float(value)


def _source(key: str, raw: Any) -> Source:
    where = f"source {key!r}"
    if not isinstance(raw, Mapping):
        raise ValueError(f"{where}: must be an object")
    url = _text(raw.get("url"), where, "url")
    if not url.startswith(("https://", "http://")):
        raise ValueError(f"{where}: url {url!r} must start with https:// or http://")
    return Source(
        id=key,
        url=url,
        title=_text(raw.get("title"), where, "title"),
        publisher=_text(raw.get("publisher"), where, "publisher"),
        scope=tuple(_text(place, where, "scope") for place in raw.get("scope", [])),
    )


def _check_bounds(raw: Mapping[str, Any], where: str) -> None:
    low = _number(raw.get("min"), where, "min")
    high = _number(raw.get("max"), where, "max")
    cap = _number(raw.get("cap"), where, "cap")
    if low is not None and high is not None and low > high:
        raise ValueError(f"{where}: min {low:g} is above max {high:g}")
    if cap is not None and high is not None and cap < high:
        raise ValueError(f"{where}: cap {cap:g} is below max {high:g}")


def _fact(crop_id: str, name: str, raw: Any, sources: Mapping[str, Source]) -> Fact:
    where = f"crop {crop_id!r}, fact {name!r}"
    if not isinstance(raw, Mapping):
        raise ValueError(f"{where}: must be an object")
    source_id = raw.get("source")
    if source_id not in sources:
        raise ValueError(f"{where}: cites unknown source {source_id!r}")
    if not isinstance(raw.get("derived"), bool):
        raise ValueError(f"{where}: 'derived' must be true or false")
    value = raw.get("value")
    if value is not None:
        _text(value, where, "value")
    _check_bounds(raw, where)
    if name == "days_to_first_harvest" and raw.get("basis") not in BASES:
        raise ValueError(f"{where}: 'basis' must be one of {', '.join(BASES)}")
    variants = raw.get("variants") or {}
    if not isinstance(variants, Mapping):
        raise ValueError(f"{where}: 'variants' must be an object")
    for label, variant in variants.items():
        if not isinstance(variant, Mapping):
            raise ValueError(f"{where}, variant {label!r}: must be an object")
        _check_bounds(variant, f"{where}, variant {label!r}")
    return Fact(
        name=name,
        min=_number(raw.get("min"), where, "min"),
        max=_number(raw.get("max"), where, "max"),
        cap=_number(raw.get("cap"), where, "cap"),
        unit=_text(raw.get("unit"), where, "unit"),
        value=value,
        source=sources[source_id],
        claim=_text(raw.get("claim"), where, "claim"),
        derived=raw["derived"],
        extra=_frozen({key: item for key, item in raw.items() if key not in _FACT_KEYS}),
    )


def _confusion(raw: Any) -> Confusion:
    if not isinstance(raw, Mapping):
        raise ValueError("every confusion must be an object")
    name = _text(raw.get("name"), "a confusion", "name")
    where = f"confusion {name!r}"
    not_crops = raw.get("not")
    if not isinstance(not_crops, list) or not not_crops:
        raise ValueError(f"{where}: 'not' must list the crops it must not match")
    return Confusion(
        name=name,
        species=_text(raw.get("species"), where, "species"),
        not_crops=tuple(_text(item, where, "not") for item in not_crops),
        note=_text(raw.get("note"), where, "note"),
    )


def _crop(raw: Any, sources: Mapping[str, Source]) -> Crop:
    if not isinstance(raw, Mapping):
        raise ValueError("every crop must be an object")
    crop_id = _text(raw.get("id"), "a crop", "id")
    where = f"crop {crop_id!r}"
    names = raw.get("names")
    if not isinstance(names, Mapping) or not isinstance(names.get("en"), str):
        raise ValueError(f"{where}: 'names' must include 'en'")
    for lang, spelled in names.items():
        _text(spelled, where, f"names.{lang}")
    aliases = raw.get("aliases", [])
    excludes = raw.get("excludes", [])
    for field, items in (("aliases", aliases), ("excludes", excludes)):
        if not isinstance(items, list):
            raise ValueError(f"{where}: '{field}' must be a list")
        for item in items:
            _text(item, where, field)
    facts = raw.get("facts", {})
    if not isinstance(facts, Mapping):
        raise ValueError(f"{where}: 'facts' must be an object")
    crop_type = raw.get("crop_type")
    if crop_type is not None:
        _text(crop_type, where, "crop_type")
    return Crop(
        id=crop_id,
        names=MappingProxyType(dict(names)),
        aliases=tuple(aliases),
        family=_text(raw.get("family"), where, "family"),
        facts=MappingProxyType(
            {name: _fact(crop_id, name, fact, sources) for name, fact in facts.items()}
        ),
        excludes=tuple(excludes),
        species=_text(raw["species"], where, "species") if "species" in raw else "",
        crop_type=crop_type,
    )


def load_library(path: Path | None = None) -> ReferenceLibrary:
    """Read and validate a library file (default: the bundled ``crops.json``)."""
    with (path or DEFAULT_PATH).open(encoding="utf-8") as handle:
        data = json.load(handle)
    return ReferenceLibrary.from_data(data)


@functools.cache
def library() -> ReferenceLibrary:
    """The bundled library, loaded once."""
    return load_library()
