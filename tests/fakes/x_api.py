"""An emulator of the X API v2 recent search, served over HTTP to the real tweepy client.

It behaves like api.twitter.com/2 where our code can tell the difference: the
``GET /2/tweets/search/recent`` endpoint with the query language subset we use, newest-first
paging with opaque ``next_token``s, ``since_id``/``until_id``/``start_time``/``end_time``,
``tweet.fields``/``user.fields`` selection (only the requested fields plus the defaults),
``expansions=author_id`` filling ``includes.users``, the ``x-rate-limit-*`` headers with the
429 that follows an exhausted window, bearer-token auth and injected faults. Stdlib only.

Like the real endpoint it answers 400 (X's ``invalid-request`` problem) for a ``start_time``
older than 7 days, for a ``since_id`` whose post is older than 7 days (the post's time is the
stored post's, or for an id we do not hold, the nearest older stored post's, else the id's
snowflake time), and for ``since_id``/``until_id`` together with ``start_time``/``end_time``.
The messages follow X's wording as closely as we know it; clients should rely on the shape.

    with XEmulator(bearer_token="t") as emu:
        emu.add_post("MI300X hangs again on ROCm 6.4", username="gpu_dev")
        client = tweepy.Client(bearer_token="t")  # route https://api.twitter.com to emu.url

As on the real service, URLs in a post's text are served as ``https://t.co/...`` links; the
original URL is in ``entities.urls[].expanded_url``. Keyword matching ignores URLs (use
``url:``). Results are ordered by id, newest first; ids increase with creation.

CLI: ``python -m tests.fakes.x_api --port 8766 --posts 50000`` prints ``READY <url>`` and
serves until SIGTERM or SIGINT.
"""

from __future__ import annotations

import argparse
import base64
import bisect
import hashlib
import json
import random
import re
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from http import HTTPStatus
from urllib.parse import parse_qsl, urlsplit

from tests.fakes.http_emulator import HttpEmulator, Reply

POST_ID_START = 1_860_000_000_000_000_000
USER_ID_START = 1_580_000_000_000_000_000
RATE_LIMIT = 450
WINDOW_SECONDS = 15 * 60
RECENT_DAYS = 7
SNOWFLAKE_EPOCH_MS = 1288834974657
MAX_QUERY_LENGTH = 512
SEARCH_PATH = "/2/tweets/search/recent"
PROBLEMS = "https://api.twitter.com/2/problems"
INVALID_REQUEST = f"{PROBLEMS}/invalid-request"

TWEET_FIELDS = frozenset(
    [
        "article",
        "attachments",
        "author_id",
        "card_uri",
        "community_id",
        "context_annotations",
        "conversation_id",
        "created_at",
        "display_text_range",
        "edit_controls",
        "edit_history_tweet_ids",
        "entities",
        "geo",
        "id",
        "in_reply_to_user_id",
        "lang",
        "media_metadata",
        "non_public_metrics",
        "note_tweet",
        "organic_metrics",
        "possibly_sensitive",
        "promoted_metrics",
        "public_metrics",
        "referenced_tweets",
        "reply_settings",
        "scopes",
        "source",
        "text",
        "withheld",
    ]
)
USER_FIELDS = frozenset(
    [
        "affiliation",
        "connection_status",
        "created_at",
        "description",
        "entities",
        "id",
        "is_identity_verified",
        "location",
        "most_recent_tweet_id",
        "name",
        "parody",
        "pinned_tweet_id",
        "profile_banner_url",
        "profile_image_url",
        "protected",
        "public_metrics",
        "receives_your_dm",
        "subscription",
        "subscription_type",
        "url",
        "username",
        "verified",
        "verified_followers_count",
        "verified_type",
        "withheld",
    ]
)
EXPANSIONS = frozenset(
    [
        "attachments.media_keys",
        "attachments.media_source_tweet",
        "attachments.poll_ids",
        "author_id",
        "edit_history_tweet_ids",
        "entities.mentions.username",
        "entities.note.mentions.username",
        "geo.place_id",
        "in_reply_to_user_id",
        "referenced_tweets.id",
        "referenced_tweets.id.attachments.media_keys",
        "referenced_tweets.id.author_id",
    ]
)
SEARCH_PARAMS = frozenset(
    [
        "query",
        "start_time",
        "end_time",
        "since_id",
        "until_id",
        "max_results",
        "next_token",
        "pagination_token",
        "sort_order",
        "expansions",
        "tweet.fields",
        "user.fields",
        "media.fields",
        "place.fields",
        "poll.fields",
    ]
)
_PARAM_LIST = ",".join(sorted(SEARCH_PARAMS))
DEFAULT_TWEET_FIELDS = ("id", "text", "edit_history_tweet_ids")
DEFAULT_USER_FIELDS = ("id", "name", "username")
_USER_EXPANSIONS = frozenset(
    ("author_id", "entities.mentions.username", "in_reply_to_user_id")
    + ("referenced_tweets.id.author_id",)
)


# ---------------------------------------------------------------- time


