"""Saved views: a user's named filters of a dashboard page (the page's query string)."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode

from triage.models import SavedView, TriageAction


def saved_view_save(*, user, page: str, name: str, query: str) -> SavedView:
    """Create or replace the user's view `name` of `page`; the query is re-encoded, page dropped."""
    pairs = [(k, v) for k, v in parse_qsl(query, keep_blank_values=False) if k != "page"]
    view, _ = SavedView.objects.update_or_create(
        user=user, page=page, name=name.strip()[:100], defaults={"query": urlencode(pairs)[:1000]}
    )
    TriageAction.objects.create(
        actor=user, action="saved_view.save", after={"name": view.name, "query": view.query}
    )
    return view


def saved_view_delete(*, user, pk: int) -> bool:
    """Delete one of the user's own views; False when it is not theirs (or gone)."""
    deleted, _ = SavedView.objects.filter(user=user, pk=pk).delete()
    return bool(deleted)
