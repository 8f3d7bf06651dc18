"""{{ url|http_only }}: the URL when it is http(s), else "" (never a javascript: link)."""

from django import template

register = template.Library()


@register.filter
def http_only(url):
    url = (url or "").strip()
    return url if url.lower().startswith(("http://", "https://")) else ""
