"""Deep Research: search first, then the agent reads and searches again as it decides, and
answers with a cell value. Comprehensive research also assesses its coverage."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from webapp.ai import Usage
from webapp.tables.scope import row_places
from webapp.tables.strategies import register_strategy
from webapp.tables.strategies.base import (
    RowStep,
    RowStrategy,
    StrategyError,
    interpolate_template,
    template_subject,
)
from webapp.tables.strategies.lookup import row_context

THOROUGHNESS = {"exploratory": 5, "comprehensive": 12}
# A row's calls at each thoroughness: searches and page reads that grow the conversation.
TYPICAL_USAGE = {
    "exploratory": Usage(input_tokens=12_000, output_tokens=600, web_searches=2),
    "comprehensive": Usage(input_tokens=40_000, output_tokens=1_500, web_searches=4),
}


class ResearchStrategy(RowStrategy):
    name = "research"
    display_name = "Deep Research"
    max_steps = THOROUGHNESS["exploratory"]

    def validate_params(self, params: Mapping[str, Any]) -> None:
        super().validate_params(params)
        thoroughness = params.get("thoroughness", "exploratory")
        if not isinstance(thoroughness, str) or thoroughness not in THOROUGHNESS:
            raise StrategyError("Thoroughness is exploratory or comprehensive.")

    def thoroughness(self, params: Mapping[str, Any]) -> str:
        return params.get("thoroughness") or "exploratory"

    def typical_usage(self, params: Mapping[str, Any]) -> Usage:
        return TYPICAL_USAGE[self.thoroughness(params)]

    def step_budget(self, params: Mapping[str, Any]) -> int:
        return THOROUGHNESS[self.thoroughness(params)]

    def concurrency(self, params: Mapping[str, Any]) -> int:
        # A comprehensive row makes many calls: two such rows at a time at most.
        at_once = super().concurrency(params)
        return min(2, at_once) if self.thoroughness(params) == "comprehensive" else at_once

    def execute_one(self, row, params, tools, target) -> Iterator[RowStep]:
        question = interpolate_template(params["question"], row)
        comprehensive = self.thoroughness(params) == "comprehensive"
        subject = template_subject(params["question"], row)
        yield from tools.research(
            question,
            row_context(row),
            target,
            self.step_budget(params),
            comprehensive,
            subject,
            row_places(row),
        )


register_strategy(ResearchStrategy())
