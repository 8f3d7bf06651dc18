"""The X API v2 emulator, driven by the real tweepy client (and requests for raw headers)."""

import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import requests
import tweepy
from requests.adapters import HTTPAdapter

from tests.fakes.x_api import POST_ID_START, PROBLEMS, XEmulator

TOKEN = "x-test-token"
X_HOST = "https://api.twitter.com"
PROJECT_ROOT = Path(__file__).resolve().parents[2]
TWEET_FIELDS = ["created_at", "author_id", "public_metrics", "entities", "lang"]
USER_FIELDS = ["public_metrics", "created_at"]


class RedirectAdapter(HTTPAdapter):
    """Sends requests for https://api.twitter.com to the emulator instead."""

    def __init__(self, target: str):
        super().__init__()
        self.target = target.rstrip("/")

    def send(self, request, **kwargs):
        if request.url.startswith(X_HOST):
            request.url = self.target + request.url[len(X_HOST) :]
        kwargs["proxies"] = None
        return super().send(request, **kwargs)


def client(emulator: XEmulator, token: str = TOKEN) -> tweepy.Client:
    api = tweepy.Client(bearer_token=token)
    api.session.trust_env = False  # no proxy from the environment for api.twitter.com
    api.session.mount(X_HOST, RedirectAdapter(emulator.url))
    return api


def raw_search(emulator: XEmulator, token: str = TOKEN, **params) -> requests.Response:
    return requests.get(
        emulator.url + "/2/tweets/search/recent",
        params=params,
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    )


@pytest.fixture
def emu():
    with XEmulator(bearer_token=TOKEN) as emulator:
        yield emulator


def test_paginator_pages_250_posts_in_3_requests_each_once(emu):
    for index in range(250):
        emu.add_post(f"ROCm build {index} is slow", username=f"user{index % 7}")
    emu.add_post("CUDA only, nothing to see", username="other")
    emu.clear_log()

    pages = list(
        tweepy.Paginator(
            client(emu).search_recent_tweets,
            "rocm",
            max_results=100,
            expansions="author_id",
            tweet_fields=TWEET_FIELDS,
            user_fields=USER_FIELDS,
        )
    )

    assert emu.count() == 3 and emu.count(status=200) == 3
    assert [page.meta["result_count"] for page in pages] == [100, 100, 50]
    assert "next_token" not in pages[-1].meta
    ids = [int(tweet.id) for page in pages for tweet in page.data]
    assert len(ids) == len(set(ids)) == 250
    assert ids == sorted(ids, reverse=True)
    first = pages[0]
    assert first.meta["newest_id"] == str(ids[0]) and first.meta["oldest_id"] == str(ids[99])
    assert {user.username for user in first.includes["users"]} == {f"user{i}" for i in range(7)}
    assert first.includes["users"][0].public_metrics["tweet_count"] >= 1
    tweet = first.data[0]
    assert tweet.created_at.year >= 2026 and tweet.lang == "en"
    assert tweet.public_metrics["like_count"] == 0 and tweet.author_id
    logged = emu.requests[1]
    assert logged["path"] == "/2/tweets/search/recent" and "next_token" in logged["query"]
    assert all(TOKEN not in repr(entry) for entry in emu.requests)


def test_since_id_returns_only_newer_posts(emu):
    for index in range(5):
        emu.add_post(f"old ROCm post {index}")
    api = client(emu)
    newest = api.search_recent_tweets("rocm").meta["newest_id"]
    fresh = [emu.add_post(f"new ROCm post {index}")["id"] for index in range(3)]

    response = api.search_recent_tweets("rocm", since_id=newest)

    assert [tweet.id for tweet in response.data] == [int(i) for i in reversed(fresh)]
    assert int(fresh[0]) > int(newest) >= POST_ID_START
    assert api.search_recent_tweets("rocm", since_id=fresh[-1]).meta == {"result_count": 0}
    older = api.search_recent_tweets("rocm", until_id=fresh[0])
    assert {tweet.id for tweet in older.data} == {int(newest) - i for i in range(5)}


