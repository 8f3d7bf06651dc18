"""Keep secrets out of log lines.

tweepy logs every request's headers at DEBUG ("Authorization: Bearer ..."), and other libraries
may echo tokens in errors. This filter rewrites a record's message with every configured secret
and any bearer/token credential replaced by [redacted]. It sits on the console handler (so it
sees every propagated record) and on the loggers of the HTTP clients themselves.
"""

from __future__ import annotations

import logging
import re

CREDENTIAL = re.compile(r"(?i)((?:bearer|token)\s+)[A-Za-z0-9%._~+/=-]{8,}")
SECRET_SETTINGS = ("X_BEARER_TOKEN", "GITHUB_TOKEN", "GITHUB_WEBHOOK_SECRET", "SECRET_KEY")


def _secrets() -> list[str]:
    try:
        from django.conf import settings

        values = [getattr(settings, name, "") for name in SECRET_SETTINGS]
    except Exception:  # settings not configured yet
        return []
    return [value for value in values if isinstance(value, str) and len(value) >= 6]


def redact(text: str) -> str:
    for secret in _secrets():
        text = text.replace(secret, "[redacted]")
    return CREDENTIAL.sub(r"\1[redacted]", text)


class RedactSecrets(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a record whose arguments do not format: leave it alone
            return True
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, ()
        return True
