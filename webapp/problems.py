"""What can go wrong with a request, in one shape for the whole app.

`Invalid`: what was sent cannot be used; it lists every problem found, each with where it is
(`loc`: a field name, or a path such as "rows.3.Yield"), a stable code and a message for people.
`Unavailable`: a service this needs cannot be used now (a provider, the job queue); the message
says why and what to set or check.

Every workspace's errors are subclasses of these two. The API answers them through the app's
error handlers (webapp.errors: 422 and 503, one body shape); a page puts the problems on its
form with `show_on_form`. This module imports nothing of Flask, so the rules that raise these
(numbers, uploads, a culture's fields) stay plain Python.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from wtforms.fields.core import Field


@dataclass(frozen=True)
class Problem:
    """One reason something cannot be used. loc "" is about the input as a whole; code ""
    takes the code of the Invalid that carries it."""

    message: str
    loc: str = ""
    code: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"loc": self.loc, "code": self.code, "message": self.message}


class Invalid(ValueError):
    """Input that cannot be used, with every problem found; str() joins their messages.

    code names the refusal for the API (a class sets its own, a raise may name another);
    message is its one line for people: the summary when one is given, else str()."""

    code: str = "invalid"

    def __init__(
        self,
        problems: str | Iterable[Problem],
        *,
        code: str | None = None,
        summary: str | None = None,
        loc: str = "",
    ) -> None:
        if code:
            self.code = code
        if isinstance(problems, str):
            problems = [Problem(problems, loc)]
        self.problems = [p if p.code else replace(p, code=self.code) for p in problems]
        super().__init__("; ".join(p.message for p in self.problems))
        self.message = summary or str(self)

    @property
    def errors(self) -> dict[str, str]:
        """{loc: message}, for code that reads problems by field (several on one are joined)."""
        errors: dict[str, str] = {}
        for problem in self.problems:
            before = errors.get(problem.loc)
            errors[problem.loc] = f"{before} {problem.message}" if before else problem.message
        return errors

    def error_details(self) -> dict[str, Any]:
        """The API error's details: every problem."""
        return {"errors": [p.to_dict() for p in self.problems]}


class Unavailable(RuntimeError):
    """A service this needs cannot be used now; the message says why and what to set."""

    code: str = "unavailable"


def show_on_form(
    form: Any, problems: Iterable[Problem], places: Mapping[str, Field] | None = None
) -> list[Problem]:
    """Put each problem under its input: the field the caller places its loc on, else the
    form's field of that name. The others become the form's own errors and are returned, for
    a page that lists them apart."""
    rest = []
    for problem in problems:
        field = (places or {}).get(problem.loc)
        if field is None and problem.loc and problem.loc in form:
            field = form[problem.loc]
        if field is None:
            form.form_errors.append(problem.message)
            rest.append(problem)
        else:
            field.errors = [*field.errors, problem.message]
    return rest