def iso_ms(ms: int) -> str:
    seconds, millis = divmod(int(ms), 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{millis:03d}Z"


def to_ms(value) -> int | None:
    """Epoch milliseconds from None, an int/float epoch (seconds), ISO 8601 text or datetime."""
    if value is None:
        return None
    if isinstance(value, int | float):
        return int(value * 1000)
    if isinstance(value, str):
        value = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return int(round(value.timestamp() * 1000))


def _now_ms() -> int:
    return int(time.time() * 1000)


def _dumps(obj) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()


# ---------------------------------------------------------------- stored records

_URL = re.compile(r"https?://[^\s<>\"]+[^\s<>\".,;:!?)\]'’]")
_HASHTAG = re.compile(r"(?<![\w&])#(\w*[^\W\d]\w*)")
_MENTION = re.compile(r"(?<![\w@])@(\w{1,15})\b")
_WORD = re.compile(r"\w+")
_TCO_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _tco(post_id: int, index: int) -> str:
    digest = int.from_bytes(hashlib.blake2b(f"{post_id}:{index}".encode(), digest_size=8).digest())
    code = []
    for _ in range(10):
        digest, rem = divmod(digest, 62)
        code.append(_TCO_ALPHABET[rem])
    return "https://t.co/" + "".join(code)


def _display_url(url: str) -> str:
    shown = re.sub(r"^https?://(www\.)?", "", url)
    return shown if len(shown) <= 26 else shown[:25] + "…"


class _User:
    __slots__ = (
        "id",
        "username",
        "name",
        "followers",
        "following",
        "tweets",
        "listed",
        "created",
        "description",
        "verified",
        "protected",
    )

    def __init__(self, user_id: int, username: str, name: str, created: int):
        self.id, self.username, self.name, self.created = user_id, username, name, created
        self.followers = self.following = self.tweets = self.listed = 0
        self.description, self.verified, self.protected = "", False, False

    def render(self, fields: frozenset | None = None) -> dict:
        data = {"id": str(self.id), "name": self.name, "username": self.username}
        optional = {
            "created_at": lambda: iso_ms(self.created),
            "description": lambda: self.description,
            "public_metrics": lambda: {
                "followers_count": self.followers,
                "following_count": self.following,
                "tweet_count": self.tweets,
                "listed_count": self.listed,
            },
            "verified": lambda: self.verified,
            "verified_type": lambda: "blue" if self.verified else "none",
            "protected": lambda: self.protected,
            "profile_image_url": lambda: (
                f"https://pbs.twimg.com/profile_images/{self.id}/avatar_normal.jpg"
            ),
        }
        for key, build in optional.items():
            if fields is None or key in fields:
                data[key] = build()
        return data


class _Post:
    __slots__ = (
        "id",
        "text",
        "author",
        "created",
        "lang",
        "conversation_id",
        "refs",
        "reply_user",
        "urls",
        "hashtags",
        "mentions",
        "metrics",
        "_index",
    )

    def __init__(self, post_id: int, text: str, author: _User, created: int, lang: str):
        self.id, self.text, self.author, self.created, self.lang = (
            post_id,
            text,
            author,
            created,
            lang,
        )
        self.conversation_id = post_id
        self.refs: tuple = ()
        self.reply_user: _User | None = None
        self.urls: tuple = ()
        self.hashtags: tuple = ()
        self.mentions: tuple = ()
        self.metrics = (0, 0, 0, 0, 0, 0)
        self._index = None

    def ref(self, kind: str) -> int | None:
        for ref_kind, ref_id in self.refs:
            if ref_kind == kind:
                return ref_id
        return None

    def index(self) -> tuple:
        """(word set, ' joined words ', lower text without URLs, hashtags, mentions, urls)."""
        if self._index is None:
            plain = self.text
            for start, end, *_ in reversed(self.urls):
                plain = plain[:start] + " " + plain[end:]
            plain = plain.lower()
            words = _WORD.findall(plain)
            self._index = (
                frozenset(words),
                " " + " ".join(words) + " ",
                plain,
                frozenset(tag.lower() for _, _, tag in self.hashtags),
                frozenset(name.lower() for _, _, name, _ in self.mentions),
                tuple(expanded.lower() for _, _, _, expanded, _ in self.urls),
            )
        return self._index


# ---------------------------------------------------------------- query language


class QueryError(ValueError):
    """A query the real API would refuse with 400."""


_OPERATORS = {
    "from": None,
    "to": None,
    "lang": None,
    "url": None,
    "conversation_id": None,
    "retweets_of": None,
    "is": frozenset(("retweet", "reply", "quote", "verified", "nullcast")),
    "has": frozenset(("links", "mentions", "hashtags", "media", "images", "videos", "geo")),
}
_NOT_STANDALONE = frozenset(("is", "has", "lang"))
_OPERATOR_ATOM = re.compile(r"^([a-z_]+):(.*)$", re.DOTALL)


def _lex(query: str) -> list[tuple]:
    tokens, i, n = [], 0, len(query)
    while i < n:
        char = query[i]
        if char.isspace():
            i += 1
            continue
        start, negated = i, False
        if char == "-" and i + 1 < n and not query[i + 1].isspace():
            negated, i = True, i + 1
            char = query[i]
        if char == "(":
            tokens.append(("(", negated, None, start))
            i += 1
        elif char == ")":
            if negated:
                raise QueryError(f"Unexpected '-' before ')' (at position {start + 1})")
            tokens.append((")", False, None, start))
            i += 1
        elif char == '"':
            end = query.find('"', i + 1)
            if end < 0:
                raise QueryError(f"Unterminated quoted phrase (at position {start + 1})")
            tokens.append(("phrase", negated, query[i + 1 : end], start))
            i = end + 1
        else:
            end = i
            while end < n and not query[end].isspace() and query[end] not in '()"':
                end += 1
            atom = query[i:end]
            if atom.endswith(":") and end < n and query[end] == '"':
                close = query.find('"', end + 1)
                if close < 0:
                    raise QueryError(f"Unterminated quoted phrase (at position {end + 1})")
                atom += query[end + 1 : close]
                end = close + 1
            kind = "OR" if atom == "OR" and not negated else "atom"
            tokens.append((kind, negated, atom, start))
            i = end
    return tokens


class _Parser:
    """Recursive descent: OR binds looser than the implicit AND, as on X."""

    def __init__(self, query: str):
        self.tokens = _lex(query)
        self.pos = 0

    def parse(self):
        if not self.tokens:
            raise QueryError("The query is empty")
        node = self._or()
        if self.pos < len(self.tokens):
            raise QueryError(f"Unexpected ')' (at position {self.tokens[self.pos][3] + 1})")
        return node

    def _peek(self):
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def _or(self):
        parts = [self._and()]
        while (tok := self._peek()) is not None and tok[0] == "OR":
            self.pos += 1
            parts.append(self._and())
        return parts[0] if len(parts) == 1 else ("or", tuple(parts))

    def _and(self):
        parts = []
        while (tok := self._peek()) is not None and tok[0] not in ("OR", ")"):
            parts.append(self._unary())
        if not parts:
            tok = self._peek()
            where = tok[3] + 1 if tok else sum(len(t[2] or " ") for t in self.tokens) + 1
            raise QueryError(f"Ambiguous use of or, or an empty group (at position {where})")
        return parts[0] if len(parts) == 1 else ("and", tuple(parts))

    def _unary(self):
        kind, negated, value, start = self.tokens[self.pos]
        self.pos += 1
        if kind == "(":
            node = self._or()
            tok = self._peek()
            if tok is None or tok[0] != ")":
                raise QueryError(f"Unbalanced parentheses (at position {start + 1})")
            self.pos += 1
        elif kind == "phrase":
            node = ("phrase", tuple(_WORD.findall(value.lower())), value.lower())
        else:
            node = _atom(value, start)
        return ("not", node) if negated else node


def _atom(atom: str, start: int):
    match = _OPERATOR_ATOM.match(atom)
    if match and not match.group(2).startswith("//"):
        name, value = match.group(1), match.group(2)
        if name not in _OPERATORS:
            raise QueryError(f"Reference to invalid operator '{name}' (at position {start + 1})")
        allowed = _OPERATORS[name]
        if not value or (allowed is not None and value.lower() not in allowed):
            raise QueryError(f"Reference to invalid operator '{atom}' (at position {start + 1})")
        return ("op", name, value.lower())
    if len(atom) > 1 and atom[0] == "#":
        return ("tag", atom[1:].lower())
    if len(atom) > 1 and atom[0] == "@":
        return ("mention", atom[1:].lower())
    words = tuple(_WORD.findall(atom.lower()))
    return ("phrase", words, atom.lower()) if len(words) != 1 else ("word", words[0])


def _standalone(node) -> bool:
    kind = node[0]
    if kind == "and":
        return any(_standalone(child) for child in node[1])
    if kind == "or":
        return all(_standalone(child) for child in node[1])
    if kind == "not":
        return False
    return not (kind == "op" and node[1] in _NOT_STANDALONE)


def _has_positive(node) -> bool:
    kind = node[0]
    if kind in ("and", "or"):
        return any(_has_positive(child) for child in node[1])
    return kind != "not"


def _cjk(text: str) -> bool:
    return any(ord(char) >= 0x2E80 for char in text)


def compile_query(query: str, users: Callable[[str], _User | None]) -> Callable[[_Post], bool]:
    """A predicate for posts, or QueryError with the message the API would give."""
    if not query.strip():
        raise QueryError("The `query` query parameter can not be empty")
    node = _Parser(query).parse()
    if not _has_positive(node):
        raise QueryError("Rules must contain a non-negation term (at position 1)")
    if not _standalone(node):
        raise QueryError(
            "Rules must contain at least one standalone operator or keyword; "
            "is:, has: and lang: cannot be used alone"
        )
    return _build(node, users)


def _build(node, users):
    kind = node[0]
    if kind == "and":
        parts = [_build(child, users) for child in node[1]]
        return lambda post: all(part(post) for part in parts)
    if kind == "or":
        parts = [_build(child, users) for child in node[1]]
        return lambda post: any(part(post) for part in parts)
    if kind == "not":
        inner = _build(node[1], users)
        return lambda post: not inner(post)
    if kind == "word":
        word = node[1]
        if _cjk(word):
            return lambda post: word in post.index()[2]
        return lambda post: word in post.index()[0]
    if kind == "phrase":
        words, raw = node[1], node[2]
        if not words:
            return lambda post: False
        if _cjk(raw):
            return lambda post: raw in post.index()[2]
        needle = " " + " ".join(words) + " "
        return lambda post: needle in post.index()[1]
    if kind == "tag":
        tag = node[1]
        return lambda post: tag in post.index()[3]
    if kind == "mention":
        name = node[1]
        return lambda post: name in post.index()[4]
    return _build_operator(node[1], node[2], users)


def _user_matcher(value: str, users) -> Callable[[_User | None], bool]:
    found = users(value)
    if found is None and value.isdigit():
        return lambda user: user is not None and user.id == int(value)
    if found is None:
        return lambda user: False
    return lambda user: user is found


def _build_operator(name: str, value: str, users):
    if name == "from":
        is_user = _user_matcher(value, users)
        return lambda post: is_user(post.author)
    if name == "to":
        is_user = _user_matcher(value, users)
        return lambda post: post.ref("replied_to") is not None and is_user(post.reply_user)
    if name == "lang":
        return lambda post: post.lang == value
    if name == "url":
        return lambda post: any(value in url for url in post.index()[5])
    if name == "conversation_id":
        return lambda post: str(post.conversation_id) == value
    if name == "retweets_of":
        is_user = _user_matcher(value, users)
        return lambda post: post.ref("retweeted") is not None and is_user(post.reply_user)
    checks = {
        ("is", "retweet"): lambda post: post.ref("retweeted") is not None,
        ("is", "reply"): lambda post: post.ref("replied_to") is not None,
        ("is", "quote"): lambda post: post.ref("quoted") is not None,
        ("is", "verified"): lambda post: post.author.verified,
        ("is", "nullcast"): lambda post: False,
        ("has", "links"): lambda post: bool(post.urls),
        ("has", "mentions"): lambda post: bool(post.mentions),
        ("has", "hashtags"): lambda post: bool(post.hashtags),
    }
    return checks.get((name, value), lambda post: False)


# ---------------------------------------------------------------- data store


class _Store:
    """Users, posts (ascending by id), ids and the emulated clock. Callers hold the lock."""

    def __init__(self):
        self.users: dict[str, _User] = {}
        self.users_by_id: dict[int, _User] = {}
        self.posts: list[_Post] = []
        self.by_id: dict[int, _Post] = {}
        self.version = 0
        self._next_post_id = POST_ID_START
        self._next_user_id = USER_ID_START
        self._clock = 0

    def tick(self) -> int:
        """A fresh time in ms, later than every time handed out or set so far."""
        self._clock = max(self._clock + 1, _now_ms())
        return self._clock

    def observe(self, ms: int) -> None:
        self._clock = max(self._clock, ms)

    def find_user(self, name_or_id: str) -> _User | None:
        found = self.users.get(name_or_id.lower())
        if found is None and name_or_id.isdigit():
            found = self.users_by_id.get(int(name_or_id))
        return found

    def add_user(self, username: str, name=None, followers=0, user_id=None, **fields) -> _User:
        if not re.fullmatch(r"\w{1,15}", username):
            raise ValueError(f"not a valid X username: {username!r}")
        if username.lower() in self.users:
            raise ValueError(f"user {username!r} already exists")
        if user_id is None:
            user_id = self._next_user_id
        user_id = int(user_id)
        if user_id in self.users_by_id:
            raise ValueError(f"user id {user_id} already exists")
        self._next_user_id = max(self._next_user_id, user_id + 1)
        created = to_ms(fields.pop("created_at", None)) or to_ms("2019-03-01T12:00:00Z")
        user = _User(user_id, username, name or username.replace("_", " ").title(), created)
        user.followers = int(followers)
        for key in ("following", "tweets", "listed", "description", "verified", "protected"):
            if key in fields:
                setattr(user, key, fields.pop(key))
        if fields:
            raise TypeError(f"unknown user fields: {sorted(fields)}")
        self.users[username.lower()] = user
        self.users_by_id[user_id] = user
        self.version += 1
        return user

    def user(self, username: str) -> _User:
        return self.users.get(username.lower()) or self.add_user(username)

    def id_time_ms(self, post_id: int) -> int:
        """When a post id was made: its stored post's time, else the nearest older stored
        post's (ids increase with time), else the id's snowflake timestamp."""
        found = self.by_id.get(post_id)
        if found is not None:
            return found.created
        position = bisect.bisect_right(self.posts, post_id, key=lambda post: post.id)
        if position:
            return self.posts[position - 1].created
        return (post_id >> 22) + SNOWFLAKE_EPOCH_MS

    def claim_post_id(self, post_id) -> int:
        if post_id is None:
            post_id = self._next_post_id
        post_id = int(post_id)
        if post_id in self.by_id:
            raise ValueError(f"post {post_id} already exists")
        self._next_post_id = max(self._next_post_id, post_id + 1)
        return post_id

    def add_post(self, post: _Post, urls: Iterable[str] = (), refs: Sequence = ()) -> _Post:
        text = post.text
        for url in urls:
            if url not in text:
                text = f"{text} {url}" if text else url
        post.text, post.urls = self._link_urls(post.id, text)
        post.hashtags = tuple(
            (m.start(), m.end(), m.group(1)) for m in _HASHTAG.finditer(post.text)
        )
        post.mentions = tuple(
            (m.start(), m.end(), m.group(1), self.users.get(m.group(1).lower()))
            for m in _MENTION.finditer(post.text)
        )
        post.refs = tuple(refs)
        for kind, ref_id in post.refs:
            target = self.by_id.get(ref_id)
            if kind == "replied_to":
                post.conversation_id = target.conversation_id if target else ref_id
                post.reply_user = target.author if target else None
            elif kind == "retweeted" and target is not None:
                post.reply_user = target.author  # for retweets_of:
        post.author.tweets += 1
        post.index()
        self.observe(post.created)
        if not self.posts or post.id > self.posts[-1].id:
            self.posts.append(post)
        else:
            self.posts.append(post)
            self.posts.sort(key=lambda p: p.id)
        self.by_id[post.id] = post
        self.version += 1
        return post

    @staticmethod
    def _link_urls(post_id: int, text: str) -> tuple[str, tuple]:
        """Replace each URL with a t.co link, as X serves text; keep the entity spans."""
        pieces, entities, last, shift = [], [], 0, 0
        for index, match in enumerate(_URL.finditer(text)):
            expanded = match.group()
            short = _tco(post_id, index)
            pieces.append(text[last : match.start()])
            start = match.start() + shift
            entities.append((start, start + len(short), short, expanded, _display_url(expanded)))
            pieces.append(short)
            shift += len(short) - len(expanded)
            last = match.end()
        if not entities:
            return text, ()
        pieces.append(text[last:])
        return "".join(pieces), tuple(entities)

    # JSON shapes
    def post_dict(self, post: _Post, fields: frozenset | None = None) -> dict:
        data = {"id": str(post.id), "text": post.text, "edit_history_tweet_ids": [str(post.id)]}

        def want(key):
            return fields is None or key in fields

        if want("author_id"):
            data["author_id"] = str(post.author.id)
        if want("created_at"):
            data["created_at"] = iso_ms(post.created)
        if want("lang"):
            data["lang"] = post.lang
        if want("conversation_id"):
            data["conversation_id"] = str(post.conversation_id)
        if want("public_metrics"):
            names = ("retweet", "reply", "like", "quote", "bookmark", "impression")
            data["public_metrics"] = {f"{n}_count": v for n, v in zip(names, post.metrics)}
        if want("entities"):
            entities = self._entities(post)
            if entities:
                data["entities"] = entities
        if want("referenced_tweets") and post.refs:
            data["referenced_tweets"] = [{"type": k, "id": str(i)} for k, i in post.refs]
        if want("in_reply_to_user_id") and post.ref("replied_to") and post.reply_user:
            data["in_reply_to_user_id"] = str(post.reply_user.id)
        if want("possibly_sensitive"):
            data["possibly_sensitive"] = False
        if want("reply_settings"):
            data["reply_settings"] = "everyone"
        if want("edit_controls"):
            data["edit_controls"] = {
                "edits_remaining": 5,
                "is_edit_eligible": False,
                "editable_until": iso_ms(post.created + 3_600_000),
            }
        return data

    @staticmethod
    def _entities(post: _Post) -> dict:
        entities = {}
        if post.urls:
            entities["urls"] = [
                {"start": s, "end": e, "url": u, "expanded_url": x, "display_url": d}
                for s, e, u, x, d in post.urls
            ]
        if post.hashtags:
            entities["hashtags"] = [{"start": s, "end": e, "tag": t} for s, e, t in post.hashtags]
        if post.mentions:
            entities["mentions"] = [
                {"start": s, "end": e, "username": name, **({"id": str(u.id)} if u else {})}
                for s, e, name, u in post.mentions
            ]
        return entities


# ---------------------------------------------------------------- bulk data

_GPUS = (
    "MI300X",
    "MI300X",
    "MI250X",
    "MI210",
    "MI325X",
    "MI355X",
    "RX 7900 XTX",
    "Radeon PRO W7900",
    "RX 9070 XT",
    "Strix Halo",
)
_VERSIONS = ("5.7", "6.0", "6.1", "6.2", "6.3", "6.4", "6.4.1", "7.0")
_LIBS = (
    "PyTorch",
    "vLLM",
    "hipBLASLt",
    "rocBLAS",
    "MIOpen",
    "RCCL",
    "llama.cpp",
    "JAX",
    "Triton",
    "Composable Kernel",
    "SGLang",
)
_ISSUE_REPOS = ("ROCm/ROCm",) * 6 + ("ROCm/hipBLASLt", "ROCm/rocBLAS", "ROCm/MIOpen")
_TEMPLATES = {
    "complaint": (
        "{kw} sucks",
        "{gpu} hangs again on {kw} {ver}",
        "{lib} segfaults on {gpu} with {kw} {ver}. why is this so hard",
        "spent all day fighting {kw} {ver} installs on Ubuntu 24.04, still no luck with {gpu}",
        "{kw} {ver} broke my {lib} build. hipErrorNoBinaryForGpu on {gpu} again",
        "Is there any {kw} release that doesn't regress {lib} on {gpu}? asking for a friend",
        "{kw} docs say the {gpu} is supported but rocminfo disagrees",
        "HIP out of memory on {gpu} with plenty free?? {kw} {ver} please",
        "third kernel panic this week, {gpu} + {kw} {ver}. going back to 6.1",
    ),
    "praise": (
        "{kw} {ver} finally makes {lib} fly on {gpu}. impressed",
        "Ran {lib} on {gpu} with {kw} {ver}: {n} tokens/s. not bad at all",
        "Big thanks to the {kw} team, {lib} just works now on {gpu}",
        "{kw} has come a long way. {gpu} + {lib} is a real option now #{kwtag}",
    ),
    "question": (
        "Does {kw} {ver} support the {gpu} officially?",
        "Anyone running {lib} with {kw} on {gpu}? What flags do you use?",
        "How do I install {kw} {ver} on Fedora for my {gpu}?",
        "Which {kw} version should I pin for {lib} on {gpu}?",
    ),
    "issue": (
        "Filed a bug: {gpu} hang with {kw} {ver} {url}",
        "This {kw} issue is biting us on {gpu}: {url}",
        "Anyone else seeing this? {url} #{kwtag} #AMD",
        "{kw} {ver} + {lib} regression tracked here {url}",
    ),
    "news": (
        "AMD ships {kw} {ver} with {lib} improvements for {gpu}",
        "{kw} {ver} release notes are out: better {lib} support on {gpu} #{kwtag}",
    ),
    "offtopic": (
        "CUDA 12.6 upgrade went smoothly on the H100 cluster",
        "rock climbing this weekend, who's in?",
        "Is the new RTX 5090 worth it for local LLMs?",
        "Benchmarks of {lib} on TPU v5e look great",
        "Weekend project: porting my shader toy to Vulkan",
    ),
}
_FOREIGN = (
    ("ja", "{kw} {ver} で {gpu} がまたハングした"),
    ("de", "{kw} {ver} läuft endlich stabil auf der {gpu}"),
    ("es", "¿Alguien usa {lib} con {kw} en la {gpu}?"),
    ("fr", "{kw} {ver} plante encore sur la {gpu}"),
    ("zh", "{kw} {ver} 在 {gpu} 上又卡住了"),
)
_KINDS = (
    ("complaint", 30),
    ("praise", 12),
    ("question", 17),
    ("issue", 8),
    ("news", 4),
    ("foreign", 7),
    ("retweet", 9),
    ("reply", 6),
    ("offtopic", 7),
)
_HANDLE_A = ("gpu", "hpc", "ml", "dev", "llm", "kernel", "tensor", "rocm", "linux", "amd")
_HANDLE_B = ("nerd", "guy", "lab", "ops", "hacker", "fan", "dad", "wizard", "cat", "bot")


def _issue_url(rng: random.Random) -> str:
    return f"https://github.com/{rng.choice(_ISSUE_REPOS)}/issues/{rng.randrange(1500, 5300)}"


class _BulkGenerator:
    def __init__(self, store: _Store, seed: int, hints: Sequence[str]):
        self.store, self.rng = store, random.Random(seed)
        self.hints = tuple(hints) or ("ROCm",)
        self.kind_names, self.kind_weights = zip(*_KINDS)

    def run(self, n: int) -> None:
        rng, store = self.rng, self.store
        users = self._users(max(5, min(2000, n // 20 + 1)))
        now = _now_ms()
        start = max(now - RECENT_DAYS * 86_400_000 + 3_600_000, store.tick())
        step = max(1, (max(now, start + n) - start) // max(n, 1))
        kinds = rng.choices(self.kind_names, self.kind_weights, k=n)
        recent: list[_Post] = [p for p in store.posts[-200:] if not p.refs]
        for k in range(n):
            created = start + k * step + (rng.randrange(step) if step > 1 else 0)
            author = users[int(rng.paretovariate(1.1)) % len(users)]
            text, lang, refs = self._text(kinds[k], recent)
            post = _Post(store.claim_post_id(None), text, author, created, lang)
            post.metrics = self._metrics()
            store.add_post(post, refs=refs)
            if not refs and kinds[k] != "offtopic":
                recent.append(post)
                if len(recent) > 400:
                    del recent[:200]

    def _users(self, count: int) -> list[_User]:
        rng, users = self.rng, []
        for index in range(count):
            name = f"{rng.choice(_HANDLE_A)}{rng.choice(_HANDLE_B)}{index % 1000}"
            user = self.store.users.get(name.lower())
            if user is None:
                user = self.store.add_user(name, followers=int(rng.paretovariate(0.9) * 40))
                user.following = rng.randrange(20, 2000)
                user.tweets = rng.randrange(10, 30000)
                user.listed = rng.randrange(0, 40)
                user.created = to_ms("2010-01-01T00:00:00Z") + rng.randrange(5_000) * 86_400_000
                user.description = f"{rng.choice(_LIBS)} on {rng.choice(_GPUS)}. opinions mine."
            users.append(user)
        return users

    def _fill(self, template: str) -> str:
        rng = self.rng
        kw = rng.choice(self.hints)
        values = {
            "kw": kw,
            "kwtag": re.sub(r"\W", "", kw) or "ROCm",
            "gpu": rng.choice(_GPUS),
            "ver": rng.choice(_VERSIONS),
            "lib": rng.choice(_LIBS),
            "n": rng.randrange(20, 4000),
            "url": _issue_url(rng),
        }
        return template.format(**values)

    def _text(self, kind: str, recent: list[_Post]) -> tuple[str, str, tuple]:
        rng = self.rng
        if kind in ("retweet", "reply") and recent:
            target = recent[rng.randrange(len(recent))]
            if kind == "retweet":
                text = f"RT @{target.author.username}: {target.text}"
                return text[:280], target.lang, (("retweeted", target.id),)
            reply = self._fill(rng.choice(_TEMPLATES["complaint"] + _TEMPLATES["praise"]))
            return (
                f"@{target.author.username} same here. {reply}",
                "en",
                (("replied_to", target.id),),
            )
        if kind == "foreign":
            lang, template = rng.choice(_FOREIGN)
            return self._fill(template), lang, ()
        templates = _TEMPLATES.get(kind, _TEMPLATES["complaint"])
        return self._fill(rng.choice(templates)), "en", ()

    def _metrics(self) -> tuple:
        rng = self.rng
        likes = int(rng.paretovariate(1.3)) - 1
        impressions = likes * rng.randrange(20, 90) + rng.randrange(5, 400)
        return (likes // 4, likes // 6, likes, likes // 12, likes // 8, impressions)


# ---------------------------------------------------------------- rate limit and faults


class _RateLimit:
    def __init__(self, limit: int):
        self.limit = limit
        self.reset()

    def reset(self) -> None:
        self.remaining = self.limit
        self.reset_at = int(time.time()) + WINDOW_SECONDS

    def set(self, remaining: int, reset_at: int | None) -> None:
        self.remaining = max(0, int(remaining))
        self.reset_at = int(reset_at) if reset_at is not None else int(time.time()) + WINDOW_SECONDS

    def roll_window(self) -> None:
        if time.time() >= self.reset_at:
            self.reset()

    def consume(self) -> None:
        self.remaining = max(0, self.remaining - 1)

    def headers(self, remaining: int | None = None, reset_at: int | None = None) -> list:
        return [
            ("x-rate-limit-limit", str(self.limit)),
            ("x-rate-limit-remaining", str(self.remaining if remaining is None else remaining)),
            ("x-rate-limit-reset", str(self.reset_at if reset_at is None else reset_at)),
        ]


class _Fault:
    __slots__ = ("status", "skip", "times", "reset_in", "body")

    def __init__(self, status, skip, times, reset_in, body):
        self.status, self.skip, self.times, self.reset_in, self.body = (
            status,
            skip,
            times,
            reset_in,
            body,
        )


class _Faults:
    def __init__(self):
        self.pending: list[_Fault] = []

    def take(self) -> _Fault | None:
        """Count this request against every fault; return the one that fires."""
        fired = None
        for fault in self.pending:
            if fault.skip > 0:
                fault.skip -= 1
            elif fired is None:
                fired = fault
                if fault.times is not None:
                    fault.times -= 1
        self.pending = [f for f in self.pending if f.times is None or f.times > 0]
        return fired


def problem(status: int, title: str | None = None, detail: str | None = None) -> dict:
    title = title or HTTPStatus(status).phrase
    return {"title": title, "detail": detail or title, "type": "about:blank", "status": status}


_UNAUTHORIZED_BODY = {
    "title": "Unauthorized",
    "type": "about:blank",
    "status": 401,
    "detail": "Unauthorized",
}
_NOT_FOUND_BODY = {"errors": [{"message": "Sorry, that page does not exist", "code": 34}]}


# ---------------------------------------------------------------- HTTP plumbing


class _HttpError(Exception):
    def __init__(self, status: int, body: dict):
        super().__init__(body)
        self.status, self.body = status, body


def invalid_request(parameter: str, value, message: str) -> _HttpError:
    values = value if isinstance(value, list) else [value]
    body = {
        "errors": [{"parameters": {parameter: values}, "message": message}],
        "title": "Invalid Request",
        "detail": "One or more parameters to your request was invalid.",
        "type": INVALID_REQUEST,
    }
    return _HttpError(400, body)


def _id_param(query: dict, name: str) -> int | None:
    value = query.get(name)
    if value is None:
        return None
    if not value.isdigit() or len(value) > 19:
        raise invalid_request(
            name, value, f"The `{name}` query parameter value [{value}] is not valid"
        )
    return int(value)


def _time_param(query: dict, name: str) -> int | None:
    value = query.get(name)
    if value is None:
        return None
    try:
        if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)", value):
            raise ValueError(value)
        return to_ms(value)
    except ValueError:
        message = f"Invalid '{name}':'{value}'. '{name}' must be a valid RFC 3339 date-time"
        raise invalid_request(name, value, message) from None


def _list_param(query: dict, name: str, allowed: frozenset | None) -> frozenset:
    raw = query.get(name)
    if not raw:
        return frozenset()
    values = frozenset(v for v in raw.split(",") if v)
    bad = sorted(values - allowed) if allowed is not None else []
    if bad:
        message = (
            f"The `{name}` query parameter value [{bad[0]}] is not one of "
            f"[{','.join(sorted(allowed))}]"
        )
        raise invalid_request(name, bad[0], message)
    return values


class _Search:
    """GET /2/tweets/search/recent over the store. Callers hold the lock."""

    def __init__(self, store: _Store):
        self.store = store
        self._compiled: dict[str, Callable] = {}
        self._results: dict[tuple, tuple[int, list[_Post], list[int]]] = {}

    def __call__(self, query: dict) -> dict:
        for name in query:
            if name not in SEARCH_PARAMS:
                raise invalid_request(
                    name,
                    query[name],
                    f"The query parameter [{name}] is not one of [{_PARAM_LIST}]",
                )
        text = query.get("query")
        if not text:
            raise invalid_request("query", [], "The `query` query parameter can not be empty")
        if len(text) > MAX_QUERY_LENGTH:
            raise invalid_request(
                "query",
                text,
                f"There were errors processing your request: Rules are limited to "
                f"{MAX_QUERY_LENGTH} characters",
            )
        page_size = self._max_results(query)
        filters = (
            text,
            _id_param(query, "since_id"),
            _id_param(query, "until_id"),
            _time_param(query, "start_time"),
            _time_param(query, "end_time"),
        )
        if filters[3] is not None and filters[4] is not None and filters[3] >= filters[4]:
            raise invalid_request(
                "start_time",
                query["start_time"],
                "Invalid 'start_time':'{}'. 'start_time' must be before 'end_time'".format(
                    query["start_time"]
                ),
            )
        self._check_window(query, filters)
        sort_order = query.get("sort_order", "recency")
        if sort_order not in ("recency", "relevancy"):
            raise invalid_request(
                "sort_order",
                sort_order,
                f"The `sort_order` query parameter value [{sort_order}] is not one of "
                "[recency,relevancy]",
            )
        tweet_fields = _list_param(query, "tweet.fields", TWEET_FIELDS)
        user_fields = _list_param(query, "user.fields", USER_FIELDS)
        expansions = _list_param(query, "expansions", EXPANSIONS)
        posts, neg_ids = self._matching(filters)
        start = self._position(query, filters, neg_ids)
        page = posts[start : start + page_size]
        if not page:
            return {"meta": {"result_count": 0}}
        body = {"data": [self.store.post_dict(p, tweet_fields) for p in page]}
        includes = self._includes(page, expansions, tweet_fields, user_fields)
        if includes:
            body["includes"] = includes
        meta = {
            "newest_id": str(page[0].id),
            "oldest_id": str(page[-1].id),
            "result_count": len(page),
        }
        if start + page_size < len(posts):
            meta["next_token"] = _encode_token(page[-1].id, filters)
        body["meta"] = meta
        return body

    def _check_window(self, query: dict, filters: tuple) -> None:
        """Recent search reaches 7 days back, and ids and times do not mix."""
        _, since_id, until_id, start_ms, end_ms = filters
        if (since_id is not None or until_id is not None) and (
            start_ms is not None or end_ms is not None
        ):
            name = "since_id" if since_id is not None else "until_id"
            raise invalid_request(
                name,
                query[name],
                "Invalid use of 'since_id' or 'until_id' in conjunction with 'start_time' or "
                "'end_time'.",
            )
        oldest = _now_ms() - RECENT_DAYS * 86_400_000
        shown = iso_ms(oldest)[:16] + "Z"
        if start_ms is not None and start_ms < oldest:
            value = query["start_time"]
            raise invalid_request(
                "start_time",
                value,
                f"Invalid 'start_time':'{value}'. 'start_time' must be on or after {shown}",
            )
        if since_id is not None and self.store.id_time_ms(since_id) < oldest:
            value = query["since_id"]
            raise invalid_request(
                "since_id",
                value,
                f"Invalid 'since_id':'{value}'. 'since_id' must be a tweet id created after "
                f"{shown}. Please use the 'start_time' parameter instead.",
            )

    @staticmethod
    def _max_results(query: dict) -> int:
        raw = query.get("max_results", "10")
        if not raw.isdigit() or not 10 <= int(raw) <= 100:
            raise invalid_request(
                "max_results",
                raw,
                f"The `max_results` query parameter value [{raw}] is not between 10 and 100",
            )
        return int(raw)

    def _matching(self, filters: tuple) -> tuple[list[_Post], list[int]]:
        cached = self._results.get(filters)
        if cached is not None and cached[0] == self.store.version:
            return cached[1], cached[2]
        text, since_id, until_id, start_ms, end_ms = filters
        predicate = self._compiled.get(text)
        if predicate is None:
            try:
                predicate = compile_query(text, self.store.find_user)
            except QueryError as error:
                raise invalid_request(
                    "query", text, f"There were errors processing your request: {error}"
                ) from None
            if len(self._compiled) > 256:
                self._compiled.clear()
            self._compiled[text] = predicate
        found = [
            post
            for post in reversed(self.store.posts)
            if (since_id is None or post.id > since_id)
            and (until_id is None or post.id < until_id)
            and (start_ms is None or post.created >= start_ms)
            and (end_ms is None or post.created < end_ms)
            and predicate(post)
        ]
        neg_ids = [-post.id for post in found]
        if len(self._results) > 64:
            self._results.clear()
        self._results[filters] = (self.store.version, found, neg_ids)
        return found, neg_ids

    @staticmethod
    def _position(query: dict, filters: tuple, neg_ids: list[int]) -> int:
        name = "next_token" if "next_token" in query else "pagination_token"
        token = query.get(name)
        if token is None:
            return 0
        last_id = _decode_token(token, filters)
        if last_id is None:
            raise invalid_request(
                name, token, f"The `{name}` query parameter value [{token}] is not valid"
            )
        return bisect.bisect_right(neg_ids, -last_id)

    def _includes(self, page, expansions, tweet_fields, user_fields) -> dict:
        includes: dict = {}
        users: dict[int, _User] = {}
        referenced: dict[int, _Post] = {}
        if "referenced_tweets.id" in expansions or "referenced_tweets.id.author_id" in expansions:
            for post in page:
                for _, ref_id in post.refs:
                    target = self.store.by_id.get(ref_id)
                    if target is not None:
                        referenced.setdefault(ref_id, target)
        for post in page:
            if "author_id" in expansions:
                users.setdefault(post.author.id, post.author)
            if "entities.mentions.username" in expansions:
                for *_, user in post.mentions:
                    if user is not None:
                        users.setdefault(user.id, user)
            if "in_reply_to_user_id" in expansions and post.ref("replied_to") and post.reply_user:
                users.setdefault(post.reply_user.id, post.reply_user)
        if "referenced_tweets.id.author_id" in expansions:
            for target in referenced.values():
                users.setdefault(target.author.id, target.author)
        if users and expansions & _USER_EXPANSIONS:
            includes["users"] = [user.render(user_fields) for user in users.values()]
        if referenced and "referenced_tweets.id" in expansions:
            includes["tweets"] = [
                self.store.post_dict(p, tweet_fields) for p in referenced.values()
            ]
        return includes


def _filters_hash(filters: tuple) -> str:
    return hashlib.sha1(repr(filters).encode()).hexdigest()[:12]


def _encode_token(last_id: int, filters: tuple) -> str:
    raw = f"{last_id}.{_filters_hash(filters)}".encode()
    return base64.b32encode(raw).decode().rstrip("=").lower()


def _decode_token(token: str, filters: tuple) -> int | None:
    try:
        padded = token.upper() + "=" * (-len(token) % 8)
        last_id, digest = base64.b32decode(padded).decode().split(".")
    except (ValueError, UnicodeDecodeError):
        return None
    if not last_id.isdigit() or digest != _filters_hash(filters):
        return None
    return int(last_id)


# ---------------------------------------------------------------- the emulator


class XEmulator(HttpEmulator):
    """X API v2 recent search on 127.0.0.1 for tweepy: data, rate limit, faults, request log."""

    server_software = "tsa_b"
    thread_name = "x-emulator"

    def __init__(self, bearer_token: str = "x-test-token", *, rate_limit: int = RATE_LIMIT):
        self.bearer_token = bearer_token
        self.requests: list[dict] = []
        self._lock = threading.RLock()
        self._store = _Store()
        self._rate = _RateLimit(rate_limit)
        self._faults = _Faults()
        self._search = _Search(self._store)

    # data
    def add_user(
        self, username: str, name: str | None = None, followers: int = 0, user_id=None, **fields
    ) -> dict:
        """Add a user; fields: following, tweets, listed, description, verified, protected,
        created_at."""
        with self._lock:
            return self._store.add_user(username, name, followers, user_id, **fields).render()

    def add_post(
        self,
        text: str,
        username: str = "rocm_user",
        created_at=None,
        lang: str = "en",
        post_id=None,
        reply_to=None,
        quote_of=None,
        retweet_of=None,
        urls: Iterable[str] | None = None,
        public_metrics: dict | None = None,
    ) -> dict:
        """Add a post by `username` (created if unknown); returns it with every field.

        URLs in the text (and `urls` not in it, appended) are served as t.co links.
        """
        refs = [
            (kind, int(ref_id))
            for kind, ref_id in (
                ("replied_to", reply_to),
                ("quoted", quote_of),
                ("retweeted", retweet_of),
            )
            if ref_id is not None
        ]
        with self._lock:
            store = self._store
            author = store.user(username)
            post_id = store.claim_post_id(post_id)
            created = to_ms(created_at) or store.tick()
            post = _Post(post_id, text, author, created, lang)
            if public_metrics:
                names = ("retweet", "reply", "like", "quote", "bookmark", "impression")
                post.metrics = tuple(int(public_metrics.get(f"{n}_count", 0)) for n in names)
            store.add_post(post, urls or (), refs)
            return store.post_dict(post)

    def post(self, post_id) -> dict:
        with self._lock:
            return self._store.post_dict(self._store.by_id[int(post_id)])

    def user(self, username: str) -> dict:
        with self._lock:
            found = self._store.find_user(username)
            if found is None:
                raise KeyError(f"no user {username!r}")
            return found.render()

    @property
    def post_count(self) -> int:
        with self._lock:
            return len(self._store.posts)

    def bulk_generate(self, n: int, seed: int = 0, queries_hint: Sequence[str] = ("ROCm",)) -> None:
        """Append n realistic posts over the last 7 days (complaints, praise, questions,
        GitHub issue links, retweets, replies, other languages, ~7% off-topic).

        Every on-topic post contains one of the `queries_hint` keywords.
        """
        with self._lock:
            _BulkGenerator(self._store, seed, queries_hint).run(n)

    # rate limit, faults, log
    def set_rate_limit(self, remaining: int, reset_at_epoch: int | None = None) -> None:
        """Set what is left of the current window; it resets at reset_at_epoch (default +15m)."""
        with self._lock:
            self._rate.set(remaining, reset_at_epoch)

    def reset_rate_limit(self) -> None:
        with self._lock:
            self._rate.reset()

    @property
    def rate_limit_remaining(self) -> int:
        return self._rate.remaining

    def inject_fault(
        self,
        status: int,
        *,
        after_requests: int = 0,
        times: int | None = 1,
        reset_in: int = 1,
        body: dict | None = None,
    ) -> None:
        """Answer `times` requests (None: all) with `status`, after `after_requests` more.

        A 429 carries x-rate-limit-remaining 0 and a reset `reset_in` seconds from now.
        """
        with self._lock:
            self._faults.pending.append(_Fault(status, after_requests, times, reset_in, body))

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.pending.clear()

    def clear_log(self) -> None:
        with self._lock:
            self.requests.clear()

    def count(self, status: int | None = None, path_contains: str | None = None) -> int:
        with self._lock:
            return sum(
                1
                for entry in self.requests
                if (status is None or entry["status"] == status)
                and (path_contains is None or path_contains in entry["path"])
            )

    # request handling (called by the HTTP handler threads)
    def handle(self, method: str, raw_path: str, headers, body: bytes = b"") -> Reply:
        parts = urlsplit(raw_path)
        query = dict(parse_qsl(parts.query, keep_blank_values=True))
        with self._lock:
            try:
                reply = self._respond(method, parts.path, query, headers)
            except Exception:
                traceback.print_exc()
                reply = self._json_reply(500, problem(500), self._rate.headers())
            self.requests.append(
                {
                    "method": method,
                    "path": parts.path,
                    "query": query,
                    "status": reply.status,
                    "time": time.time(),
                }
            )
        return reply

    def _respond(self, method: str, path: str, query: dict, headers) -> Reply:
        self._rate.roll_window()
        if not self._authorized(headers.get("Authorization")):
            return self._json_reply(401, _UNAUTHORIZED_BODY, self._rate.headers())
        fault = self._faults.take()
        if fault is not None:
            return self._fault_reply(fault)
        if method != "GET" or path.rstrip("/") != SEARCH_PATH:
            return self._json_reply(404, _NOT_FOUND_BODY, self._rate.headers())
        if self._rate.remaining <= 0:
            return self._json_reply(429, problem(429), self._rate.headers())
        self._rate.consume()
        try:
            body = self._search(query)
        except _HttpError as error:
            return self._json_reply(error.status, error.body, self._rate.headers())
        return self._json_reply(200, body, self._rate.headers())

    def _authorized(self, value: str | None) -> bool:
        scheme, _, credential = (value or "").partition(" ")
        return scheme.lower() == "bearer" and credential.strip() == self.bearer_token

    def _fault_reply(self, fault: _Fault) -> Reply:
        body = fault.body if fault.body is not None else problem(fault.status)
        headers = self._rate.headers()
        if fault.status == 429:
            headers = self._rate.headers(remaining=0, reset_at=int(time.time()) + fault.reset_in)
        return self._json_reply(fault.status, body, headers)

    @staticmethod
    def _json_reply(status: int, body, headers: list) -> Reply:
        common = [
            ("content-type", "application/json; charset=utf-8"),
            ("cache-control", "no-cache, no-store, max-age=0"),
            ("x-response-time", "12"),
        ]
        return Reply(status, common + headers, _dumps(body))


# ---------------------------------------------------------------- CLI


def _parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Serve an emulated X API v2 recent search.")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--posts", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hint", action="append", help="keyword every on-topic post carries")
    parser.add_argument("--token", default="x-test-token")
    parser.add_argument("--rate-limit", type=int, default=RATE_LIMIT)
    return parser.parse_args(argv)


def main(argv=None) -> None:
    args = _parse_args(argv)
    emulator = XEmulator(bearer_token=args.token, rate_limit=args.rate_limit)
    if args.posts:
        emulator.bulk_generate(args.posts, seed=args.seed, queries_hint=args.hint or ("ROCm",))
    emulator.serve_until_signalled(port=args.port)


if __name__ == "__main__":
    main()
