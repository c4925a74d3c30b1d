"""Run kinds for the worker tests: gated items in chunks of params['chunk_size'], gated items
that must run in order (one job, however many), and a census of the worker's SDK clients."""

from __future__ import annotations

import os
from typing import Any

from flask import current_app

from tests.support.kinds import GatedItems
from webapp.ai.client import StructuredClient, openai_client
from webapp.jobs.kinds import RunKind, register_kind


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


@register_kind
class ClientCensus(RunKind):
    """Each item tells whether the worker had made the SDK client before its job started, and
    how many the work horse has made."""

    name = "test_client_census"
    title = "Client census"

    def plan_items(self, params: dict[str, Any]) -> list[str]:
        return ["census"]

    def process_item(self, key: str, params: dict[str, Any], run_id: int) -> Any:
        before = openai_client.cache_info()
        client = StructuredClient(current_app.config["FURROW"]).client
        after = openai_client.cache_info()
        return {
            "made_before_the_job": before.currsize,
            "made_in_all": after.misses,
            "client": id(client),
            "horse": os.getpid(),
        }
