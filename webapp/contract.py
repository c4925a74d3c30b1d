"""The API contract, declared once: every JSON body and query string is a typed model checked
before the view runs, and the same models publish the OpenAPI 3.1 document the docs page and
the fuzzing suite read.

A view declares what it takes with `@accepts(body=Model, query=Model)` and what it answers with
`answers=`; the role `require_role` asks for is read from the view. A request that does not fit
is 422 `invalid_request` with every problem (`loc`, `code`, `message`). JSON numbers must be
finite (no `NaN`, `Infinity`, or `1e400`, which Python reads as infinity) and integers fit 64
bits: nothing non-finite or unstorable gets past the edge.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import wraps
from typing import Annotated, Any, TypeVar

from flask import Flask, abort, request
from flask.json.provider import DefaultJSONProvider
from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError, create_model
from werkzeug.routing import IntegerConverter

from webapp.api import BodyInvalid
from webapp.ids import MAX_ID, digits_at_most
from webapp.problems import Problem
from webapp.review.fields import FieldSpec, Kind

F = TypeVar("F", bound=Callable)
CONTRACT_ATTR = "_furrow_contract"
ROLE_ATTR = "_furrow_role"
# The largest integer a JSON body may carry at all (a 64-bit column, or a JSON cell).
MAX_INT = 2**63 - 1


class RequestModel(BaseModel):
    """A JSON request body: strict types (true is no number, "5" no integer), unknown keys
    refused, floats finite."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, strict=True)


class QueryModel(BaseModel):
    """A query string: its values are text, read as the types declared; other keys ignored
    (links carry the filters of the pages they come from)."""

    model_config = ConfigDict(extra="ignore", allow_inf_nan=False)


# Bounded types every model uses: a database id, a count, a number a field can hold, a name.
Id = Annotated[int, Field(ge=1, le=MAX_ID)]
Ids = Annotated[list[Id], Field(max_length=10_000)]
Page = Annotated[int, Field(ge=1, le=1_000_000)]
PerPage = Annotated[int, Field(ge=1, le=500)]
Number = Annotated[float, Field(ge=-1e15, le=1e15)]
Whole = Annotated[int, Field(ge=-(10**15), le=10**15)]
Name = Annotated[str, Field(max_length=200)]
Text = Annotated[str, Field(max_length=20_000)]
Names = Annotated[list[Name], Field(max_length=200)]


class Paging(QueryModel):
    page: Page = 1
    per_page: PerPage | None = None


def _value_type(spec: FieldSpec) -> Any:
    """What JSON the API takes for one field; the field's own rules read it after."""
    if spec.kind in (Kind.number, Kind.integer):
        # A number, or text such as "3,5" or "30 cm" that the field's rules read.
        return Whole | Number | Annotated[str, Field(max_length=64)] | None
    if spec.kind is Kind.choices:
        return Names | Name | None
    if spec.kind is Kind.records:
        cell = Whole | Number | Text | StrictBool | None
        return Annotated[list[dict[str, cell]], Field(max_length=200)] | None
    if spec.kind is Kind.choice:
        return Name | None
    return Text | None


def spec_model(
    name: str, specs: tuple[FieldSpec, ...], required: tuple[str, ...] = (), **more: Any
) -> type[RequestModel]:
    """A body model of a record's fields, from its field specs (plus `more` fields)."""
    fields: dict[str, Any] = {
        spec.name: (_value_type(spec), ... if spec.name in required else None) for spec in specs
    }
    return create_model(name, __base__=RequestModel, **fields, **more)


@dataclass
class Contract:
    body: type[BaseModel] | None = None
    query: type[BaseModel] | None = None
    # {status: what it means}, besides the errors every call may answer.
    answers: Mapping[int, str] = field(default_factory=dict)
    body_required: bool = True
    summary: str = ""
    media: str = "application/json"  # what its own answers are (a report may be HTML)


def accepts(
    body: type[BaseModel] | None = None,
    query: type[BaseModel] | None = None,
    answers: Mapping[int, str] | None = None,
    body_required: bool = True,
    summary: str = "",
    media: str = "application/json",
) -> Callable[[F], F]:
    """Check the body and query string against their models before the view runs."""

    def decorate(view: F) -> F:
        contract = Contract(body, query, answers or {200: "Done."}, body_required, summary, media)

        @wraps(view)
        def checked(*args, **kwargs):
            if query is not None:
                validated(query, request.args.to_dict(flat=True), "query")
            if body is not None and (body_required or request.get_data(cache=True)):
                validated(body, read_json(request.get_data(cache=True)), "body")
            return view(*args, **kwargs)

        setattr(checked, CONTRACT_ATTR, contract)
        return checked  # type: ignore[return-value]

    return decorate


def validated(model: type[BaseModel], data: Any, where: str) -> BaseModel:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        # A body's keys are named as they are sent ("rows.3"); a query string's with "query.".
        prefix = [] if where == "body" else [where]
        problems = [
            Problem(error["msg"], ".".join([*prefix, *(str(p) for p in error["loc"])]))
            for error in exc.errors(include_url=False)
        ]
        raise BodyInvalid(problems, summary="The request does not fit the API.") from None


