from datetime import UTC, datetime

from releases.services.fixes import fix_links_sync


def test_the_timeline_shows_the_current_train(logged_in_client, series):
    response = logged_in_client.get("/releases/")
    assert response.status_code == 200
    assert b"current" in response.content


def test_the_train_page_shows_readiness(logged_in_client, series):
    response = logged_in_client.get("/releases/7.9/")
    assert response.status_code == 200
    assert b"Readiness of rocm 7.9.0" in response.content


def test_an_unknown_train_is_404(logged_in_client, series):
    assert logged_in_client.get("/releases/6.0/").status_code == 404


def test_release_notes_download_as_markdown(logged_in_client, series):
    response = logged_in_client.get("/releases/7.9/notes/?download=1")
    assert response["Content-Type"].startswith("text/markdown")
    assert response.content.startswith(b"## rocm 7.9.0")


def test_the_issue_page_shows_fixed_in(logged_in_client, series, make):
    issue = make.issue(number=1)
    pr = make.pull_request(
        number=2,
        body="Fixes #1",
        merged=True,
        base_ref="develop",
        merge_commit_sha="d" * 40,
        merged_at=datetime(2026, 11, 20, tzinfo=UTC),
    )
    fix_links_sync(pull_request=pr)
    response = logged_in_client.get(f"/issues/ROCm/ROCm/{issue.number}/")
    assert response.status_code == 200
    assert b"Fixed in 7.9" in response.content
    assert b"dddddddddddd" in response.content
