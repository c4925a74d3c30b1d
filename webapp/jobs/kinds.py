"""What a kind of run does: the items it works through, and the work for one item."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from typing import Any, ClassVar

from flask import url_for

from webapp.auth.roles import Role

# Past this many items a run is split among the workers: below it, a chunk's own start (a job,
# a fork, the kind's set-up) costs more than sharing saves.
DEFAULT_CHUNK_SIZE = 500


class ItemError(Exception):
    """A failure of one item that the run records and moves past; the message is for people."""


@dataclass(frozen=True)
class ItemOutcome:
    """One finished item as the run page shows it: its name, what it counted, its problem."""

    name: str
    counts: tuple[tuple[str, Any], ...]
    issue: str | None


# An item's result may say, under this key, why the item found nothing (in words that follow
# "Nothing found: "); a run whose every item says so ends "nothing found", not succeeded.
NOTHING_FOUND = "nothing_found"
# How many items' reasons a run's message lists before counting the rest.
REASONS_SHOWN = 3


def found_nothing(result: Any) -> str | None:
    """Why an item's result found nothing, when it says so."""
    why = result.get(NOTHING_FOUND) if isinstance(result, dict) else None
    return why if isinstance(why, str) and why else None


def words(key: str) -> str:
    """A result key as a label: "size_bytes" → "Size bytes"."""
    return key.replace("_", " ").capitalize()


