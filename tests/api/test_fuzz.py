"""Schemathesis against the live app, from the published document, with an administrator's
bearer token: for every call, inputs that fit the document and inputs that do not; no answer
is 5xx, and every answer fits what the document declares (errors in the one error shape).

Real records are made first (tests/api/records.py), and most generated calls name them in their
path (a real culture, system, review and its document, run, undo group), the rest keep their
random ids: a call on a record reaches its handler instead of answering 404. Every call with an
id in its path must get at least one answer other than 404. Deletions (and the replacement of
a system's document) come last, so the records stand for the other calls. Every faulty call is
reported at once, with the server's traceback. Examples are bounded per call so the suite stays
quick; each run explores new inputs."""

from __future__ import annotations

import logging
import re
from collections import defaultdict

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import content_type_conformance, response_schema_conformance

from tests.api.records import Records, make_records
from webapp.auth.models import ApiToken
from webapp.extensions import db

EXAMPLES_PER_CALL = 10
PATH_PARAMETER = re.compile(r"{(\w+)}")
# Most calls name real records; the first choice is the one Hypothesis tries first.
REAL_OR_RANDOM = st.sampled_from(["real", "real", "real", "random"])


class ServerErrors(logging.Handler):
    """The tracebacks the app logs for the errors it answers 500 (or 503 for its database)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.texts: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.texts.append(self.format(record))


def no_server_fault(ctx, response, case):
    """No 5xx, but the declared 503 of a service that is not there (the tests configure no
    OpenAI key, so asking for it is rightly unavailable). The database is up throughout: a
    503 saying it is not is a query that failed."""
    status = response.status_code
    body = response.json() if "json" in response.headers.get("Content-Type", "") else {}
    code = (body.get("error") or {}).get("code") if isinstance(body, dict) else None
    if status >= 500 and (status != 503 or code == "database_unavailable"):
        raise AssertionError(f"{status}: {response.text[:500]}")


CHECKS = [no_server_fault, response_schema_conformance, content_type_conformance]


@pytest.fixture
def api(app, make_user, idle_queue):
    _token, secret = ApiToken.issue(make_user("admin"), "fuzz")
    db.session.commit()
    # Schemathesis sends requests' Accept-Encoding (gzip, deflate, ...), but its WSGI transport
    # hands back the body as the app sent it, undecoded: it asks for none (compressed answers
    # are tests/test_compression.py's).
    headers = {"Authorization": f"Bearer {secret}", "Accept-Encoding": "identity"}
    records = make_records(app, headers)
    schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", app, headers=headers)
    return schema, headers, records


@pytest.fixture
def server_errors(app):
    handler = ServerErrors()
    app.logger.addHandler(handler)
    yield handler
    app.logger.removeHandler(handler)


# Calls that take the records away (or replace a system's document) come last.
LAST = {"PUT /api/v1/systems/{system_id}": 1, "DELETE": 2}


def operations(schema):
    """Every operation, those that take the records away from the others last."""
    found = [result.ok() for result in schema.get_all_operations()]
    return sorted(found, key=lambda op: LAST.get(op.label) or LAST.get(op.method.upper(), 0))


def with_real_ids(case, records: Records, data) -> bool:
    """Put real values in the case's path parameters; whether there were any to put."""
    path = case.operation.path
    chosen = {}
    for name in PATH_PARAMETER.findall(path):
        if values := records.values(path, name):
            chosen[name] = data.draw(st.sampled_from(values), label=name)
    if chosen:
        case.path_parameters = {**(case.path_parameters or {}), **chosen}
    return bool(chosen)


@pytest.mark.parametrize("mode", list(GenerationMode), ids=lambda m: m.value)
def test_no_call_answers_5xx_and_every_answer_fits_the_document(api, server_errors, mode):
    schema, headers, records = api
    ran = 0
    # {operation: answers to calls that named real records}
    answers: dict[str, list[int]] = defaultdict(list)
    faults: list[str] = []
    with_ids = []
    for operation in operations(schema):
        if PATH_PARAMETER.search(operation.path):
            with_ids.append(operation.label)

        @given(case=operation.as_strategy(generation_mode=mode), data=st.data())
        @settings(
            max_examples=EXAMPLES_PER_CALL,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def call(case, data):
            nonlocal ran
            ran += 1
            real = data.draw(REAL_OR_RANDOM, label="ids") == "real" and with_real_ids(
                case, records, data
            )
            server_errors.texts.clear()
            response = case.call(headers=headers)
            if real:
                answers[case.operation.label].append(response.status_code)
            logged = "\n".join(server_errors.texts)
            try:
                case.validate_response(response, checks=CHECKS)
            except (Exception, BaseExceptionGroup) as failure:  # a Schemathesis FailureGroup
                raise AssertionError(f"{failure}\n{logged}") from None

        try:
            call()
        except (Exception, BaseExceptionGroup) as failure:  # every faulty call, not the first
            faults.append(f"{operation.label}:\n{failure}")
    assert not faults, "\n\n".join(faults)
    assert ran >= len(operations(schema))
    only_404 = [label for label in with_ids if set(answers[label]) <= {404}]
    assert not only_404, f"no call reached a real record: {only_404}; answers: {dict(answers)}"
    assert len(with_ids) >= 42
