"""What a model answers about a culture, as a pydantic model: the strict JSON schema it is asked
in and the check of what comes back.

The answer's structure is checked strictly: a broken one is asked again. A field's value, unit
and confidence are not: their type legitimately varies (a word, a number, a range, a list, seed
packages) and a malformed one is that field's issue, which `cultures.rules.read_values` and
`Confidence.parse` give with a message for people, while the rest of the answer is kept."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, JsonValue, WithJsonSchema, create_model

SEED_PACKAGE = {
    "type": "object",
    "additionalProperties": False,
    "required": ["size_value", "size_unit", "evidence_text"],
    "properties": {
        "size_value": {"type": "number"},
        "size_unit": {"type": "string", "enum": ["g", "seeds"]},
        "evidence_text": {"type": "string"},
    },
}
# Numbers, text (ranges too), lists of choices (cultivation types), seed packages.
Value = Annotated[
    JsonValue,
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "number"},
                {"type": "string"},
                {"type": "array", "items": {"type": "string"}},
                {"type": "array", "items": SEED_PACKAGE},
            ]
        }
    ),
]
Unit = Annotated[JsonValue, WithJsonSchema({"type": ["string", "null"]})]
Level = Annotated[
    JsonValue,
    WithJsonSchema({"type": ["string", "null"], "enum": ["high", "medium", "low", None]}),
]


class Strict(BaseModel):
    model_config = ConfigDict(strict=True)


class SuggestedField(Strict):
    value: Value
    unit: Unit = None
    confidence: Level = None


class Source(Strict):
    source_url: str
    title: str
    snippet: str
    retrieved_at: str | None


class Validation(Strict):
    warnings: list[str]
    errors: list[str]


class CultureAnswer(Strict):
    model_config = ConfigDict(title="culture_enrichment")

    # Per asked field (the subclasses answer_model makes): null when the sources do not say.
    suggested_fields: BaseModel
    evidence: BaseModel
    validation: Validation
    note_blocks: list[str]


def answer_model(fields: Sequence[str]) -> type[CultureAnswer]:
    """The answer for these fields: a key per field (a field not asked for is refused; one left
    out has no suggestion and no evidence)."""
    return _answer_model(tuple(fields))


@lru_cache(maxsize=64)  # a model per set of asked fields, built once
def _answer_model(fields: tuple[str, ...]) -> type[CultureAnswer]:
    closed = ConfigDict(strict=True, extra="forbid")
    suggested = create_model(
        "SuggestedFields", __config__=closed, **{n: (SuggestedField | None, None) for n in fields}
    )
    evidence = create_model(
        "FieldEvidence",
        __config__=closed,
        **{n: (list[Source], Field(default_factory=list)) for n in fields},
    )
    return create_model(
        "CultureAnswer",
        __base__=CultureAnswer,
        suggested_fields=(suggested, ...),
        evidence=(evidence, ...),
    )
