"""Fuzzed deliveries to POST /webhooks/github/: bodies in GitHub's shape with fields removed or
of the wrong type, huge numbers, unicode, invalid UTF-8, deep nesting, and fuzzed headers.

Properties (hypothesis, a fixed seed so CI is reproducible):
- no answer is a 5xx;
- without a valid signature nothing is stored (WebhookDelivery and Issue counts unchanged);
- a signed delivery is stored once and processed to an end state (processed, ignored, or failed
  with the error in words), never left pending by a crash, and nothing stored before is lost.

Processing runs in-process here (no REDIS_URL: Celery tasks are eager), through the same
`delivery_process` a worker runs; tests/security/test_webhook_worker.py sends the same kind of
deliveries to gunicorn and a real Celery worker on Postgres.
"""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st

from tests.fakes.github_api import github_for_settings
from tests.fakes.github_webhooks import fixture_body, fixture_names, fixture_payload, signature
from triage.models import Issue, WebhookDelivery

SECRET = "fuzz-webhook-secret"
URL = "/webhooks/github/"
HANDLED_EVENTS = ("issues", "issue_comment", "pull_request", "label", "ping", "repository")
FIXTURES = [name for name in fixture_names() if name.split("__")[0] in HANDLED_EVENTS]
EXAMPLES = 150  # per test; figures in docs/RELIABILITY.md

FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.generate],  # no shrinking: a failure prints its example
    suppress_health_check=list(HealthCheck),
)

pytestmark = pytest.mark.django_db(transaction=True)

HUGE_NUMBERS = st.sampled_from(
    [2**31, 2**31 - 1, 2**53 + 1, 2**63, 2**63 - 1, 2**64, -(2**63) - 1, -1, 0, 10**30]
)
HOSTILE_TEXT = st.sampled_from(
    [
        "",
        "\x00",
        "nul\x00inside",
        "\ud800 lone surrogate",
        "<script>alert(1)</script>",
        "'; DROP TABLE triage_issue; --",
        "%_\\",
        "\u202eevil\u202c",
        "x" * 70_000,
        "🚀" * 500,
        "\x1b[31mred\x07\x08",
    ]
)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | HUGE_NUMBERS
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=40)
    | HOSTILE_TEXT
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=10), children, max_size=3)
    ),
    max_leaves=6,
)