def test_includes_users_only_with_author_expansion_and_only_requested_fields(emu):
    emu.add_user("alice", name="Alice A", followers=1200)
    emu.add_post("ROCm 6.4 is out", username="alice")

    bare = raw_search(emu, query="rocm").json()
    assert "includes" not in bare
    assert set(bare["data"][0]) == {"id", "text", "edit_history_tweet_ids"}

    expanded = raw_search(
        emu,
        query="rocm",
        expansions="author_id",
        **{"tweet.fields": "created_at,author_id", "user.fields": "public_metrics"},
    ).json()
    assert set(expanded["data"][0]) == {
        "id",
        "text",
        "edit_history_tweet_ids",
        "created_at",
        "author_id",
    }
    (user,) = expanded["includes"]["users"]
    assert set(user) == {"id", "name", "username", "public_metrics"}
    assert user["public_metrics"]["followers_count"] == 1200
    assert user["id"] == expanded["data"][0]["author_id"]

    response = client(emu).search_recent_tweets("rocm", expansions=["author_id"])
    assert response.includes["users"][0].username == "alice"
    assert client(emu).search_recent_tweets("rocm").includes == {}


@pytest.fixture
def corpus(emu):
    emu.add_user("alice")
    emu.add_user("bob")
    posts = {
        "hang": emu.add_post("MI300X hangs again on ROCm 6.4", username="alice"),
        "sucks": emu.add_post("ROCm sucks", username="bob"),
        "praise": emu.add_post("ROCm finally works on my MI250X, great job", username="bob"),
        "question": emu.add_post("Does ROCm support the RX 7900 XTX?", username="alice"),
        "german": emu.add_post("ROCm läuft endlich auf der MI300X", username="bob", lang="de"),
        "cuda": emu.add_post("CUDA again hangs on my H100", username="alice"),
        "tag": emu.add_post("new release #ROCm #AMD", username="bob"),
    }
    posts["retweet"] = emu.add_post(
        "RT @alice: MI300X hangs again on ROCm 6.4", username="bob", retweet_of=posts["hang"]["id"]
    )
    return {name: post["id"] for name, post in posts.items()}


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("rocm", {"hang", "sucks", "praise", "question", "german", "retweet", "tag"}),
        ('"hangs again"', {"hang", "retweet"}),
        ('"again hangs"', {"cuda"}),
        ("MI300X OR MI250X", {"hang", "praise", "german", "retweet"}),
        ("(MI300X OR MI250X) rocm -is:retweet", {"hang", "praise", "german"}),
        ("rocm -is:retweet", {"hang", "sucks", "praise", "question", "german", "tag"}),
        ("rocm is:retweet", {"retweet"}),
        ("rocm -sucks -MI300X", {"praise", "question", "tag"}),
        ('rocm -"hangs again"', {"sucks", "praise", "question", "german", "tag"}),
        ("sucks OR cuda hangs", {"sucks", "cuda"}),
        ("cuda hangs OR sucks", {"sucks", "cuda"}),
        ("from:alice rocm", {"hang", "question"}),
        ("rocm lang:de", {"german"}),
        ("#rocm", {"tag"}),
        ("ROCM 6.4", {"hang", "retweet"}),
        ("-(sucks OR cuda) (release OR finally)", {"tag", "praise"}),
    ],
)
def test_query_evaluation(emu, corpus, query, expected):
    response = client(emu).search_recent_tweets(query, max_results=100)
    found = {str(tweet.id) for tweet in response.data or []}
    assert found == {corpus[name] for name in expected}


@pytest.mark.parametrize(
    "query",
    ["foo:bar rocm", "(rocm OR cuda", "rocm)", "is:retweet", "-rocm", '"open phrase', "rocm OR"],
)
def test_invalid_queries_are_400(emu, query):
    with pytest.raises(tweepy.BadRequest) as caught:
        client(emu).search_recent_tweets(query)
    assert caught.value.response.json()["title"] == "Invalid Request"


def test_parameter_errors_match_the_api(emu):
    missing = raw_search(emu, max_results=10)
    assert missing.status_code == 400
    assert missing.json() == {
        "errors": [
            {
                "parameters": {"query": []},
                "message": "The `query` query parameter can not be empty",
            }
        ],
        "title": "Invalid Request",
        "detail": "One or more parameters to your request was invalid.",
        "type": "https://api.twitter.com/2/problems/invalid-request",
    }
    for bad in (5, 101):
        with pytest.raises(tweepy.BadRequest):
            client(emu).search_recent_tweets("rocm", max_results=bad)
    assert raw_search(emu, query="rocm", bogus="1").status_code == 400
    assert raw_search(emu, query="rocm", **{"tweet.fields": "nope"}).status_code == 400


