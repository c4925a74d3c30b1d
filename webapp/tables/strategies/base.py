"""What every row strategy is (seed 002): a name, a step budget, parameter checks, and
execute_one, which yields the trace of one row's work ending in an answer."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from flask import current_app

from webapp.ai import Usage
from webapp.problems import Invalid

STEP_TYPES = ("search", "fetch", "compute", "answer", "error", "thinking", "coverage")
TEMPLATE_FIELD = re.compile(r"\{([^{}]+)\}")


class StrategyError(Invalid):
    """Parameters a strategy cannot work with; the message is for people."""

    code = "invalid_strategy"


class EmptyReference(Exception):
    """A column the template names is empty in this row: the row is skipped."""


@dataclass(frozen=True)
class RowStep:
    type: str
    detail: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "detail": self.detail, "data": self.data}


def template_fields(template: str) -> list[str]:
    return [name.strip() for name in TEMPLATE_FIELD.findall(template or "")]


def lookup_cell(row: Mapping[str, Any], name: str) -> tuple[bool, Any]:
    """(found, value) for a column name, matched case-insensitively."""
    wanted = name.strip().casefold()
    for key, value in row.items():
        if key.casefold() == wanted:
            return True, value
    return False, None


def template_subject(template: str, row: Mapping[str, Any]) -> str:
    """The row's values the template names: what the question is about ("Maize" in "What is
    the yield of {Item}?"), as opposed to what it asks."""
    return " ".join(str(lookup_cell(row, name)[1] or "") for name in template_fields(template))


def interpolate_template(template: str, row: Mapping[str, Any]) -> str:
    """ "What year was {Company} founded?" with the row's values; EmptyReference when a
    named cell is empty, StrategyError when no column has the name."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1).strip()
        found, cell = lookup_cell(row, name)
        if not found:
            raise StrategyError(f"There is no column called {name!r}.")
        if cell is None or (isinstance(cell, str) and not cell.strip()):
            raise EmptyReference(f"{name} is empty")
        return str(cell)

    return TEMPLATE_FIELD.sub(value, template)


class RowStrategy(ABC):
    name: ClassVar[str]
    display_name: ClassVar[str]
    kind: ClassVar[str] = "enrichment"  # or "action": a side effect, no cell value
    max_steps: ClassVar[int]
    # The parameter holding the {Column} template the strategy works from.
    template_param: ClassVar[str] = "question"

    def validate_params(self, params: Mapping[str, Any]) -> None:
        template = params.get(self.template_param)
        if not isinstance(template, str) or not template.strip():
            raise StrategyError(f"{self.display_name} needs a {self.template_param}.")

    def quick(self, params: Mapping[str, Any]) -> bool:
        """Rows the CPU works out at once, calling nothing (RunKind.quick_items)."""
        return False

    def concurrency(self, params: Mapping[str, Any]) -> int:
        """Rows worked on at once: as many as model calls may be (FURROW_MODEL_CONCURRENCY)."""
        return current_app.config["FURROW"].model_concurrency

    def step_budget(self, params: Mapping[str, Any]) -> int:
        return self.max_steps

    def thoroughness(self, params: Mapping[str, Any]) -> str | None:
        return None

    def typical_usage(self, params: Mapping[str, Any]) -> Usage | None:
        """What one row typically uses of an LLM provider, for a run's cost estimate; None
        when the rows call no model."""
        return None

    def describe(self, params: Mapping[str, Any]) -> str:
        return f"{self.display_name}: {params.get(self.template_param, '')}"

    @abstractmethod
    def execute_one(
        self, row: Mapping[str, Any], params: Mapping[str, Any], tools: Any, target: Any
    ) -> Iterator[RowStep]:
        """The steps of one row's work; the last "answer" step carries the raw value.

        row: {column name: value}; tools: the provider's tools (webapp.tables.tools);
        target: the column being filled (its name, type, unit, options).
        """
