"""The release manager's edited release notes of a train (a draft per train, exported as is)."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from releases import calendar
from releases.models import ReleaseNotesDraft, ReleaseSeries

MAX_NOTES_CHARS = 200_000


class NotesError(ValueError):
    pass


def _version(series: ReleaseSeries, version: str) -> str:
    try:
        return series.train(version).version
    except calendar.CalendarError as exc:
        raise NotesError(str(exc)) from exc


@transaction.atomic
def notes_draft_save(
    *, series: ReleaseSeries, version: str, text: str, user=None
) -> ReleaseNotesDraft:
    text = (text or "").replace("\r\n", "\n").replace("\x00", "")
    if not text.strip():
        raise NotesError("the release notes are empty (discard the draft to regenerate them)")
    if len(text) > MAX_NOTES_CHARS:
        raise NotesError(f"the release notes are longer than {MAX_NOTES_CHARS:,} characters")
    if not text.endswith("\n"):
        text += "\n"
    draft, _ = ReleaseNotesDraft.objects.update_or_create(
        series=series,
        train_version=_version(series, version),
        defaults={"text": text, "updated_by": user, "updated_at": timezone.now()},
    )
    return draft


def notes_draft_discard(*, series: ReleaseSeries, version: str) -> int:
    """Back to the generated notes; returns how many drafts were deleted (0 or 1)."""
    deleted, _ = ReleaseNotesDraft.objects.filter(
        series=series, train_version=_version(series, version)
    ).delete()
    return deleted
