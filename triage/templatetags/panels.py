"""{% render_panel panel %}: a panel's template with its own context (and the request's)."""

from django import template
from django.template.loader import render_to_string

register = template.Library()


@register.simple_tag(takes_context=True)
def render_panel(context, panel):
    request = context.get("request")
    return render_to_string(panel.template, {**panel.context, "panel": panel}, request=request)
