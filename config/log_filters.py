"""Keep secrets out of log lines and error reports.

tweepy logs every request's headers at DEBUG ("Authorization: Bearer ..."), and other libraries
may echo tokens in errors. `redact` replaces every configured secret (the tokens, the webhook
secret, SECRET_KEY, the passwords in DATABASE_URL and REDIS_URL), any bearer/token credential and
the password of any URL with [redacted].

- RedactSecrets, a logging filter, rewrites a record's message and its traceback. It sits on the
  console handler (so it sees every propagated record) and on the loggers of the HTTP clients; a
  Celery worker's own handlers get it too (config/celery.py).
- config.error_views.SecretsHiddenExceptionReporter (DEFAULT_EXCEPTION_REPORTER) redacts the
  whole DEBUG error page and error e-mail with `redact_html` / `redact`.
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

import github  # noqa: F401  (see below)
from django.utils.html import escape

from config import linear_re

# PyGithub configures its logger when imported: level INFO and a StreamHandler of its own, which
# would ignore LOGGING's level and print records unredacted. This module is loaded while Django
# applies LOGGING (for the filter below), before the loggers are configured: imported here, the
# "github" entry of LOGGING then replaces that level and handler.

CREDENTIAL = linear_re.compile(r"(?i)((?:bearer|token)\s+)[A-Za-z0-9%._~+/=-]{8,}")
URL_PASSWORD = linear_re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://[^\s:/@'\"<>]*:)[^\s@/'\"<>]+(@)")
SECRET_SETTINGS = ("X_BEARER_TOKEN", "GITHUB_TOKEN", "GITHUB_WEBHOOK_SECRET", "SECRET_KEY")
URL_SETTINGS = ("DATABASE_URL", "REDIS_URL")


def _secrets() -> list[str]:
    try:
        from django.conf import settings  # a record may come before settings are configured

        values = [getattr(settings, name, "") for name in SECRET_SETTINGS]
        for name in URL_SETTINGS:
            try:
                values.append(urlsplit(getattr(settings, name, "") or "").password or "")
            except ValueError:
                continue
    except Exception:  # settings not configured yet
        return []
    return [value for value in values if isinstance(value, str) and len(value) >= 6]


def redact(text: str) -> str:
    for secret in _secrets():
        text = text.replace(secret, "[redacted]")
    text = URL_PASSWORD.sub(r"\1[redacted]\2", text)
    return CREDENTIAL.sub(r"\1[redacted]", text)


def redact_html(html: str) -> str:
    """`redact` for HTML, where a secret may also appear escaped (& < > ' ")."""
    for secret in _secrets():
        html = html.replace(secret, "[redacted]").replace(escape(secret), "[redacted]")
    return redact(html)


class RedactSecrets(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a record whose arguments do not format: leave it alone
            return True
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, ()
        if record.exc_info and not record.exc_text:  # the traceback, formatted once, redacted
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
        elif record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True