def paths_of(value, prefix=()):
    """Every path (tuple of keys and indexes) inside a JSON value."""
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from paths_of(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from paths_of(child, (*prefix, index))


PATHS = {name: [p for p in paths_of(fixture_payload(name)) if p] for name in FIXTURES}
# Half the mutations hit the fields the handlers read first (action, issue.number, label.name...).
SHALLOW = {name: [p for p in paths if len(p) <= 2] for name, paths in PATHS.items()}


def mutate(payload, path, action, value):
    """Remove the field at `path` or set it to `value`; False when the path is gone."""
    parent = payload
    for key in path[:-1]:
        try:
            parent = parent[key]
        except (KeyError, IndexError, TypeError):
            return False
    last = path[-1]
    if isinstance(parent, dict) or (isinstance(parent, list) and isinstance(last, int)):
        try:
            if action == "remove":
                del parent[last]
            else:
                parent[last] = value
        except (KeyError, IndexError):
            return False
        return True
    return False


@st.composite
def malformed_deliveries(draw):
    """(event, body bytes) in GitHub's shape with 1-4 fields removed or replaced."""
    name = draw(st.sampled_from(FIXTURES))
    payload = copy.deepcopy(fixture_payload(name))
    for _ in range(draw(st.integers(1, 4))):
        path = draw(st.sampled_from(SHALLOW[name]) | st.sampled_from(PATHS[name]))
        action = draw(st.sampled_from(["remove", "replace", "replace"]))
        mutate(payload, path, action, draw(JSON_VALUES) if action == "replace" else None)
    body = json.dumps(payload, allow_nan=True).encode()
    return name.split("__")[0], body


RAW_BODIES = st.one_of(
    st.binary(max_size=200),  # mostly not UTF-8, not JSON
    st.sampled_from(
        [
            b"",
            b"null",
            b"[]",
            b'"a string"',
            b"\xff\xfe{\x00}",  # invalid UTF-8
            '{"action": "opened", "issue": "\udcff"}'.encode("utf-8", "surrogateescape"),
            b"[" * 100_000 + b"]" * 100_000,  # nesting deeper than the JSON parser recurses
            b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
            b'{"action": NaN, "issue": Infinity}',
        ]
    ),
    JSON_VALUES.map(lambda v: json.dumps(v).encode()),
)
HEADER_TEXT = st.text(
    st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=120
)  # what an HTTP client can put in a header


@pytest.fixture(autouse=True)
def _secret(settings):
    settings.GITHUB_WEBHOOK_SECRET = SECRET


@pytest.fixture(autouse=True)
def github(settings):
    """GitHub's REST API, for what a merged pull request's delivery leads to (its commits)."""
    with github_for_settings(settings, token="fuzz-token", retries=0) as emulator:
        yield emulator


@pytest.fixture
def stored_before(client):
    """A correctly signed delivery processed before the fuzz: it must survive every example."""
    body = fixture_body("issue_comment__created")
    response = client.post(
        URL,
        data=body,
        content_type="application/json",
        headers=_headers("issue_comment", body, delivery="kept-1"),
    )
    assert response.status_code == 202
    return snapshot()


def _headers(event, body, *, delivery, sign=True, secret=SECRET):
    headers = {"X-GitHub-Event": event, "X-GitHub-Delivery": delivery}
    if sign:
        headers["X-Hub-Signature-256"] = signature(body, secret)
    return headers


def snapshot():
    """What a delivery must never lose: earlier deliveries (and their outcome) and issues (a
    delivery may mark one deleted or closed, never remove its row)."""
    return {
        "deliveries": set(WebhookDelivery.objects.values_list("delivery_id", "status")),
        "issues": set(Issue.objects.values_list("repository__full_name", "number")),
    }


def assert_nothing_lost(before: dict) -> None:
    after = snapshot()
    assert before["deliveries"] <= after["deliveries"]
    assert before["issues"] <= after["issues"]


def assert_processed_to_an_end(delivery_id: str) -> WebhookDelivery:
    delivery = WebhookDelivery.objects.get(delivery_id=delivery_id)
    assert delivery.status != WebhookDelivery.Status.PENDING, delivery.error
    assert delivery.processed_at is not None
    if delivery.status in (WebhookDelivery.Status.FAILED, WebhookDelivery.Status.IGNORED):
        assert delivery.error.strip(), "a failed or ignored delivery says why"
    event(f"{delivery.event[:20]}: {delivery.status}")  # --hypothesis-show-statistics
    return delivery


_counter = iter(range(10**9))


def _delivery_id() -> str:
    return f"fuzz-{next(_counter)}"


@FUZZ
@given(delivery=malformed_deliveries())
def test_a_signed_malformed_delivery_is_answered_stored_and_processed_to_an_end(
    client, stored_before, delivery
):
    event, body = delivery
    delivery_id = _delivery_id()
    before = snapshot()
    response = client.post(
        URL,
        data=body,
        content_type="application/json",
        headers=_headers(event, body, delivery=delivery_id),
    )
    assert response.status_code < 500, response.content[:500]
    assert response.status_code in (202, 400), response.content[:500]
    if response.status_code == 202:
        assert_processed_to_an_end(delivery_id)
    else:
        assert not WebhookDelivery.objects.filter(delivery_id=delivery_id).exists()
    assert_nothing_lost(before)
    assert_nothing_lost(stored_before)


@FUZZ
@given(
    event=st.sampled_from([*HANDLED_EVENTS, "star", "sponsorship"]) | HEADER_TEXT,
    body=RAW_BODIES,
)
def test_a_signed_body_that_is_not_a_github_payload_never_answers_5xx(client, event, body):
    delivery_id = _delivery_id()
    before = snapshot()
    response = client.post(
        URL,
        data=body,
        content_type="application/json",
        headers=_headers(event, body, delivery=delivery_id),
    )
    assert response.status_code in (202, 400), (response.status_code, response.content[:300])
    if response.status_code == 202:
        assert_processed_to_an_end(delivery_id)
    assert_nothing_lost(before)


@FUZZ
@given(
    delivery=malformed_deliveries() | st.tuples(st.sampled_from(HANDLED_EVENTS), RAW_BODIES),
    signature_header=st.one_of(
        st.none(),
        st.just(""),
        st.just("sha256="),
        HEADER_TEXT,
        HEADER_TEXT.map(lambda text: "sha256=" + text),
        st.just("sha1=" + "0" * 40),
    ),
    wrong_secret=st.booleans(),
)
def test_without_a_valid_signature_nothing_is_stored(
    client, stored_before, delivery, signature_header, wrong_secret
):
    event, body = delivery
    headers = _headers(event, body, delivery=_delivery_id(), sign=False)
    if wrong_secret:
        headers["X-Hub-Signature-256"] = signature(body, "not-" + SECRET)
    elif signature_header is not None:
        headers["X-Hub-Signature-256"] = signature_header
    deliveries, issues = WebhookDelivery.objects.count(), Issue.objects.count()
    response = client.post(URL, data=body, content_type="application/json", headers=headers)
    assert response.status_code == 403, (response.status_code, response.content[:300])
    assert WebhookDelivery.objects.count() == deliveries
    assert Issue.objects.count() == issues
    assert_nothing_lost(stored_before)


@FUZZ
@given(
    event=st.none() | HEADER_TEXT,
    delivery=st.none() | HEADER_TEXT,
    hook=st.none() | HEADER_TEXT,
    content_type=st.sampled_from(
        ["application/json", "application/x-www-form-urlencoded", "text/plain", ""]
    ),
)
def test_fuzzed_headers_on_a_signed_delivery_never_answer_5xx(
    client, event, delivery, hook, content_type
):
    body = fixture_body("issues__opened")
    headers = {"X-Hub-Signature-256": signature(body, SECRET)}
    for name, value in (
        ("X-GitHub-Event", event),
        ("X-GitHub-Delivery", delivery),
        ("X-GitHub-Hook-ID", hook),
    ):
        if value is not None:
            headers[name] = value
    deliveries = WebhookDelivery.objects.count()
    response = client.post(URL, data=body, content_type=content_type, headers=headers)
    assert response.status_code in (200, 202, 400), (response.status_code, response.content[:300])
    if not event or not delivery:
        assert response.status_code == 400
        assert WebhookDelivery.objects.count() == deliveries
    elif response.status_code == 202:
        assert_processed_to_an_end(delivery[:100])
