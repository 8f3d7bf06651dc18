"""Schemathesis against /api/schema/ served by gunicorn (DEBUG off) on Postgres.

For every operation in the schema, as a viewer, a triager and a release manager (token auth),
schemathesis generates requests that fit the schema (positive) and requests that do not
(negative). Every answer must pass the response checks: no 5xx, and status code, content type,
headers and body as the schema documents them. Half of the positive examples of an operation
with path parameters use ids of real rows (api_world), so that 200 bodies are checked too, not
only 404s. Examples are bounded (EXAMPLES_* below) and the seed is fixed so CI is reproducible;
the figures are in docs/RELIABILITY.md.
"""

from __future__ import annotations

import pytest
import requests
from hypothesis import HealthCheck, Phase, given, settings
from rest_framework.authtoken.models import Token
from schemathesis import GenerationMode, openapi
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.conftest import user_with_role

pytestmark = pytest.mark.integration

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
EXAMPLES_POSITIVE = 10  # per operation and role
EXAMPLES_NEGATIVE = 5


def fuzz_settings(examples: int):
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.explicit, Phase.generate],  # no shrinking: the failure names its request
        suppress_health_check=list(HealthCheck),
    )


def run_operation(operation, *, base_url, headers, session, world, failures, counts) -> None:
    label = operation.label

    def exercise(case):
        counts[label] = counts.get(label, 0) + 1
        try:
            case.call_and_validate(
                base_url=base_url, headers=headers, session=session, checks=CHECKS, timeout=30
            )
        except (AssertionError, BaseExceptionGroup) as exc:  # schemathesis's failed checks
            failures.append(f"{label}: {exc}"[:3000])
            raise

    path_names = [p.name for p in operation.path_parameters]
    strategies = [
        (operation.as_strategy(GenerationMode.POSITIVE), EXAMPLES_POSITIVE),
        (operation.as_strategy(GenerationMode.NEGATIVE), EXAMPLES_NEGATIVE),
    ]
    if path_names and all(name in world for name in path_names):
        real = {name: world[name] for name in path_names}
        strategies[0] = (
            operation.as_strategy(GenerationMode.POSITIVE, path_parameters=real)
            | operation.as_strategy(GenerationMode.POSITIVE),
            EXAMPLES_POSITIVE,
        )
    for strategy, examples in strategies:

        @fuzz_settings(examples)
        @given(case=strategy)
        def fuzz(case):
            exercise(case)

        try:
            fuzz()
        except (AssertionError, BaseExceptionGroup):
            pass  # recorded in failures; the next operation still runs
        except Exception as exc:  # hypothesis could not generate (e.g. an unsatisfiable schema)
            if "Unsatisfiable" not in type(exc).__name__:
                failures.append(f"{label}: {type(exc).__name__}: {exc}"[:3000])


def test_every_api_operation_answers_as_its_schema_says_without_5xx(
    gunicorn, api_world, django_user_model
):
    """As a viewer, a triager and a release manager, one gunicorn for the three."""
    failures: list[str] = []
    totals = {}
    for role in ("viewers", "triagers", "release managers"):
        member = user_with_role(django_user_model, f"fuzzer-{role[:4]}", role)
        headers = {"Authorization": f"Token {Token.objects.create(user=member).key}"}
        schema = openapi.from_url(f"{gunicorn.url}/api/schema/?format=json", headers=headers)
        operations = [result.ok() for result in schema.get_all_operations()]
        assert len(operations) >= 15, [op.label for op in operations]
        counts: dict[str, int] = {}
        with requests.Session() as session:
            for operation in operations:
                run_operation(
                    operation,
                    base_url=gunicorn.url,
                    headers=headers,
                    session=session,
                    world=api_world,
                    failures=failures,
                    counts=counts,
                )
        # every operation was exercised; the totals are the figures in docs/RELIABILITY.md
        assert set(counts) == {op.label for op in operations}, role
        totals[role] = sum(counts.values())
    print(f"\nrequests per role: {totals}")
    assert failures == [], "\n\n".join(failures[:10])
    assert "Internal Server Error" not in gunicorn.log_tail(200_000)