def test_next_token_is_opaque_and_checked(emu):
    for index in range(15):
        emu.add_post(f"ROCm {index}")
    token = raw_search(emu, query="rocm").json()["meta"]["next_token"]
    assert raw_search(emu, query="rocm", next_token=token).json()["meta"]["result_count"] == 5
    assert raw_search(emu, query="rocm", pagination_token=token).status_code == 200
    assert raw_search(emu, query="rocm", next_token="garbage").status_code == 400
    assert raw_search(emu, query="rocm sucks", next_token=token).status_code == 400


def test_rate_limit_headers_and_429(emu):
    emu.add_post("ROCm")
    first = raw_search(emu, query="rocm")
    assert first.headers["x-rate-limit-limit"] == "450"
    assert first.headers["x-rate-limit-remaining"] == "449"
    reset = int(first.headers["x-rate-limit-reset"])
    assert 0 < reset - time.time() <= 900
    assert raw_search(emu, query="rocm").headers["x-rate-limit-remaining"] == "448"

    reset_at = int(time.time()) + 600
    emu.set_rate_limit(0, reset_at_epoch=reset_at)
    with pytest.raises(tweepy.TooManyRequests) as caught:
        client(emu).search_recent_tweets("rocm")
    assert caught.value.reset_time == reset_at
    assert caught.value.response.json() == {
        "title": "Too Many Requests",
        "detail": "Too Many Requests",
        "type": "about:blank",
        "status": 429,
    }
    assert emu.count(status=429) == 1


def test_injected_faults(emu):
    emu.add_post("ROCm")
    api = client(emu)
    emu.inject_fault(429, after_requests=1, reset_in=30)
    api.search_recent_tweets("rocm")
    with pytest.raises(tweepy.TooManyRequests) as caught:
        api.search_recent_tweets("rocm")
    assert caught.value.response.headers["x-rate-limit-remaining"] == "0"
    assert 25 <= caught.value.reset_time - time.time() <= 31
    assert api.search_recent_tweets("rocm").meta["result_count"] == 1

    emu.inject_fault(503, times=2)
    for _ in range(2):
        with pytest.raises(tweepy.TwitterServerError):
            api.search_recent_tweets("rocm")
    assert api.search_recent_tweets("rocm").data
    assert [entry["status"] for entry in emu.requests] == [200, 429, 200, 503, 503, 200]


def test_wrong_token_is_401(emu):
    emu.add_post("ROCm")
    with pytest.raises(tweepy.Unauthorized) as caught:
        client(emu, token="wrong").search_recent_tweets("rocm")
    assert caught.value.response.json() == {
        "title": "Unauthorized",
        "type": "about:blank",
        "status": 401,
        "detail": "Unauthorized",
    }
    no_auth = requests.get(emu.url + "/2/tweets/search/recent?query=rocm", timeout=10)
    assert no_auth.status_code == 401
    assert emu.count(status=401) == 2
    assert all("wrong" not in repr(entry) for entry in emu.requests)


def test_entities_and_references(emu):
    emu.add_user("alice")
    original = emu.add_post(
        "Hang on gfx942 https://github.com/ROCm/ROCm/issues/4242 #ROCm", username="alice"
    )
    (url,) = original["entities"]["urls"]
    assert url["url"].startswith("https://t.co/")
    assert url["expanded_url"] == "https://github.com/ROCm/ROCm/issues/4242"
    assert original["text"][url["start"] : url["end"]] == url["url"]
    assert original["entities"]["hashtags"][0]["tag"] == "ROCm"
    reply = emu.add_post("@alice same on MI300X", reply_to=original["id"], username="bob")
    assert reply["referenced_tweets"] == [{"type": "replied_to", "id": original["id"]}]
    assert reply["conversation_id"] == original["id"]
    assert reply["entities"]["mentions"][0]["username"] == "alice"

    response = client(emu).search_recent_tweets(
        "url:github.com/ROCm/ROCm", tweet_fields=["entities", "referenced_tweets"]
    )
    assert [tweet.id for tweet in response.data] == [int(original["id"])]
    assert response.data[0].entities["urls"][0]["expanded_url"].endswith("/issues/4242")
    assert client(emu).search_recent_tweets("github").data is None  # URLs are not keywords
    assert client(emu).search_recent_tweets("to:alice").data[0].id == int(reply["id"])


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_time_window(emu):
    day = datetime.now(UTC).replace(hour=8, minute=0, second=0, microsecond=0)
    emu.add_post("ROCm early", created_at=day - timedelta(days=3))
    late = emu.add_post("ROCm late", created_at=iso(day - timedelta(days=2)))
    start = iso(day - timedelta(days=2, hours=8))
    response = client(emu).search_recent_tweets("rocm", start_time=start)
    assert [tweet.id for tweet in response.data] == [int(late["id"])]
    assert late["created_at"] == iso(day - timedelta(days=2)).replace("Z", ".000Z")


