"""Template context every page gets (settings.TEMPLATES)."""

from django.conf import settings


def polling(request) -> dict:
    """How often the menu's inbox count asks for news (INBOX_POLL_SECONDS)."""
    return {"INBOX_POLL_SECONDS": settings.INBOX_POLL_SECONDS}
