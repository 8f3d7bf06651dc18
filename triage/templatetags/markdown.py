"""{{ text|markdown }}: untrusted Markdown rendered and sanitized by triage.text.rendering (once
per text: the rendering is cached under the text's digest)."""

from django import template
from django.utils.safestring import mark_safe

from triage.text.rendering import render_markdown_cached

register = template.Library()


@register.filter(name="markdown")
def markdown_filter(text):
    # render_markdown's output went through nh3's allow-list, so it is safe to mark as such.
    return mark_safe(render_markdown_cached(text))  # noqa: S308
