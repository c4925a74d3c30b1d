"""Computation: a value from the row's own columns with the safe evaluator, in one step;
a formula too complex for it goes to the LLM provider."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from webapp.ai import Usage
from webapp.tables.formula import (
    FormulaError,
    NeedsModel,
    check_formula,
    evaluate,
    needs_model,
)
from webapp.tables.strategies import register_strategy
from webapp.tables.strategies.base import (
    EmptyReference,
    RowStep,
    RowStrategy,
    StrategyError,
    lookup_cell,
    template_fields,
)


class ComputationStrategy(RowStrategy):
    name = "computation"
    display_name = "Computation"
    max_steps = 1
    template_param = "formula"

    def quick(self, params: Mapping[str, Any]) -> bool:
        """Rows the safe evaluator computes; rows the model works out are its calls."""
        return not needs_model(params["formula"])

    def typical_usage(self, params: Mapping[str, Any]) -> Usage | None:
        """A formula the safe evaluator computes calls no model; one beyond it, one per row."""
        if needs_model(params["formula"]):
            return Usage(input_tokens=600, output_tokens=50)
        return None

    def validate_params(self, params: Mapping[str, Any]) -> None:
        """A formula that does not parse, or uses what is never allowed, is refused before
        the run starts; one that parses but is beyond the safe evaluator goes to the model."""
        super().validate_params(params)
        try:
            check_formula(params["formula"])
        except FormulaError as exc:
            message = str(exc)
            raise StrategyError(message[:1].upper() + message[1:] + ".") from exc

    def execute_one(self, row, params, tools, target) -> Iterator[RowStep]:
        formula = params["formula"]
        for name in template_fields(formula):
            _found, value = lookup_cell(row, name)
            if value is None or (isinstance(value, str) and not value.strip()):
                raise EmptyReference(f"{name} is empty")
        try:
            value = evaluate(formula, row)
        except NeedsModel as exc:
            yield RowStep("thinking", f"Too complex for the safe evaluator ({exc}).")
            yield from tools.compute(formula, row, target)
            return
        except FormulaError as exc:
            yield RowStep("error", str(exc))
            return
        yield RowStep("compute", formula, {"result": value})
        yield RowStep("answer", str(value) if not isinstance(value, str) else value)


register_strategy(ComputationStrategy())
