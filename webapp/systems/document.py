"""A system's document: the rotation as seed 003 and itinera's files have it, checked on every
write, and the plain functions that read and change it.

Every object keeps the keys it does not declare (itinera's `useDefaultColor`, its climate
data, whatever a later version adds), so an exported file is the imported one plus our values.
A value is addressed by a path through ids, `steps[<step id>].interventions[<id>].values.<key>`
(or `steps[<step id>].stepValues.<key>`), the same path the audit trail records; its review
status is the field `<path>.reviewed`, and itinera's `status` (who made it) `<path>.status`,
its `confidence` and `conversation` likewise.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    field_validator,
    model_validator,
)

from webapp.contract import NumberRefused, bounded_json, too_deep
from webapp.numbers import NumberInvalid, parse_number
from webapp.problems import Invalid, Problem
from webapp.systems.conversation import pruned, seed_action
from webapp.text import NUL_IN_TEXT, control_character_problem, nul_paths

ASSUMPTIONS_LIMIT = 10_000  # characters of Markdown per level, as seed 003 says
# Seed 003 watches documents past 1 MB: stored, but the user is told.
LARGE_DOCUMENT_BYTES = 1_000_000
TOP, BOTTOM = "intervention_top", "intervention_bottom"
TEXT_VALUE_LIMIT = 500
# No indicator of a hectare comes near this: a value beyond it is a slip (or "1e308"), never
# counted, so no total can overflow.
LARGEST_VALUE = 1e12
REVIEWED = ".reviewed"
STATUS = ".status"
CONFIDENCE = ".confidence"
CONVERSATION = ".conversation"
# A value's fields besides its number that the audit trail follows (only where the entry has
# them), so an undo gives back its origin, confidence and conversation with it.
KEPT_FIELDS = ("status", "confidence", "conversation")

# What one system may hold. Every write checks, copies and audits the whole document, and the
# page pages its grid: these keep a write under a second and a document one person can review.
# itinera's rotations run to a dozen steps of a few dozen interventions each.
STEPS_LIMIT = 200
INTERVENTIONS_PER_STEP = 1_000
INTERVENTIONS_LIMIT = 2_000
KEYS_LIMIT = 100  # indicator keys: the grid's columns (the registry has about 30)
# itinera's files nest about ten levels (steps, interventions, values, a conversation's
# messages); far deeper is no rotation, and past about 250 the checks themselves give up.
DEPTH_LIMIT = 64
PROBLEMS_SHOWN = 50  # a refused file names its first problems, then counts the rest
ID_LIMIT = 64  # short enough that the longest value path fits the audit trail's field (255)


def _checked_id(text: str) -> str:
    """A step's, an intervention's or an attribute's id: a value's path and the page's links
    name it, so it is one line of text people can see (the project's text rule)."""
    if not text.strip():
        raise ValueError("give an id that is not blank (itinera writes a UUID)")
    if len(text) > ID_LIMIT:
        raise ValueError(f"an id is at most {ID_LIMIT} characters")
    if "[" in text or "]" in text:
        raise ValueError("an id may not hold [ or ]: a value's path puts the id in brackets")
    if problem := control_character_problem(text):
        raise ValueError(f"an id is one line of visible text. {problem}")
    return text


Id = Annotated[str, AfterValidator(_checked_id)]
Key = Annotated[str, StringConstraints(pattern=r"^[A-Za-z][A-Za-z0-9_]{0,63}$")]
Label = Annotated[str, Field(max_length=500)]
Description = Annotated[str, Field(max_length=20_000)]
Assumptions = Annotated[str, Field(max_length=ASSUMPTIONS_LIMIT)]
Stamp = Annotated[str, Field(max_length=40)]
DAY = re.compile(r"^-?\d{1,5}$")
COLOR = re.compile(r"^#[0-9A-Fa-f]{3,8}$")


class DocumentInvalid(Invalid):
    """A document (or a change to one) that cannot be stored; each problem names its path."""

    code = "document_invalid"


class Part(BaseModel):
    """Every object of the document: what it declares is checked, the rest is kept."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, strict=True)


class Message(Part):
    role: Literal["system", "assistant", "user"]
    content: Annotated[str, Field(max_length=50_000)]
    timestamp: Stamp | None = None
    action: Any = None

    @field_validator("action", mode="before")
    @classmethod
    def _seed_action(cls, action: Any) -> Any:
        return seed_action(action)


class Value(Part):
    key: Key
    value: Any = None
    reviewed: Any = None
    # itinera's ValueStatus, as itinera sets it: "user" when a person enters or saves a value,
    # "ia" or "n/a" from its model's answer (applicable or not), "calculated" for what its
    # code works out.
    status: Literal["user", "calculated", "ia", "n/a"] | None = None
    confidence: Literal["high", "medium", "low"] | None = None
    conversation: list[Message] = []

    @field_validator("value", mode="before")
    @classmethod
    def _number(cls, value: Any) -> Any:
        """A number, or text as itinera's files may hold it (`number | string`): kept as
        written; value_number reads it, and text that is not a number counts nowhere."""
        if value is None:
            return None
        if isinstance(value, str):
            if len(value) > TEXT_VALUE_LIMIT:
                raise ValueError(
                    f"a value written as text is at most {TEXT_VALUE_LIMIT} characters"
                )
            return value
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError("give a number (or null)")
        if not math.isfinite(value) or abs(value) > LARGEST_VALUE:
            raise ValueError(
                f"give a number between {-LARGEST_VALUE:,.0f} and {LARGEST_VALUE:,.0f}"
            )
        return value

    @field_validator("reviewed", mode="before")
    @classmethod
    def _reviewed(cls, value: Any) -> Any:
        if value is not None and value not in (True, False, "n/a"):
            raise ValueError('give true, false or "n/a"')
        return value


def _unique_keys(values: list[Value], where: str) -> None:
    seen: set[str] = set()
    for value in values:
        if value.key in seen:
            raise ValueError(f"the key {value.key!r} appears twice in {where}")
        seen.add(value.key)


class Attribute(Part):
    id: Id | None = None
    name: Label = ""
    value: Description = ""


class Intervention(Part):
    id: Id
    name: Label
    description: Description = ""
    day: str = "0"
    type: Literal["intervention_top", "intervention_bottom"] = TOP
    assumptions: Assumptions = ""
    updated_at: Stamp | None = Field(None, alias="updatedAt")
    values: list[Value] = []

    @field_validator("day")
    @classmethod
    def _day(cls, day: str) -> str:
        if not DAY.match(day.strip()):
            raise ValueError(
                'the day is a whole number of days from the step\'s start, such as "-5", "0" '
                'or "120"'
            )
        return day

    @model_validator(mode="after")
    def _keys(self) -> Intervention:
        _unique_keys(self.values, "values")
        return self


def moment(text: str) -> datetime:
    """A date of the document as an aware datetime (a date without a zone is UTC)."""
    parsed = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


class Step(Part):
    id: Id
    name: Label
    start_date: str = Field(alias="startDate")
    end_date: str = Field(alias="endDate")
    color: str | None = None
    description: Description = ""
    secondary_crop: bool = False
    attributes: list[Attribute] = []
    assumptions: Assumptions = ""
    updated_at: Stamp | None = Field(None, alias="updatedAt")
    step_values: list[Value] = Field([], alias="stepValues")
    interventions: list[Intervention] = []

    @field_validator("start_date", "end_date")
    @classmethod
    def _iso_date(cls, text: str) -> str:
        try:
            moment(text)
        except ValueError:
            raise ValueError('give a date such as "2026-03-01T00:00:00.000Z"') from None
        return text

    @field_validator("color")
    @classmethod
    def _color(cls, color: str | None) -> str | None:
        if color is not None and not COLOR.match(color):
            raise ValueError('give a colour such as "#d2b48c"')
        return color

    @field_validator("interventions", mode="before")
    @classmethod
    def _few_enough(cls, interventions: Any) -> Any:
        # Counted before each is checked: a step of 20,000 is refused at once.
        if isinstance(interventions, list) and len(interventions) > INTERVENTIONS_PER_STEP:
            raise ValueError(
                f"a step holds at most {INTERVENTIONS_PER_STEP:,} interventions and this one "
                f"has {len(interventions):,}: split it into several steps"
            )
        return interventions

    @model_validator(mode="after")
    def _consistent(self) -> Step:
        if moment(self.end_date) < moment(self.start_date):
            raise ValueError("the step ends before it starts")
        _unique_keys(self.step_values, "stepValues")
        if twice := _twice(i.id for i in self.interventions):
            raise ValueError(f"intervention ids appear twice: {twice}")
        return self


def _twice(ids: Iterator[str]) -> str:
    """The ids that appear more than once, sorted and joined ("" when none does)."""
    return ", ".join(sorted(i for i, n in Counter(ids).items() if n > 1))


class Document(Part):
    title: Label | None = None
    options: dict[str, Any] | None = None
    assumptions: Assumptions = ""
    updated_at: Stamp | None = Field(None, alias="updatedAt")
    steps: list[Step]

    @field_validator("steps", mode="before")
    @classmethod
    def _few_enough(cls, steps: Any) -> Any:
        if not isinstance(steps, list):
            return steps
        if len(steps) > STEPS_LIMIT:
            raise ValueError(
                f"a system has at most {STEPS_LIMIT:,} steps and this one has {len(steps):,}"
            )
        counts = [
            len(s["interventions"])
            for s in steps
            if isinstance(s, dict) and isinstance(s.get("interventions"), list)
        ]
        # A step over its own limit says so itself, by its path.
        step_too_long = max(counts, default=0) > INTERVENTIONS_PER_STEP
        if not step_too_long and sum(counts) > INTERVENTIONS_LIMIT:
            raise ValueError(
                f"a system holds at most {INTERVENTIONS_LIMIT:,} interventions and this one "
                f"has {sum(counts):,}: split the rotation into several systems"
            )
        return steps

    @field_validator("steps")
    @classmethod
    def _step_ids(cls, steps: list[Step]) -> list[Step]:
        if twice := _twice(s.id for s in steps):
            raise ValueError(f"step ids appear twice: {twice}")
        keys = {v.key for s in steps for v in s.step_values} | {
            v.key for s in steps for i in s.interventions for v in i.values
        }
        if len(keys) > KEYS_LIMIT:
            raise ValueError(
                f"a system's values use at most {KEYS_LIMIT} indicator keys and this one uses "
                f"{len(keys):,}"
            )
        return steps


def path_text(loc: tuple[Any, ...]) -> str:
    """("steps", 3, "interventions", 2, "day") as people read it: steps[3].interventions[2].day."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else f".{part}" if text else str(part)
    return text


def _message(error: dict[str, Any]) -> str:
    message = str(error["msg"]).removeprefix("Value error, ")
    return message[0].upper() + message[1:] + ("" if message.endswith(".") else ".")


def validate_document(data: Any) -> dict[str, Any]:
    """The document as it will be stored, every key kept; DocumentInvalid names each problem's
    path (`steps[3].interventions[2].day`), the first PROBLEMS_SHOWN of them."""
    if not isinstance(data, dict):
        raise DocumentInvalid("A system file is a JSON object with a list of steps.", loc="")
    if (deep := too_deep(data, DEPTH_LIMIT)) is not None:
        shown = path_text(deep[:6]) + ("…" if len(deep) > 6 else "")
        raise DocumentInvalid(
            f"The document is nested more than {DEPTH_LIMIT} levels deep (at {shown}); "
            "itinera's files nest about ten.",
            code="document_too_deep",
            loc=path_text(deep[:1]) or "file",
        )
    try:
        parsed = Document.model_validate(data)
    except ValidationError as exc:
        found = exc.errors(include_url=False, include_context=False, include_input=False)
        problems = [Problem(_message(e), path_text(tuple(e["loc"]))) for e in found]
        more = len(problems) - PROBLEMS_SHOWN
        if more > 0:
            problems = problems[:PROBLEMS_SHOWN]
            problems.append(Problem(f"And {more:,} more problem(s) like these.", "file"))
        raise DocumentInvalid(
            problems, summary=f"The document has {len(found):,} problem(s); nothing was stored."
        ) from None
    document = parsed.model_dump(mode="json", by_alias=True, exclude_unset=True)
    if nuls := nul_paths(document, most=PROBLEMS_SHOWN):
        raise DocumentInvalid(
            [Problem(NUL_IN_TEXT, path_text(path) or "file") for path in nuls],
            summary="The document holds a NUL character; nothing was stored.",
        )
    return document


def read_document(text: str) -> dict[str, Any]:
    """A file's text as a checked document."""
    try:
        data = bounded_json(text)
    except NumberRefused as exc:
        raise DocumentInvalid(str(exc), loc="file") from None
    except json.JSONDecodeError as exc:
        raise DocumentInvalid(
            f"The file is not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}).", loc="file"
        ) from None
    except RecursionError:
        raise DocumentInvalid("The file is nested too deeply to read.", loc="file") from None
    return validate_document(data)


def size_warning(document: dict[str, Any]) -> str | None:
    size = len(json.dumps(document, ensure_ascii=False).encode())
    if size <= LARGE_DOCUMENT_BYTES:
        return None
    return (
        f"This system's document is {size / 1_000_000:.1f} MB, over 1 MB: it is stored, but "
        "pages and exports get slower; long conversations are the usual cause."
    )


def now_stamp() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


# Paths of values


PATH = re.compile(
    r"^steps\[(?P<step>[^\[\]]+)\]"
    r"(?:\.interventions\[(?P<intervention>[^\[\]]+)\]\.values|\.stepValues)"
    r"\.(?P<key>[A-Za-z][A-Za-z0-9_]*)"
    r"(?:\.(?P<field>reviewed|status|confidence|conversation))?$"
)


def value_path(step_id: str, intervention_id: str | None, key: str) -> str:
    if intervention_id is None:
        return f"steps[{step_id}].stepValues.{key}"
    return f"steps[{step_id}].interventions[{intervention_id}].values.{key}"


def parse_path(path: str) -> tuple[str, str | None, str, str]:
    """(step id, intervention id or None, key, "" for the value itself, else "reviewed",
    "status", "confidence" or "conversation": which of its fields)."""
    match = PATH.match(path)
    if match is None:
        raise DocumentInvalid(f"{path!r} is not the path of a value.", loc="path")
    return match["step"], match["intervention"], match["key"], match["field"] or ""


class Places:
    """A document's steps and interventions by id, found in one pass: code that looks up many
    paths (a run's cells, an apply of thousands of values, labels) builds this once rather
    than searching the document for each. The objects are the document's own."""

    def __init__(self, document: Mapping[str, Any]) -> None:
        self.steps: dict[Any, dict[str, Any]] = {}
        self.interventions: dict[tuple[Any, Any], dict[str, Any]] = {}
        for step in document.get("steps") or ():
            self.steps.setdefault(step.get("id"), step)
            for work in step.get("interventions") or ():
                self.interventions.setdefault((step.get("id"), work.get("id")), work)

    def owner(
        self, step_id: str, intervention_id: str | None
    ) -> tuple[dict[str, Any], dict[str, Any] | None, dict[str, Any], str]:
        """As owner() says."""
        step = self.steps.get(step_id)
        if step is None:
            raise DocumentInvalid(f"The system has no step {step_id!r}.", loc="step_id")
        if intervention_id is None:
            return step, None, step, "stepValues"
        intervention = self.interventions.get((step_id, intervention_id))
        if intervention is None:
            raise DocumentInvalid(
                f"The step {step.get('name', step_id)!r} has no intervention {intervention_id!r}.",
                loc="intervention_id",
            )
        return step, intervention, intervention, "values"

    def entry(self, path: str) -> dict[str, Any] | None:
        """As value_entry() says."""
        try:
            step_id, intervention_id, key, _field = parse_path(path)
            _step, _work, holder, list_key = self.owner(step_id, intervention_id)
        except DocumentInvalid:
            return None
        return next((e for e in holder.get(list_key, []) if e.get("key") == key), None)


def owner(
    document: Mapping[str, Any], step_id: str, intervention_id: str | None
) -> tuple[dict[str, Any], dict[str, Any] | None, dict[str, Any], str]:
    """The step, the intervention (None for a step value), and the object and key of the list
    the value is in (a list it does not have yet is added only when a value goes in)."""
    return Places(document).owner(step_id, intervention_id)


def iter_values(document: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every value entry with its path, steps' own values first within each step."""
    for step in document.get("steps", []):
        for entry in step.get("stepValues", []):
            yield value_path(step["id"], None, entry["key"]), entry
        for intervention in step.get("interventions", []):
            for entry in intervention.get("values", []):
                yield value_path(step["id"], intervention["id"], entry["key"]), entry


def value_entry(document: Mapping[str, Any], path: str) -> dict[str, Any] | None:
    """The entry of the value at path, or None when the cell has none (or the document no
    longer has its step or intervention)."""
    return Places(document).entry(path)


def flat_values(document: dict[str, Any]) -> dict[str, Any]:
    """{path: number, path.reviewed: review status, and path.status (itinera's),
    path.confidence and path.conversation only where the value has them} for every value, as
    stored: what the review core and the audit read."""
    flat: dict[str, Any] = {}
    for path, entry in iter_values(document):
        flat[path] = entry.get("value")
        flat[path + REVIEWED] = entry.get("reviewed")
        for name in KEPT_FIELDS:
            if name in entry:
                flat[f"{path}.{name}"] = entry[name]
    return flat


def review_state(entry: dict[str, Any] | None) -> bool | str | None:
    """Whether a value is reviewed, from its `reviewed` and itinera's `status`: "n/a" when
    either says it does not apply; True when a person reviewed it (reviewed true: they approved
    it or entered it) or made it (status "user": itinera's edits
    write only the status, over an older reviewed false); False when reviewed is false or a
    calculation or a model made it ("calculated", "ia"); None when neither says."""
    entry = entry or {}
    reviewed, status = entry.get("reviewed"), entry.get("status")
    if "n/a" in (reviewed, status):
        return "n/a"
    if reviewed is True or status == "user":
        return True
    if reviewed is False or status in ("calculated", "ia"):
        return False
    return None


def review_refused(entry: dict[str, Any] | None, verb: str, doing: str) -> str | None:
    """Why a person may not mark a value reviewed (true or false) as it stands, in words
    (verb and doing: "approve", "approving"), or None when they may: there must be a value,
    that applies and is a number."""
    entry = entry or {}
    if not has_value(entry.get("value")) or review_state(entry) == "n/a":
        return f"There is no value to {verb} here."
    if not_a_number(entry["value"]):
        return f"“{entry['value']}” is not a number: correct the value before {doing} it."
    return None


def awaiting_review(document: dict[str, Any], confidence: str | None = None) -> list[str]:
    """The paths of the values a person may approve and has not (predictions, imported
    values never reviewed), in document order; with confidence, only those that sure."""
    return [
        path
        for path, entry in iter_values(document)
        if review_refused(entry, "approve", "approving") is None
        and review_state(entry) is not True
        and (confidence is None or entry.get("confidence") == confidence)
    ]


def uses_statuses(document: dict[str, Any]) -> bool:
    """Whether the file's values carry itinera's status: then every value written gets one."""
    return any("status" in entry for _path, entry in iter_values(document))


def status_after(wanted: dict[str, Any], before: dict[str, Any], made: str | None) -> str | None:
    """A value's status after a write of wanted ({value, reviewed}) over before: "n/a" when
    it does not apply; made when a value is written (None: as it was); none when the value is
    cleared; "user" when a person approves it as it stands (as itinera's save does); and a
    person's value reopened is no longer said to be theirs."""
    reviewed = wanted.get("reviewed", before["reviewed"])
    if reviewed == "n/a":
        return "n/a"
    if "value" in wanted:
        if wanted["value"] is None:
            return None
        made = made or before["status"]
        # "user" reads as reviewed: a person's value they say is not reviewed has no status,
        # so its reviewed false decides.
        return None if made == "user" and reviewed is False else made
    if reviewed is True:
        return "user"
    if reviewed is False and before["status"] in ("user", "n/a"):
        return None
    return before["status"]


def indicator_keys(document: dict[str, Any]) -> list[str]:
    """The indicator keys the document's interventions carry, in the order first met."""
    keys = dict.fromkeys(
        entry["key"]
        for step in document.get("steps", [])
        for intervention in step.get("interventions", [])
        for entry in intervention.get("values", [])
    )
    return list(keys)


def value_number(raw: Any) -> float | None:
    """A stored value as a number: a number as it is, text that reads as one ("3,5") as that
    number; None when there is none, the text is not a number or its number is beyond
    LARGEST_VALUE."""
    if raw is None:
        return None
    if isinstance(raw, int | float) and not isinstance(raw, bool):
        number = raw
    else:
        try:
            number = parse_number(raw)
        except NumberInvalid:
            return None
    return number if abs(number) <= LARGEST_VALUE else None


def has_value(raw: Any) -> bool:
    """Whether a stored value holds something: blank text, as a file may have it, is none."""
    return raw is not None and not (isinstance(raw, str) and not raw.strip())


def not_a_number(raw: Any) -> bool:
    """Whether a stored value is text that is not a number (kept, but counted nowhere)."""
    return has_value(raw) and value_number(raw) is None


def text_values(document: dict[str, Any]) -> dict[str, str]:
    """{path: text} of every value whose text is not a number."""
    return {path: e["value"] for path, e in iter_values(document) if not_a_number(e.get("value"))}


def read_number(raw: Any) -> float | int | None:
    """A value as a person or a client gives it: a number, text such as "3,5", or empty."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    try:
        number = parse_number(raw)
    except NumberInvalid as exc:
        words = f"“{raw}” is not a number" if isinstance(raw, str) else "This is not a number"
        message = f"{words}: give a number such as 3.5." if exc.code == "not_a_number" else str(exc)
        raise DocumentInvalid(message, code="value_invalid", loc="value") from None
    if abs(number) > LARGEST_VALUE:
        raise DocumentInvalid(
            f"“{raw}” is beyond any value of a hectare: give a number between "
            f"{-LARGEST_VALUE:,.0f} and {LARGEST_VALUE:,.0f}.",
            code="value_invalid",
            loc="value",
        )
    return int(number) if number.is_integer() and abs(number) < 2**53 else number


# Paths of assumptions: a level's Markdown is a field of the review target like a value.
ASSUMPTIONS = "assumptions"
ASSUMPTIONS_PATH = re.compile(
    r"^(?:steps\[(?P<step>[^\[\]]+)\](?:\.interventions\[(?P<intervention>[^\[\]]+)\])?\.)?"
    r"assumptions$"
)


def assumptions_path(step_id: str | None = None, intervention_id: str | None = None) -> str:
    """The path of the system's (no ids), a step's or an intervention's assumptions."""
    if step_id is None:
        return ASSUMPTIONS
    if intervention_id is None:
        return f"steps[{step_id}].{ASSUMPTIONS}"
    return f"steps[{step_id}].interventions[{intervention_id}].{ASSUMPTIONS}"


def assumptions_holder(document: dict[str, Any], path: str) -> list[dict[str, Any]]:
    """The objects an assumptions path is in, most specific first (intervention, step,
    system): the first holds the Markdown, all of them take its updatedAt."""
    match = ASSUMPTIONS_PATH.match(path)
    if match is None:
        raise DocumentInvalid(f"{path!r} is not the path of assumptions.", loc="path")
    if match["step"] is None:
        return [document]
    step, intervention, _holder, _list = owner(document, match["step"], match["intervention"])
    return [part for part in (intervention, step, document) if part is not None]


def appended_assumptions(before: str, block: str) -> str:
    """before with block added below it (what someone wrote is never rewritten): a list
    that block goes on with stays one list, anything else gets a blank line between;
    DocumentInvalid when the level would pass ASSUMPTIONS_LIMIT (never cut short)."""
    before, block = before.rstrip(), block.strip()
    if not before:
        text = f"{block}\n"
    else:
        goes_on = before.splitlines()[-1].lstrip().startswith("- ") and block.startswith("- ")
        between = "\n" if goes_on else "\n\n"
        text = f"{before}{between}{block}\n"
    if len(text) > ASSUMPTIONS_LIMIT:
        raise DocumentInvalid(
            f"Adding these assumptions would make {len(text):,} characters, over the "
            f"{ASSUMPTIONS_LIMIT:,} a level may hold: shorten the level's assumptions first.",
            code="assumptions_too_long",
            loc="assumptions",
        )
    return text


def flat_assumptions(document: dict[str, Any]) -> dict[str, str]:
    """{path: Markdown} for the system, every step and every intervention."""
    flat = {ASSUMPTIONS: document.get(ASSUMPTIONS) or ""}
    for step in document.get("steps", []):
        flat[assumptions_path(step["id"])] = step.get(ASSUMPTIONS) or ""
        for work in step.get("interventions", []):
            flat[assumptions_path(step["id"], work["id"])] = work.get(ASSUMPTIONS) or ""
    return flat


def _write_assumptions(
    document: dict[str, Any], path: str, new: Any, stamp: str
) -> tuple[Any, Any] | None:
    """Set one level's Markdown in document (a copy); the change, or None when it held it."""
    parts = assumptions_holder(document, path)
    before, text = parts[0].get(ASSUMPTIONS) or "", new or ""
    if not isinstance(text, str):
        raise DocumentInvalid("Assumptions are Markdown text.", loc=path)
    if before == text:
        return None
    parts[0][ASSUMPTIONS] = text
    for part in parts:
        part["updatedAt"] = stamp
    return before, text


def write_fields(
    document: dict[str, Any], fields: dict[str, Any], stamp: str, made: str | None = "user"
) -> tuple[dict[str, Any], dict[str, tuple[Any, Any]]]:
    """A copy of the document with these fields ({path: number, path.reviewed: review status,
    path.status: itinera's status, path.confidence, path.conversation, assumptions path:
    Markdown}) set, and what changed. A number written without its review status is a
    person's (made "user"): reviewed true; with made None (an apply, an undo) it keeps the
    review status it has, for the caller to say. A value cleared (None) takes its review
    status and confidence with it, unless it is marked "n/a". A value or review status
    written without its status, in a file whose values carry one, takes status_after's (made:
    who made a number written, None to leave it to the caller). An entry left with neither
    value nor anything else is removed. updatedAt moves up from the intervention to its step
    and the system for every entry that changed."""
    document = copy.deepcopy(document)
    with_status = uses_statuses(document)
    changed: dict[str, tuple[Any, Any]] = {}
    by_entry: dict[str, dict[str, Any]] = {}
    for field, new in fields.items():
        if ASSUMPTIONS_PATH.match(field):
            if (change := _write_assumptions(document, field, new, stamp)) is not None:
                changed[field] = change
            continue
        step_id, intervention_id, key, part = parse_path(field)
        path = value_path(step_id, intervention_id, key)
        by_entry.setdefault(path, {})[part or "value"] = new
    places = Places(document)
    for path, wanted in by_entry.items():
        step_id, intervention_id, key, _part = parse_path(path)
        step, intervention, holder, list_key = places.owner(step_id, intervention_id)
        entries = holder.get(list_key, [])
        entry = next((e for e in entries if e.get("key") == key), None)
        names = ("value", "reviewed", *KEPT_FIELDS)
        before = {n: (entry or {}).get(n) for n in names}
        if "value" in wanted and wanted["value"] is None:
            # A value cleared leaves nothing to review or be sure of; "n/a" stays or is set.
            if wanted.get("reviewed", before["reviewed"]) != "n/a":
                wanted["reviewed"] = None
            wanted["confidence"] = None
        elif "value" in wanted and "reviewed" not in wanted and made is not None:
            wanted["reviewed"] = True
        if with_status and "status" not in wanted and wanted.keys() & {"value", "reviewed"}:
            wanted["status"] = status_after(wanted, before, made)
        if entry is None:
            entry = {"key": key}
            holder[list_key] = [*entries, entry]
            entries = holder[list_key]
        touched = False
        for name, new in wanted.items():
            if before[name] == new:
                continue
            touched = True
            changed[path + ("" if name == "value" else f".{name}")] = (before[name], new)
            if new is None:
                entry.pop(name, None)
            else:
                entry[name] = new
        if set(entry) == {"key"}:
            entries.remove(entry)
        if touched:
            for part in (intervention, step, document):
                if part is not None:
                    part["updatedAt"] = stamp
    return validate_document(document), changed


# What set_value gets when no value is given: the value stays as it is.
KEEP = object()


def set_value(
    document: dict[str, Any],
    step_id: str,
    intervention_id: str | None,
    key: str,
    value: Any = KEEP,
    reviewed: Any = None,
    stamp: str | None = None,
) -> tuple[dict[str, Any], dict[str, tuple[Any, Any]]]:
    """One value set by a person: read as a number (a word is refused; None or "" clears it),
    reviewed true unless they say otherwise; the document must hold the step and
    intervention. Without a value (KEEP) only its review status is set: true or false only
    where review_refused allows, "n/a" on any."""
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]{0,63}", key or ""):
        raise DocumentInvalid(
            "An indicator key is a word of letters, digits and _ (such as ift).", loc="key"
        )
    owner(document, step_id, intervention_id)  # a missing step or intervention, by name
    path = value_path(step_id, intervention_id, key)
    fields: dict[str, Any] = {}
    if value is not KEEP:
        fields[path] = read_number(value)
    if reviewed is not None:
        if reviewed not in (True, False, "n/a"):
            raise DocumentInvalid('reviewed is true, false or "n/a".', loc="reviewed")
        fields[path + REVIEWED] = reviewed
    if not fields:
        raise DocumentInvalid("Give a value, a review status (reviewed) or both.", loc="value")
    if value is KEEP and reviewed != "n/a":
        refused = review_refused(value_entry(document, path), "review", "reviewing")
        if refused is not None:
            raise DocumentInvalid(refused, loc="value")
    return write_fields(document, fields, stamp or now_stamp())


def add_messages(
    document: dict[str, Any], path: str, messages: list[dict[str, Any]], stamp: str
) -> dict[str, Any]:
    """A copy of the document with messages added to the conversation of the value at path
    (an entry made for it when the cell has none), pruned to its most; updatedAt moves up."""
    document = copy.deepcopy(document)
    step_id, intervention_id, key, _status = parse_path(path)
    step, intervention, holder, list_key = owner(document, step_id, intervention_id)
    entries = holder.setdefault(list_key, [])
    entry = next((e for e in entries if e.get("key") == key), None)
    if entry is None:
        entry = {"key": key}
        entries.append(entry)
    entry["conversation"] = pruned([*entry.get("conversation", []), *messages])
    for part in (intervention, step, document):
        if part is not None:
            part["updatedAt"] = stamp
    return validate_document(document)