class NumberRefused(ValueError):
    """JSON that should not come here: a number that is NaN, Infinity, too large to be finite
    or beyond what a database column holds; or a body that holds or nests too much."""


def _refuse_constant(name: str) -> float:
    raise NumberRefused(f"{name} is not a number: send a finite number.")


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise NumberRefused(f"{text} is too large a number: send a finite number.")
    return number


def _bounded_int(text: str) -> int:
    # Read no more digits than a 64-bit integer has: int() of thousands of digits is slow,
    # and such a number fits no column.
    if len(text.lstrip("-")) > 19 or abs(number := int(text)) > MAX_INT:
        raise NumberRefused(f"{text[:24]}… is too large a number: at most {MAX_INT}.")
    return number


READERS = {"parse_constant": _refuse_constant, "parse_float": _finite, "parse_int": _bounded_int}
# What one JSON body may hold: each object or list is some 60 bytes in memory for one or two
# in the body, so a few megabytes of "{}," would take hundreds of megabytes to read; and no
# record Furrow keeps nests deeper than a handful of levels.
MAX_JSON_CONTAINERS = 200_000
# Beyond any record's own limit (a farm system's is 64), which then speaks first, naming where.
MAX_JSON_DEPTH = 100


def bounded_json(data: bytes | str, **kwargs: Any) -> Any:
    """json.loads with finite numbers only, at most MAX_JSON_CONTAINERS objects and lists
    (counted on the text, strings included, before anything is built) and MAX_JSON_DEPTH
    levels; NumberRefused says what is wrong."""
    text = data.encode() if isinstance(data, str) else data
    if text.count(b"{") + text.count(b"[") > MAX_JSON_CONTAINERS:
        raise NumberRefused(
            f"The JSON holds more than {MAX_JSON_CONTAINERS:,} objects and lists: send less "
            "at a time."
        )
    value = json.loads(data, **READERS, **kwargs)
    if isinstance(value, dict | list) and too_deep(value, MAX_JSON_DEPTH) is not None:
        raise NumberRefused(f"The JSON nests deeper than {MAX_JSON_DEPTH} levels.")
    return value


def too_deep(data: dict | list, limit: int) -> tuple[Any, ...] | None:
    """The path to the first object or list nested deeper than limit, or None. Walked with a
    list, not by recursion: a file nested thousands deep must not exhaust the stack."""
    pending: list[tuple[Any, int]] = [(data, 0)]
    while pending:
        node, depth = pending.pop()
        children = node.values() if isinstance(node, dict) else node
        if depth == limit:
            return _path_to(data, node)
        pending.extend((c, depth + 1) for c in children if isinstance(c, dict | list))
    return None


def _path_to(data: Any, target: Any) -> tuple[Any, ...]:
    """The keys and indexes from data down to target (an object or list inside it)."""
    pending: list[tuple[Any, tuple[Any, ...]]] = [(data, ())]
    while pending:
        node, path = pending.pop()
        if node is target:
            return path
        parts = node.items() if isinstance(node, dict) else enumerate(node)
        pending.extend((c, (*path, p)) for p, c in parts if isinstance(c, dict | list))
    return ()


def read_json(data: bytes | str) -> Any:
    """JSON with finite numbers only: 400 for what is not JSON, BodyInvalid (422) for a
    number that is not finite, or a body that holds or nests too much."""
    try:
        return bounded_json(data or b"null")
    except NumberRefused as exc:
        raise BodyInvalid(str(exc), loc="body") from None
    except (ValueError, RecursionError):
        abort(400, description="Send a JSON object (the body is not JSON).")


class FiniteJSONProvider(DefaultJSONProvider):
    """Flask's JSON, reading bounded, finite JSON only (request.get_json everywhere)."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return bounded_json(s, **kwargs)


class IdConverter(IntegerConverter):
    """`<int:…>` in every URL: at most what a database id can be, so a larger id in any
    method's URL is no record (404)."""

    regex = digits_at_most(MAX_ID)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("max", MAX_ID)
        super().__init__(*args, **kwargs)


def configure_contract(app: Flask) -> None:
    """Before any blueprint: finite JSON everywhere, ids bounded in every URL."""
    app.json_provider_class = FiniteJSONProvider
    app.json = FiniteJSONProvider(app)
    app.url_map.converters["int"] = IdConverter


ERROR = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message"],
            "properties": {
                "code": {"type": "string"},
                "message": {"type": "string"},
                "details": {"type": "object"},
            },
        }
    },
}
# What any call may answer besides its own answers.
ERRORS = {
    400: "The request could not be read (a form that expired, a body that is not an object).",
    401: "No valid session or bearer token.",
    403: "The role this needs is missing.",
    404: "No such record.",
    409: "The record is not in a state that allows this.",
    413: "The body is larger than the server takes.",
    422: "The request does not fit: `details.errors` lists every problem (`loc`, `code`, "
    "`message`).",
    429: "Too many requests.",
    503: "A service this needs (provider, queue, database) is not available now.",
}
PATH_PARAM = re.compile(r"<(?:(\w+):)?(\w+)>")


