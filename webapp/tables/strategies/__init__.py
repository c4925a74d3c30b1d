"""The strategy registry. Adding a strategy is one module that subclasses RowStrategy and
calls register_strategy, plus its import below."""

from __future__ import annotations

from webapp.tables.strategies.base import RowStrategy, StrategyError

_REGISTRY: dict[str, RowStrategy] = {}


def register_strategy(strategy: RowStrategy) -> RowStrategy:
    if strategy.name in _REGISTRY and type(_REGISTRY[strategy.name]) is not type(strategy):
        raise ValueError(f"strategy {strategy.name!r} is registered twice")
    _REGISTRY[strategy.name] = strategy
    return strategy


def get_strategy(name: str) -> RowStrategy:
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY))
        raise StrategyError(f"There is no strategy called {name!r} (known: {known}).") from None


def get_all_strategies() -> list[RowStrategy]:
    return list(_REGISTRY.values())


def get_strategies_by_kind(kind: str) -> list[RowStrategy]:
    return [s for s in _REGISTRY.values() if s.kind == kind]


# Each module registers its strategy when imported.
from webapp.tables.strategies import computation, lookup, research  # noqa: E402, F401
