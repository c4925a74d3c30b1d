"""Schemathesis against the live app, from the published document, with an administrator's
bearer token: for every call, inputs that fit the document and inputs that do not; no answer
is 5xx, and every answer fits what the document declares (errors in the one error shape).
Examples are bounded per call so the suite stays quick; each run explores new inputs."""

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import content_type_conformance, response_schema_conformance

from webapp.auth.models import ApiToken
from webapp.extensions import db

EXAMPLES_PER_CALL = 10


def no_server_fault(ctx, response, case):
    """No 5xx, but the declared 503 of a service that is not there (the tests configure no
    OpenAI key, so asking for it is rightly unavailable)."""
    if response.status_code >= 500 and response.status_code != 503:
        raise AssertionError(f"{response.status_code}: {response.text[:500]}")


CHECKS = [no_server_fault, response_schema_conformance, content_type_conformance]


@pytest.fixture
def api(app, make_user, idle_queue):
    _token, secret = ApiToken.issue(make_user("admin"), "fuzz")
    db.session.commit()
    headers = {"Authorization": f"Bearer {secret}"}
    return schemathesis.openapi.from_wsgi("/api/v1/openapi.json", app, headers=headers), headers


@pytest.mark.parametrize("mode", list(GenerationMode), ids=lambda m: m.value)
def test_no_call_answers_5xx_and_every_answer_fits_the_document(api, mode):
    schema, headers = api
    ran = 0
    for result in schema.get_all_operations():
        operation = result.ok()

        @given(case=operation.as_strategy(generation_mode=mode))
        @settings(
            max_examples=EXAMPLES_PER_CALL,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def call(case):
            nonlocal ran
            ran += 1
            case.call_and_validate(headers=headers, checks=CHECKS)

        call()
    assert ran >= len(list(schema.get_all_operations()))