def invalid(response, parameter: str) -> str:
    """The message of X's invalid-request problem about `parameter` (asserting the shape)."""
    assert response.status_code == 400
    body = response.json()
    assert (body["title"], body["type"]) == ("Invalid Request", f"{PROBLEMS}/invalid-request")
    assert body["detail"] == "One or more parameters to your request was invalid."
    [error] = body["errors"]
    assert list(error["parameters"]) == [parameter]
    return error["message"]


def test_a_since_id_older_than_7_days_is_refused_like_x_does(emu):
    week_ago = datetime.now(UTC) - timedelta(days=7, hours=1)
    stale = emu.add_post("ROCm old", created_at=week_ago, post_id=POST_ID_START + 10)
    fresh = emu.add_post("ROCm new", post_id=POST_ID_START + 100)
    message = invalid(raw_search(emu, query="rocm", since_id=stale["id"]), "since_id")
    assert message.startswith(f"Invalid 'since_id':'{stale['id']}'. 'since_id' must be a tweet id")
    with pytest.raises(tweepy.BadRequest):
        client(emu).search_recent_tweets("rocm", since_id=stale["id"])
    # an id we do not hold takes the time of the stored post before it, else its snowflake time
    assert raw_search(emu, query="rocm", since_id=str(POST_ID_START + 50)).status_code == 400
    assert raw_search(emu, query="rocm", since_id="1").status_code == 400
    assert raw_search(emu, query="rocm", since_id=fresh["id"]).status_code == 200


def test_a_start_time_older_than_7_days_is_refused(emu):
    emu.add_post("ROCm")
    stale = iso(datetime.now(UTC) - timedelta(days=7, minutes=5))
    message = invalid(raw_search(emu, query="rocm", start_time=stale), "start_time")
    assert message.startswith(f"Invalid 'start_time':'{stale}'. 'start_time' must be on or after")
    recent = iso(datetime.now(UTC) - timedelta(days=6, hours=23))
    assert raw_search(emu, query="rocm", start_time=recent).status_code == 200


def test_since_id_and_start_time_do_not_mix(emu):
    post = emu.add_post("ROCm")
    recent = iso(datetime.now(UTC) - timedelta(days=1))
    response = raw_search(emu, query="rocm", since_id=post["id"], start_time=recent)
    assert "in conjunction with 'start_time'" in invalid(response, "since_id")


def test_bulk_generate_is_fast_and_searchable(emu):
    started = time.monotonic()
    emu.bulk_generate(20_000, seed=1)
    assert time.monotonic() - started < 3
    assert emu.post_count == 20_000
    response = raw_search(emu, query="rocm -is:retweet", max_results=100).json()
    assert response["meta"]["result_count"] == 100 and "next_token" in response["meta"]
    complaints = raw_search(emu, query='"hangs again"', max_results=100).json()
    assert complaints["meta"]["result_count"] > 0
    issues = raw_search(emu, query="url:github.com/ROCm", max_results=10).json()
    assert issues["meta"]["result_count"] == 10


def test_cli_prints_ready_and_serves_until_sigterm():
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.x_api", "--port", "0", "--posts", "500"],
        cwd=PROJECT_ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline().strip()
        assert line.startswith("READY http://127.0.0.1:")
        url = line.split()[1]
        response = requests.get(
            url + "/2/tweets/search/recent",
            params={"query": "rocm"},
            headers={"Authorization": f"Bearer {TOKEN}"},
            timeout=10,
        )
        assert response.status_code == 200 and response.json()["meta"]["result_count"] == 10
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