def _found(view: Callable, attr: str) -> Any:
    """An attribute a decorator set, wherever it stands in the view's wrapper chain."""
    while view is not None:
        if hasattr(view, attr):
            return getattr(view, attr)
        view = getattr(view, "__wrapped__", None)
    return None


def openapi_document(app: Flask) -> dict[str, Any]:
    """OpenAPI 3.1 for every /api/v1 route: its role, body, query string, answers and errors."""
    schemas: dict[str, Any] = {"Error": ERROR}
    paths: dict[str, dict[str, Any]] = {}
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: r.rule):
        if not rule.rule.startswith("/api/v1/"):
            continue
        view = app.view_functions[rule.endpoint]
        contract = _found(view, CONTRACT_ATTR) or Contract()
        role = _found(view, ROLE_ATTR)
        path = PATH_PARAM.sub(lambda m: "{" + m.group(2) + "}", rule.rule)
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            operation = _operation(rule, view, contract, role, method, schemas)
            paths.setdefault(path, {})[method.lower()] = operation
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Furrow API",
            "version": "1",
            "description": "Every call needs a session cookie (and then X-CSRFToken on POST) or "
            "`Authorization: Bearer <token>`. `x-role` is the least role a call needs.",
        },
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "security": [{"bearer": []}],
    }


def _operation(rule, view, contract: Contract, role, method: str, schemas) -> dict[str, Any]:
    doc = contract.summary or (view.__doc__ or "").strip()
    parameters = [
        {
            "name": name,
            "in": "path",
            "required": True,
            "schema": {"type": "integer", "minimum": 0, "maximum": MAX_ID}
            if converter == "int"
            else {"type": "string", "pattern": "^[A-Za-z0-9]{1,64}$"},
        }
        for converter, name in PATH_PARAM.findall(rule.rule)
    ]
    if contract.query is not None:
        query = _schema(contract.query, schemas)
        parameters += [
            {"name": name, "in": "query", "required": False, "schema": prop}
            for name, prop in query.get("properties", {}).items()
        ]
    operation: dict[str, Any] = {
        "operationId": rule.endpoint,
        "summary": doc.splitlines()[0] if doc else rule.endpoint.split(".")[-1].replace("_", " "),
        "x-role": role.name if role is not None else "viewer",
        "parameters": parameters,
        "responses": {
            str(status): _answer(status, description, contract.media)
            for status, description in contract.answers.items()
        }
        | {str(status): _error(description) for status, description in ERRORS.items()},
    }
    if contract.body is not None:
        operation["requestBody"] = {
            "required": contract.body_required,
            "content": {"application/json": {"schema": _schema(contract.body, schemas)}},
        }
    return operation


def _answer(status: int, description: str, media: str) -> dict[str, Any]:
    if status == 204:
        return {"description": description}
    return {"description": description, "content": {media: {"schema": {}}}}


def _error(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }


def _schema(model: type[BaseModel], schemas: dict[str, Any]) -> dict[str, Any]:
    """The model's JSON Schema, its nested models kept once under components."""
    schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
    schemas.update(schema.pop("$defs", {}))
    return schema


def describe(schema: Mapping[str, Any]) -> str:
    """A JSON Schema in words, for the docs page: "a list of whole numbers (1–2147483647)"."""
    if "anyOf" in schema:
        return " or ".join(dict.fromkeys(describe(part) for part in schema["anyOf"]))
    if "$ref" in schema:
        return "an object (" + schema["$ref"].rsplit("/", 1)[-1] + ")"
    if "enum" in schema or "const" in schema:
        values = schema.get("enum") or [schema["const"]]
        return "one of " + ", ".join(json.dumps(v) for v in values)
    kind = schema.get("type")
    low, high = schema.get("minimum"), schema.get("maximum")
    bounds = f" ({_number(low)} to {_number(high)})" if None not in (low, high) else ""
    if kind == "array":
        most = schema.get("maxItems")
        items = describe(schema["items"]) if schema.get("items") else "any value"
        return f"a list (each {items})" + (f" of at most {most:,}" if most else "")
    if kind == "object":
        values = schema.get("additionalProperties")
        return f"an object of {describe(values)}" if isinstance(values, dict) else "an object"
    if kind == "string":
        most = schema.get("maxLength")
        return "text" + (f" (at most {most:,} characters)" if most else "")
    words = {"integer": "a whole number", "number": "a number", "boolean": "true or false"}
    return words.get(kind, "nothing" if kind == "null" else "any value") + bounds


def _number(value: float) -> str:
    return f"{value:,}" if float(value).is_integer() and abs(value) < 1e15 else f"{value:g}"
