from django.urls import reverse


def url(issue):
    repo = issue.repository
    return reverse("issue-detail", args=[repo.owner, repo.name, issue.number])


def test_it_shows_an_issue_with_its_comments(logged_in_client, make):
    issue = make.issue(
        number=12, title="hipcc segfaults", body="Steps:\n\n1. **run** it", labels=["bug"]
    )
    make.comment(issue, body="Reproduced on `gfx942`.", author="triager")
    make.comment(issue, body="Gone", deleted_at=make.now)

    response = logged_in_client.get(url(issue))

    assert response.status_code == 200
    content = response.content.decode()
    assert "hipcc segfaults" in content
    assert "<strong>run</strong>" in content
    assert "<code>gfx942</code>" in content
    assert "triager" in content
    assert "Gone" not in content
    assert 'href="https://github.com/ROCm/ROCm/issues/12"' in content
    assert "1 comment" in content


def test_it_finds_the_issue_whatever_the_case_of_the_repository(logged_in_client, make):
    make.issue(number=3)
    response = logged_in_client.get(reverse("issue-detail", args=["rocm", "rocm", 3]))
    assert response.status_code == 200


def test_it_answers_404_for_an_unknown_issue(logged_in_client, make):
    make.issue(number=3)
    response = logged_in_client.get(reverse("issue-detail", args=["ROCm", "ROCm", 4]))
    assert response.status_code == 404


def test_it_shows_pull_request_fields(logged_in_client, make):
    pr = make.pull_request(
        number=77,
        state="closed",
        merged=True,
        merged_at=make.now,
        merged_by=make.person("maintainer"),
        merge_commit_sha="abc123def456",
        base_ref="develop",
        head_ref="fix/hip-crash",
    )

    content = logged_in_client.get(url(pr)).content.decode()

    assert "Pull request" in content
    assert "abc123def456" in content
    assert "<code>develop</code> ← <code>fix/hip-crash</code>" in content
    assert "maintainer" in content
    assert "badge-merged" in content


def test_it_renders_hostile_bodies_sanitized(logged_in_client, make):
    issue = make.issue(
        number=5,
        body=(
            "<script>alert('body')</script>\n\n"
            '<img src="x" onerror="alert(1)">\n\n'
            "[click](javascript:alert(2))\n\n"
            '<iframe src="https://evil.example"></iframe>'
        ),
    )
    make.comment(issue, body='<a href="javascript:alert(3)" onclick="x()">c</a>')

    content = logged_in_client.get(url(issue)).content.decode()

    assert "alert('body')" not in content
    assert "onerror" not in content
    assert 'href="javascript:' not in content
    assert "onclick" not in content
    assert "<iframe" not in content


def test_it_says_where_a_transferred_issue_went(logged_in_client, make):
    issue = make.issue(number=9, transferred_to="ROCm/hip#100", deleted_at=make.now)
    content = logged_in_client.get(url(issue)).content.decode()
    assert "transferred to ROCm/hip#100" in content


def test_it_never_links_a_non_http_github_url(logged_in_client, make):
    issue = make.issue(number=10)
    issue.html_url = "javascript:alert(1)"
    issue.save()
    content = logged_in_client.get(url(issue)).content.decode()
    assert 'href="javascript:' not in content


def test_the_issue_page_makes_the_same_number_of_queries_however_much_it_shows(
    logged_in_client, make
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from triage.models import IssuePrediction, Post, PostIssueLink

    def queries_for(issue) -> int:
        url = f"/issues/{issue.repository.full_name}/{issue.number}/"
        with CaptureQueriesContext(connection) as captured:
            assert logged_in_client.get(url).status_code == 200
        return len(captured)

    def filled(number: int, n: int):
        issue = make.issue(number=number, labels=[f"label-{number}-{i}" for i in range(n)])
        for i in range(n):
            make.comment(issue, body=f"comment {i}", author=f"user{number}-{i}")
            post = Post.objects.create(
                external_id=str(number * 100 + i), text="ROCm", created_at=make.now
            )
            PostIssueLink.objects.create(
                post=post, issue=issue, kind="suggested", status="suggested"
            )
        for model in ("kind", "component", "severity", "environment"):
            IssuePrediction.objects.create(issue=issue, model_name=model, label="x", confidence=0.5)
        make.priority(issue, 50, parts=[{"name": "kind", "points": 50, "why": "bug"}])
        return issue

    assert queries_for(filled(1, 1)) == queries_for(filled(2, 12))


def test_a_thread_of_maximal_comments_is_folded_and_each_comment_is_one_click_away(
    make, logged_in_client
):
    issue = make.issue(number=77, title="Huge thread")
    line = "log line `code` **bold** https://example.org/x\n"
    for n in range(15):
        make.comment(issue, body=(f"comment {n} " + line * 1500)[:65535], author=f"poster{n}")
    page = logged_in_client.get(reverse("issue-detail", args=["ROCm", "ROCm", 77]))
    html = page.content.decode()
    assert page.status_code == 200
    assert html.count("Show the whole comment") == 15
    assert len(html) < 400_000  # the 15 comments hold 983,000 characters
    whole = logged_in_client.get(html.split('<p class="comment-folded"><a href="')[1].split('"')[0])
    assert whole.status_code == 200 and "comment 0" in whole.content.decode()
    posted = issue.comments.get(author__login="poster0").body
    assert whole.content.decode().count("log line") == posted.count("log line")
    missing = reverse("issue-comment", args=["ROCm", "ROCm", 77, "424242"])
    assert logged_in_client.get(missing).status_code == 404