class RunKind(ABC):
    """Subclass, set name and title, implement plan_items and process_item, then register it.

    process_item runs in a worker with an app context; it returns the item's result (JSON-able)
    or raises ItemError. Anything else it raises is recorded against the item too.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    # The longest a single run may take before RQ stops it.
    timeout_seconds: ClassVar[int] = 24 * 3600
    # The review target (webapp.review.targets) the run proposes values for, if any.
    target_kind: ClassVar[str | None] = None
    # The result keys the run page shows and their labels; None shows every plain value.
    result_labels: ClassVar[dict[str, str] | None] = None
    # Who may see runs of this kind at all: a run's title, items and results name the records
    # it worked on, so a workspace kept from viewers keeps its runs from them too.
    seen_by: ClassVar[Role] = Role.viewer
    # How the review core counts the run's suggestions to people ("row(s)", "field(s)").
    suggestion_noun: ClassVar[str] = "value(s)"
    # Where a person re-confirms a changed value or edits an invalid one ("on its row").
    reconfirm_where: ClassVar[str] = "on the review page"
    # What an applied value is, said before an apply and after it, when it is not simply the
    # record's value now (a prediction a person still approves).
    applied_note: ClassVar[str] = ""
    # The params that list (or map) every item the run works through (a table run's row ids):
    # the run's JSON counts them rather than listing them, GET /api/v1/runs/<id>/items pages.
    item_params: ClassVar[tuple[str, ...]] = ()

    @abstractmethod
    def plan_items(self, params: dict[str, Any]) -> list[str]:
        """The keys of the items this run works through, in order."""

    @abstractmethod
    def process_item(self, key: str, params: dict[str, Any], run_id: int) -> Any:
        """Do the work for one item and return its result."""

    def stage_for(self, key: str) -> str:
        """The stage shown while key is processed."""
        return "working"

    def concurrency(self, params: dict[str, Any]) -> int:
        """How many items may be worked on at once. Above 1, process_item runs in worker
        threads (each with its own app context and database session), results are kept in
        batches through keep_results, and a cancel stops new items from starting."""
        return 1

    def quick_items(self, params: dict[str, Any]) -> bool:
        """Items the CPU works out at once, with nothing to wait for (a formula computed):
        worked in turn on the runner's own thread and saved in batches, as threads would only
        take turns at the interpreter."""
        return False

    def chunk_size(self, params: dict[str, Any]) -> int | None:
        """Items per chunk: a run over more items is split into chunks that every worker
        takes a share of, each its own job. None keeps the run one job: a kind whose items
        depend on earlier ones (they must run in order, in one worker) says None."""
        return DEFAULT_CHUNK_SIZE

    def prepare(self, params: dict[str, Any], keys: list[str]) -> None:  # noqa: B027
        """Called once before a job works through these items (the run's unfinished ones, or
        its chunk's): a kind that reads what its items need up front reads only theirs."""

    def store_results(self, run: Any, results: dict[str, Any]) -> None:  # noqa: B027
        """Write a batch of finished items' results to the kind's own tables, before the run
        row is locked (chunks saving at once do not wait on each other for this); then
        keep_results adds them to the run, under its lock, in the same transaction."""

    def keep_results(self, run: Any, results: dict[str, Any]) -> None:
        """Keep a batch of finished items' results on the run (under its lock); by default
        run.results by key."""
        run.results = {**run.results, **results}

    def failed_items(self, run: Any) -> int:
        """How many finished items failed: those with an item error, by default. A kind whose
        items record their own failures in their results counts those too."""
        return len(run.item_errors)

    def item_results(self, run: Any, keys: list[str]) -> dict[str, Any]:
        """These items' results by key, for a page of the run's items: run.results by
        default; a kind that keeps them in its own tables reads only these."""
        return run.kept_results(keys)

    def result_counts(self, run: Any) -> dict[str, int] | None:
        """The run's items counted by their outcome, for a kind whose run keeps counts
        rather than each item's result; None for the others."""
        return None

    def target_ids(self, run: Any) -> list[int]:
        """The records the run proposes values for, in order: its items, by default."""
        return [int(key) for key in run.items]

    def item_key(self, run: Any, target_id: int) -> str:
        """The item that worked on a record."""
        return str(target_id)

    def item_details(self, run: Any, target: Any) -> dict[str, Any]:
        """What else a review of one record (a webapp.review.service.RunTarget) shows from
        the run's results."""
        return {}

    def item_names(self, run: Any) -> dict[str, str]:
        """What people call the run's items (a culture's name, a row's label), by key; an item
        not named here is shown by its key."""
        return {}

    def outcomes(self, run: Any) -> list[ItemOutcome]:
        """The finished items in order, for the run page: counts from their results (a list
        counts its entries), and their error."""
        names = self.item_names(run)
        shown = []
        for key in run.items:
            result, error = run.results.get(key), run.item_errors.get(key)
            if result is None and error is None:
                continue
            result = result if isinstance(result, dict) else {}
            labels = self.result_labels or {k: words(k) for k in result}
            counts = tuple(
                (label, len(value) if isinstance(value, list) else value)
                for k, label in labels.items()
                if isinstance(value := result.get(k), (int, float, str, list))
                and not isinstance(value, bool)
                and k != "error"
            )
            issue = error or (result["error"] if isinstance(result.get("error"), str) else None)
            if issue is None and (why := found_nothing(result)):
                issue = f"Nothing found: {why}."
            shown.append(ItemOutcome(names.get(key, key), counts, issue))
        return shown

    def nothing_found(self, run: Any) -> str | None:
        """Why a run whose items all finished found nothing, or None when one found something:
        by default, when every done item's result says why it found nothing (NOTHING_FOUND),
        their reasons ("the reference library has no “Dragonfruit”"). Any kind may use it."""
        done = run.done_keys()
        reasons = [found_nothing(run.results.get(key)) for key in run.items if key in done]
        if not reasons or None in reasons:
            return None
        distinct = list(dict.fromkeys(reasons))
        shown = "; ".join(distinct[:REASONS_SHOWN])
        more = len(distinct) - REASONS_SHOWN
        return shown + (f"; and {more} more" if more > 0 else "")

    def verdict(self, run: Any) -> tuple[str, str] | None:
        """What an ended run found, in a sentence shown first on its page, with its level
        (info | warning | error), for the kinds whose answer is a verdict."""
        return None

    # The review core's run page (webapp.review.pages): the detail partial beside each row and
    # its heading, what a row is, the partial a live run shows under its progress, and whether
    # a reviewer may type a value over a suggested one.
    review_detail: ClassVar[tuple[str, str] | None] = None
    row_heading: ClassVar[str | None] = None  # what a row is; the target's label by default
    live_template: ClassVar[str | None] = None
    editable: ClassVar[bool] = False

    def review_url(self, run: Any) -> str | None:
        """Where people review what the run proposed, for the kinds that propose: the review
        core's run page unless the kind has a page of its own."""
        if self.target_kind is None:
            return None
        return url_for("review.run_review", run_id=run.id)

    def review_summary(self, run: Any) -> str | None:
        """What the run was asked and what it found, in a sentence above its review."""
        return None

    def back_link(self, run: Any) -> tuple[str, str] | None:
        """The record the run worked on, as a link's words and address, for its review page."""
        return None

    def after_apply(self, run: Any) -> tuple[str, str] | None:
        """What a person does next with what they applied, as a link's words and address,
        offered beside the apply's undo."""
        return None

    def review_looks(self, run: Any, suggestions: list[Any]) -> dict[int, Any]:
        """How the review page shows these suggestions (webapp.review.looks.RowLook by
        suggestion id); one left out is its record's name and its field's label."""
        return {}

    def unproposed(self, run: Any, number: int, per_page: int, status: str | None = None) -> Any:
        """A page (webapp.pagination.Page) of the items the run proposed nothing for, each a
        webapp.review.looks.Unproposed (per_page 0: their count alone), those of one status
        (a key of unproposed_counts) if given; None leaves it to the review core: the items
        that failed or whose result says why they found nothing."""
        return None

    def unproposed_counts(self, run: Any) -> dict[str, int]:
        """How many items the run proposed nothing for, by why (`not_found`, `skipped`,
        `error`), when the kind keeps them so: the review offers each as a filter of its own.
        {}: they are one list."""
        return {}

    def live_context(self, run: Any) -> dict[str, Any]:
        """What live_template reads while the run works."""
        return {}

    def matching(self, run: Any, values: Any) -> list[int] | None:
        """The records a review page's own filter matches (its form's values), when a person
        applies or rejects "all matching"; None: the filter is the core's ?level= alone."""
        return None

    def result_link(self, run: Any) -> tuple[str, str] | None:
        """Where what the run makes is seen, as a link's words and address, for the kinds that
        make something other than proposals (shown while the run is live, too)."""
        return None

    def proposal(self, run: Any) -> dict[str, Any] | None:
        """The run's proposal as one document (GET /api/v1/runs/<id>/proposal), for the kinds
        that keep one."""
        return None

    @classmethod
    def path(cls) -> str:
        return f"{cls.__module__}:{cls.__qualname__}"


RUN_KINDS: dict[str, type[RunKind]] = {}


def hidden_kinds(can: Callable[[Role], bool]) -> list[str]:
    """The kinds whose runs someone who `can` these roles may not see."""
    return sorted(name for name, kind in RUN_KINDS.items() if not can(kind.seen_by))


def register_kind(kind: type[RunKind]) -> type[RunKind]:
    existing = RUN_KINDS.get(kind.name)
    if existing is not None and existing.path() != kind.path():
        raise ValueError(f"run kind {kind.name!r} is registered twice")
    RUN_KINDS[kind.name] = kind
    return kind


def load_kind(path: str) -> type[RunKind]:
    """The kind a job names by its path (`RunKind.path()`, "module:Class"). Run rows keep only
    the kind's name; the path lives on the queued jobs alone (in Redis).

    The app's own kinds are found only among the registered ones: a workspace registers its
    kinds as the app loads it, and the jobs core imports no workspace module, even by a name a
    job carries. Only a kind from outside the app (a test's, an extension's) is imported by its
    path, and it must register itself as it is imported.
    """
    for kind in RUN_KINDS.values():
        if kind.path() == path:
            return kind
    module_name, _, attr = path.partition(":")
    if module_name == "webapp" or module_name.startswith("webapp."):
        # A job queued before its kind's class moved to another module still names the old
        # module: the class keeps its name, so the one registered kind of that name is it.
        moved = [kind for kind in RUN_KINDS.values() if kind.__qualname__ == attr]
        if len(moved) == 1:
            return moved[0]
        raise LookupError(f"{path} is not a registered run kind")
    kind = getattr(import_module(module_name), attr, None)
    if not (isinstance(kind, type) and issubclass(kind, RunKind)):
        raise TypeError(f"{path} is not a RunKind")
    if RUN_KINDS.get(kind.name) is not kind:
        raise LookupError(f"{path} is not a registered run kind")
    return kind
