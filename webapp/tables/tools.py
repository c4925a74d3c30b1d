"""How a provider searches, reads and answers for the strategies.

- `offline`: search and read over the document library (and the reference library's
  summaries indexed with it); answers are extractive (webapp.tables.answers: the figure a
  sentence about the row's subject states, or the best such sentence for text) and never
  more than medium confidence.
- `openai`: hosted web search, and page reading as a function tool we execute
  (webapp.fetching: size and time limits, no private addresses). With
  FURROW_OPENAI_API=chat (local servers without web search) search goes over the document
  library as a function tool instead.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from webapp.ai import ProviderError, Usage, pick
from webapp.ai.client import (
    Answered,
    Called,
    FunctionTool,
    Searched,
    StructuredClient,
    ToolOutput,
)
from webapp.fetching import FetchRefused, fetch_page
from webapp.library.search import Passage, document_text, search_passages
from webapp.tables.answers import read_number, read_text, with_singulars, words
from webapp.tables.coerce import NOT_FOUND
from webapp.tables.scope import elsewhere
from webapp.tables.strategies.base import RowStep

if TYPE_CHECKING:
    import openai

PAGE_CHARS = 6000
# The longest answer read as a cell's value: the rules ask for the value alone, and a number
# read out of paragraphs could be any number they mention ("a 3-digit number" became 3 days).
MOST_ANSWER_CHARS = 200
# The most tokens one response of the loop may take: a tool call's arguments or that short
# answer, with room to spare; a model that rambles past it is cut off, not waited for.
ANSWER_TOKENS = 512

LOOKUP_RULES = (
    "You fill one spreadsheet cell from web search snippets only; do not open pages. Extract "
    "the answer from the snippets. If they are ambiguous or say nothing, answer exactly "
    f"'{NOT_FOUND}'. Output only the cell value: no preamble, no explanation."
)
RESEARCH_RULES = (
    "You research one spreadsheet cell. NEVER answer from memory: always search first. Make a "
    "genuine effort: try at least two approaches before giving up. You may read pages with "
    "fetch_page. Output only the cell value, with no preamble such as 'Based on my research'. "
    f"If truly stuck, answer exactly '{NOT_FOUND}'."
)
COMPREHENSIVE_RULES = (
    " Be comprehensive: search from at least three different query angles, read two or three "
    "pages, and cross-reference them before answering."
)
COMPUTE_RULES = (
    "You compute one spreadsheet cell from the row's values and a formula that may use unit "
    "conversions, conditions or text operations. Output only the resulting value."
)
COVERAGE_RULES = (
    "Judge whether the answer below fully answers the question from the evidence found. Reply "
    "with one word: high, medium or low."
)


def describe_target(target: Any) -> str:
    kind = target.type + (f" in {target.unit}" if getattr(target, "unit", None) else "")
    options = getattr(target, "options", None)
    if target.type == "select" and options:
        kind += f", one of: {', '.join(options)}"
    return f"The cell is the column “{target.name}” ({kind})."


def _source(passage: Passage) -> dict[str, Any]:
    link = passage.url or f"/library/{passage.document_id}"
    return {"title": passage.title, "url": link, "snippet": passage.snippet}


class OfflineTools:
    provider = "offline"
    # Extractive answers are never more than this sure.
    best_confidence = "medium"

    def __init__(self) -> None:
        self.usage = Usage()

    def _search(self, query: str, limit: int = 5) -> tuple[list[Passage], RowStep]:
        found = search_passages(with_singulars(query), limit=limit)
        step = RowStep(
            "search",
            query,
            {"results": [_source(p) for p in found], "where": "document library"},
        )
        return found, step

    def _answer(self, passages, question, subject_text, target, places=()) -> Iterator[RowStep]:
        """The figure (or, for text, the sentence) the passages state about the row's
        subject: the row's values the question names. A reference figure bounded to another
        place than the row's is passed over, saying so."""
        kept = []
        for passage in passages:
            other = elsewhere(passage.url, places)
            if other is None:
                kept.append(passage)
                continue
            yield RowStep(
                "thinking",
                f"Passed over {passage.title}: its figures hold for {other}; this row is about"
                f" {', '.join(places)}.",
                {"scope_differs": {"source": other, "row": list(places)}},
            )
        passages = kept
        subject = words(subject_text)
        if target.type == "number":
            reading = read_number(passages, question, subject, getattr(target, "unit", None))
        else:
            reading = read_text(passages, question, subject)
        trace = reading.trace()
        if reading.answer is None:
            if reading.reason == "ambiguous":
                figures = ", ".join(dict.fromkeys(c["figure"] for c in trace["candidates"]))
                yield RowStep("thinking", f"The sources state different figures: {figures}.", trace)
            yield RowStep("answer", NOT_FOUND, trace)
        else:
            yield RowStep(
                "answer", reading.answer, {"sources": [_source(reading.passage)], **trace}
            )

    def lookup(
        self,
        question: str,
        context: str,
        target: Any,
        budget: int,
        subject: str = "",
        places: tuple[str, ...] = (),
    ) -> Iterator[RowStep]:
        passages, step = self._search(question)
        yield step
        if not passages and budget > 1:
            passages, step = self._search(f"{context} {target.name}")
            yield step
        yield from self._answer(passages, question, subject, target, places)

    def research(
        self,
        question: str,
        context: str,
        target: Any,
        budget: int,
        comprehensive: bool,
        subject: str = "",
        places: tuple[str, ...] = (),
    ) -> Iterator[RowStep]:
        angles = [question, f"{context} {target.name}"]
        if comprehensive:
            angles.append(" ".join(sorted(words(question) | words(context))))
        found: dict[int, Passage] = {}
        steps = 0
        for query in angles:
            if steps >= budget - 1:
                break
            passages, step = self._search(query)
            steps += 1
            yield step
            for passage in passages:
                found.setdefault(passage.id, passage)
        pages = 3 if comprehensive else 1
        documents = [p for p in found.values() if p.document_id is not None][:pages]
        read: list[Passage] = []
        for passage in documents:
            if steps >= budget - 1:
                break
            text = document_text(passage.document_id) or ""
            steps += 1
            yield RowStep("fetch", passage.title, {"url": f"/library/{passage.document_id}"})
            read.append(replace(passage, text=text[: PAGE_CHARS * 4]))
        candidates = read + list(found.values())
        answers = list(self._answer(candidates, question, subject, target, places))
        yield from answers
        if comprehensive:
            yield self._coverage(answers[-1], candidates)

    def _coverage(self, answer: RowStep, passages: list[Passage]) -> RowStep:
        if answer.detail == NOT_FOUND:
            return RowStep("coverage", "low", {"reason": "nothing in the library answers it"})
        key = words(answer.detail)
        support = sum(1 for p in passages if len(key & words(p.text)) >= max(1, len(key) // 2))
        level = "high" if support >= 3 else "medium" if support == 2 else "low"
        return RowStep("coverage", level, {"supporting_passages": support})

    def compute(self, formula: str, row: Mapping[str, Any], target: Any) -> Iterator[RowStep]:
        yield RowStep(
            "error",
            "This formula is too complex for the safe evaluator and needs an LLM provider "
            "(set FURROW_PROVIDER=openai).",
        )


class OpenAITools:
    provider = "openai"
    best_confidence = "high"

    def __init__(self, settings, client: openai.OpenAI | None = None) -> None:
        self.structured = StructuredClient(settings, client)
        self.model = self.structured.model
        self.chat = not self.structured.searches_the_web
        self.usage = Usage()
        self.allow_hosts = frozenset(settings.fetch_allow_hosts)

    # --- the tools the model may call, and the loop that offers them -------------------

    def _fetch(self, args: dict[str, Any]) -> ToolOutput:
        url = str(args.get("url", ""))
        try:
            page = fetch_page(url, allow_hosts=self.allow_hosts)
        except FetchRefused as exc:
            return ToolOutput(f"Could not read the page: {exc}", RowStep("error", f"{url}: {exc}"))
        step = RowStep("fetch", page.title or url, {"url": page.final_url})
        return ToolOutput(page.text[:PAGE_CHARS], step)

    def _search_documents(self, args: dict[str, Any]) -> ToolOutput:
        query = str(args.get("query", ""))
        found = search_passages(query, limit=5)
        results = [_source(p) | {"text": p.text[:800]} for p in found]
        step = RowStep("search", query, {"results": [_source(p) for p in found]})
        return ToolOutput(json.dumps(results, ensure_ascii=False), step)

    def _tools(self, fetch: bool) -> list[FunctionTool]:
        """Page reading when asked for; a server without web search (chat) searches the
        document library instead."""
        search = [FunctionTool(*SEARCH_DOCUMENTS, self._search_documents)] if self.chat else []
        return search + ([FunctionTool(*FETCH_PAGE, self._fetch, strict=True)] if fetch else [])

    def _loop(self, rules, prompt, budget, fetch, first_tool=True) -> Iterator[RowStep]:
        """The model at work on the cell, each search, read and answer a step of the trace:
        at most budget steps, the last of them its answer."""
        events = self.structured.converse(
            rules,
            [{"role": "user", "content": prompt}],
            self.usage,
            tools=self._tools(fetch),
            calls=budget - 1,
            call_first=first_tool,
            answer_tokens=ANSWER_TOKENS,
        )
        try:
            for event in events:
                if isinstance(event, Searched):
                    yield RowStep("search", event.query or "web search")
                elif isinstance(event, Called):
                    yield event.note or RowStep("error", f"{event.name}: {event.text}")
                elif isinstance(event, Answered):
                    cited = [{"title": e.title, "url": e.source_url} for e in event.citations]
                    yield RowStep(
                        "answer", event.text.strip(), {} if self.chat else {"sources": cited}
                    )
        except ProviderError as exc:
            yield RowStep("error", str(exc))

    def _found(self, steps: Iterator[RowStep]) -> Iterator[RowStep]:
        """A found value's trace as the model gave it, unless its answer is no value: text
        longer than a cell's answer (a number read out of it would be any number it mentions),
        or an answer with no source in its trace (no search result, page read or citation)."""
        sourced = False
        for step in steps:
            sourced = sourced or bool(
                step.data.get("results") or step.data.get("sources") or step.type == "fetch"
            )
            if step.type != "answer" or step.detail == NOT_FOUND:
                yield step
            elif len(step.detail) > MOST_ANSWER_CHARS:
                said = f"The answer is {len(step.detail):,} characters of text, not a cell's value"
                yield RowStep("error", f"{said}: nothing is read from it.", {"raw": step.detail})
            elif not sourced:
                yield RowStep(
                    "error",
                    "The answer cites no source: a value found without one is not used.",
                    {"raw": step.detail},
                )
            else:
                yield step

    # --- what the strategies ask for ----------------------------------------------------

    def lookup(
        self,
        question: str,
        context: str,
        target: Any,
        budget: int,
        subject: str = "",
        places: tuple[str, ...] = (),
    ) -> Iterator[RowStep]:
        """subject (the row's values the question names) and places are the model's to read
        in the question and its context; the offline reader needs them spelled out."""
        prompt = f"{question}\n{context}\n{describe_target(target)}"
        yield from self._found(self._loop(LOOKUP_RULES, prompt, budget, fetch=False))

    def research(
        self,
        question: str,
        context: str,
        target: Any,
        budget: int,
        comprehensive: bool,
        subject: str = "",
        places: tuple[str, ...] = (),
    ) -> Iterator[RowStep]:
        rules = RESEARCH_RULES + (COMPREHENSIVE_RULES if comprehensive else "")
        prompt = f"{question}\n{context}\n{describe_target(target)}"
        answer = None
        for step in self._found(self._loop(rules, prompt, budget, fetch=True)):
            answer = step if step.type == "answer" else answer
            yield step
        if comprehensive and answer is not None:
            yield self._coverage(question, answer.detail)

    def _coverage(self, question: str, answer: str) -> RowStep:
        prompt = f"Question: {question}\nAnswer: {answer}"
        for step in self._loop(COVERAGE_RULES, prompt, 1, fetch=False, first_tool=False):
            word = step.detail.strip().lower().rstrip(".")
            if step.type == "answer" and word in ("high", "medium", "low"):
                return RowStep("coverage", word)
        return RowStep("coverage", "low", {"reason": "the assessment gave no level"})

    def compute(self, formula: str, row: Mapping[str, Any], target: Any) -> Iterator[RowStep]:
        values = json.dumps(row, ensure_ascii=False, default=str)
        prompt = f"Formula: {formula}\nRow: {values}\n{describe_target(target)}"
        for step in self._loop(COMPUTE_RULES, prompt, 1, fetch=False, first_tool=False):
            if step.type == "answer":
                yield RowStep("compute", "computed by the model", {"formula": formula})
            yield step


# name, description, parameters: the FunctionTools' first fields.
FETCH_PAGE = (
    "fetch_page",
    "Read a web page and return its text.",
    {
        "type": "object",
        "properties": {"url": {"type": "string", "description": "The http(s) address to read."}},
        "required": ["url"],
        "additionalProperties": False,
    },
)
SEARCH_DOCUMENTS = (
    "search_documents",
    "Search the team's document library; returns passages with titles.",
    {
        "type": "object",
        "properties": {"query": {"type": "string"}},
        "required": ["query"],
        "additionalProperties": False,
    },
)


def tools_for(provider: str, settings, client: openai.OpenAI | None = None):
    """Fresh tools for one row (they count its usage); the SDK client may be shared."""
    return pick(provider, OfflineTools, lambda: OpenAITools(settings, client))
