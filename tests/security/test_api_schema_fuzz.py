"""Schemathesis against /api/schema/ served by gunicorn (DEBUG off) on Postgres.

For every operation in the schema, as a viewer, a triager and a release manager (token auth),
schemathesis generates requests that fit the schema (positive) and requests that do not
(negative). Every answer must pass the response checks: no 5xx, and status code, content type,
headers and body as the schema documents them. Half of the positive examples of an operation
with path parameters use ids of real rows (api_world), so that 200 bodies are checked too, not
only 404s. Examples are bounded (EXAMPLES_* below) and the seed is fixed so CI is reproducible;
the figures are in docs/RELIABILITY.md.

Beside the generated examples, every date, number and version parameter (query, path and JSON
body) is sent each of its boundary values (BOUNDARIES: the first and last days of the calendar,
integers around 2^31 and 2^63, versions past any train, ...), the others as a valid request has
them, through the same checks.
"""

from __future__ import annotations

from contextlib import suppress
from itertools import chain

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
INTEGERS = [0, -1, 2**31 - 1, 2**31, 2**63 - 1, 2**63, -(2**63) - 1, 10**30]
BOUNDARIES = {
    "date": [
        "0001-01-01",
        "9999-12-31",
        "9999-12-30",
        "1970-01-01",
        "2000-02-29",
        "2026-02-30",
        "10000-01-01",
        "-0001-01-01",
        "0001-01-01T00:00:00+14:00",
        "9999-12-31T23:59:59-12:00",
        "9999-12-31T23:59:59.999999Z",
    ],
    "integer": INTEGERS + ["1e3", "0x10", " 7", "\u0663"],
    "number": [0, -0.0, 1e308, "1e309", "-1e309", "NaN", "Infinity", 5e-324],
    "version": [
        "0.0",
        "7.9.0",
        "v7.9",
        "9999.9999",
        "10000.1",
        "1." + "9" * 40,
        "7",
        "7.9.0.1",
        "-1.0",
        "\u0667.\u0669",
        "7.9\n",
    ],
    "priority": [str(n) for n in INTEGERS] + ["101", "-0", "1e2", "auto "],
}
# A request body valid in every part but the one under test.
BODY_DEFAULTS = {
    "issue": "ROCm/ROCm#1",
    "pull_request": "ROCm/ROCm#2",
    "tag": "rocm-7.9.0-rc1",
    "label": "bug",
    "sha256": "0" * 64,
    "version": "7.9",
}


def fuzz_settings(examples: int):
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.explicit, Phase.generate],  # no shrinking: the failure names its request
        suppress_health_check=list(HealthCheck),
    )


def _kind(name: str, schema: dict) -> str | None:
    if "version" in name:
        return "version"
    if schema.get("format") in ("date", "date-time") or name in ("as_of", "since"):
        return "date"
    return schema.get("type") if schema.get("type") in ("integer", "number") else None


def _body_properties(operation, document) -> tuple[dict, list]:
    body = (operation.definition.raw.get("requestBody") or {}).get("content", {})
    schema = body.get("application/json", {}).get("schema") or {}
    if "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema.get("properties") or {}, schema.get("required") or []


def boundary_cases(operation, world, document):
    """One case per boundary value of each date, number and version parameter."""
    path = {p.name: world.get(p.name, "x") for p in operation.path_parameters}
    properties, required = _body_properties(operation, document)
    body = {name: BODY_DEFAULTS.get(name, "") for name in required} if properties else None
    for parameter in chain(operation.path_parameters, operation.query):
        kind = _kind(parameter.name, parameter.definition.get("schema") or {})
        for value in BOUNDARIES.get(kind, []):
            where = "path_parameters" if parameter.location.value == "path" else "query"
            parts = {"path_parameters": dict(path), "query": {}}
            parts[where][parameter.name] = value
            extra = {"body": body, "media_type": "application/json"} if body is not None else {}
            yield operation.Case(**parts, **extra)
    for name, schema in properties.items():
        kind = _kind(name, schema)
        if name == "label" and path.get("model_name") == "priority":
            kind = "priority"
        for value in BOUNDARIES.get(kind, []):
            yield operation.Case(
                path_parameters=dict(path),
                body={**BODY_DEFAULTS, **(body or {}), name: value},
                media_type="application/json",
            )


def run_operation(
    operation, *, base_url, headers, session, world, failures, counts, document
) -> None:
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
    for case in boundary_cases(operation, world, document):
        with suppress(AssertionError, BaseExceptionGroup):  # recorded in failures
            exercise(case)
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
        url = f"{gunicorn.url}/api/schema/?format=json"
        schema = openapi.from_url(url, headers=headers)
        document = requests.get(url, headers=headers, timeout=30).json()
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
                    document=document,
                )
        # every operation was exercised; the totals are the figures in docs/RELIABILITY.md
        assert set(counts) == {op.label for op in operations}, role
        totals[role] = sum(counts.values())
    print(f"\nrequests per role: {totals}")
    assert failures == [], "\n\n".join(failures[:10])
    assert "Internal Server Error" not in gunicorn.log_tail(200_000)
