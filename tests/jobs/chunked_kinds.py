"""Run kinds for the chunk tests: gated items in chunks of params['chunk_size'], and gated
items that must run in order (one job, however many)."""

from __future__ import annotations

from typing import Any

from tests.support.kinds import GatedItems
from webapp.jobs.kinds import register_kind


@register_kind
class ChunkedItems(GatedItems):
    name = "test_chunked"
    title = "Chunked test items"

    def chunk_size(self, params: dict[str, Any]) -> int | None:
        return params["chunk_size"]


@register_kind
class OrderedItems(GatedItems):
    name = "test_ordered"
    title = "Ordered test items"

    def chunk_size(self, params: dict[str, Any]) -> int | None:
        return None
