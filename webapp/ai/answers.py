"""A model's answer read against the pydantic model its schema came from: the answer, or the
problems to send back to the model. A pydantic exception never leaves this module."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)

# An answer broken everywhere is summed up: the re-ask prompt and the item's error stay short.
MOST_PROBLEMS = 12


def strict_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema as OpenAI's strict structured outputs take it: every property
    required, no additional properties (the SDK's own conversion, as `responses.parse` uses;
    imported here, when a model is about to be asked, not with the app)."""
    from openai.lib._pydantic import to_strict_json_schema

    return to_strict_json_schema(model)


# The most items an array of an answer may hold on a server that holds its model to the schema
# (a local server's grammar): without an end, a small model repeats items until the output
# limit cuts it off. OpenAI's strict mode refuses maxItems, so its schema goes without.
MOST_ITEMS = 50


def bounded_arrays(schema: Any, most: int = MOST_ITEMS) -> Any:
    """The schema with every array that has no maxItems given one."""
    if isinstance(schema, list):
        return [bounded_arrays(part, most) for part in schema]
    if not isinstance(schema, dict):
        return schema
    bounded = {key: bounded_arrays(value, most) for key, value in schema.items()}
    kinds = schema.get("type")
    is_array = kinds == "array" or (isinstance(kinds, list) and "array" in kinds)
    if is_array and "maxItems" not in schema:
        bounded["maxItems"] = most
    return bounded


def schema_name(model: type[BaseModel]) -> str:
    """The name the schema is sent under: the model's title, else its class name."""
    return model.model_config.get("title") or model.__name__


def read_answer(model: type[M], text: str) -> tuple[M | None, list[str]]:
    """The answer as the model, or None and what is wrong with it, each problem one line."""
    try:
        return model.model_validate_json(text), []
    except ValidationError as exc:
        return None, problems_of(exc)


def problems_of(error: ValidationError) -> list[str]:
    problems = []
    for item in error.errors(include_url=False):
        if item["type"] == "json_invalid":
            problems.append(f"the answer is not valid JSON ({item['msg']})")
            continue
        where = ".".join(str(part) for part in item["loc"]) or "the answer"
        # A validator's own message is for people already: no "Value error, " before it.
        cause = (item.get("ctx") or {}).get("error")
        problems.append(f"{where}: {cause if item['type'] == 'value_error' else item['msg']}")
    if len(problems) > MOST_PROBLEMS:
        more = len(problems) - MOST_PROBLEMS
        problems = [*problems[:MOST_PROBLEMS], f"and {more} more problem(s)"]
    return problems
