import pytest

from triage.models import IssuePrediction

pytestmark = pytest.mark.django_db


def queued(make, title, score, **predictions):
    issue = make.issue(title=title)
    make.priority(issue, score)
    for model_name, label in predictions.items():
        IssuePrediction.objects.create(
            issue=issue,
            model_name=model_name,
            label=label.rstrip("?"),
            confidence=0.5,
            needs_triage=label.endswith("?"),
        )
    return issue


@pytest.fixture
def queue(make):
    return [
        queued(make, "Low one", 10, kind="question", component="hip"),
        queued(make, "Top one", 90, kind="bug", component="rocblas", environment="gfx942"),
        queued(make, "Middle one", 50, kind="feature?", environment="gfx1100 gfx90a"),
        make.issue(title="Unscored one"),
        make.issue(title="Closed one", state="closed"),
    ]


def titles(response):
    page = response.content.decode()
    names = ["Top one", "Middle one", "Low one", "Unscored one", "Closed one"]
    return sorted((n for n in names if n in page), key=page.index)


def test_it_orders_open_issues_by_priority(logged_in_client, queue):
    response = logged_in_client.get("/triage/")
    assert response.status_code == 200
    assert titles(response) == ["Top one", "Middle one", "Low one", "Unscored one"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("component=rocblas", ["Top one"]),
        ("architecture=gfx90a", ["Middle one"]),
        ("architecture=gfx942", ["Top one"]),
        ("kind=question", ["Low one"]),
        ("needs_triage=on", ["Middle one", "Unscored one"]),  # no kind and no label: untriaged
    ],
)
def test_it_filters(logged_in_client, queue, query, expected):
    assert titles(logged_in_client.get(f"/triage/?{query}")) == expected


def test_a_bad_filter_is_reported_and_ignored(logged_in_client, queue):
    response = logged_in_client.get("/triage/?architecture=<script>")
    assert "Some filters were ignored" in response.content.decode()
    assert len(titles(response)) == 4


def test_it_needs_a_login(client):
    assert client.get("/triage/").status_code == 302


def test_a_triagers_override_moves_an_issue_up_the_queue(logged_in_client, queue, user):
    from triage.services import priority

    low = queue[0]
    priority.priority_override(issue=low, label="99", user=user)
    assert titles(logged_in_client.get("/triage/"))[0] == "Low one"


def test_symptoms_read_as_words_and_component_names_as_given(triager_client, make):
    import re

    queued(
        make,
        "hipBLASLt FP8 GEMM returns NaN on gfx942",
        80,
        symptom="wrong_result?",
        component="composable_kernel",
    )
    page = triager_client.get("/triage/").content.decode()
    text = " ".join(re.sub(r"<[^>]+>", " ", page).split())

    assert "wrong result" in text and "wrong_result" not in text
    assert "composable_kernel" in text  # a component's name is a name, not a key
    assert 'value="wrong_result"' in page  # what the decision stores stays the key
