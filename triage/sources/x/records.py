"""X API v2 JSON (a search page's posts and its `includes.users`) as the shared records.

Only shapes are read here; cleaning and storing are the upsert path's (triage/services/upsert.py).
"""

from __future__ import annotations

from triage.sources.records import PersonRecord, PostRecord, parse_timestamp

SOURCE = "x"


def person(user_id: str, user: dict) -> PersonRecord:
    """An X user of a page's `includes.users`: its @username is the person's login."""
    metrics = user.get("public_metrics") if isinstance(user.get("public_metrics"), dict) else {}
    username = str(user.get("username") or "")
    return PersonRecord(
        source=SOURCE,
        external_id=str(user_id),
        login=username[:50],
        name=str(user.get("name") or "")[:100],
        html_url=f"https://x.com/{username}" if username else "",
        followers_count=int(metrics.get("followers_count") or 0),
    )


def post_url(post_id: str, author: PersonRecord | None) -> str:
    """A post's address on X (x.com/i/status/ID when its author is not known)."""
    return f"https://x.com/{author.login if author and author.login else 'i'}/status/{post_id}"


def posts(items: list, users: dict[str, dict]) -> list[PostRecord]:
    """The posts of a page, each with its author from `users` ({X user id: user})."""
    people = {str(uid): person(uid, user) for uid, user in users.items() if isinstance(user, dict)}
    return [
        PostRecord(
            external_id=str(int(p["id"])),
            source=SOURCE,
            url=post_url(str(int(p["id"])), people.get(str(p.get("author_id")))),
            author=people.get(str(p.get("author_id"))),
            text=str(p.get("text") or ""),
            created_at=parse_timestamp(p.get("created_at")),
            lang=str(p.get("lang") or ""),
            conversation_id=str(p.get("conversation_id") or ""),
            public_metrics=p.get("public_metrics") or {},
            entities=p.get("entities") or {},
            referenced_tweets=p.get("referenced_tweets") or [],
        )
        for p in items
        if isinstance(p, dict) and p.get("id")
    ]
