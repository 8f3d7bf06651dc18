"""{% render_panel panel %}: a panel's template with its own context (and the request's).

A panel inside a page shows no page messages: the page shows them once, at its top. (Django's
messages context processor would hand the same messages to every panel, and a queue of 25 rows
would repeat "Set priority: 1 done" 25 times.) A panel answered alone, to htmx, is rendered by
its view with the messages of the decision just taken."""

from django import template
from django.template.loader import render_to_string

register = template.Library()


@register.simple_tag(takes_context=True)
def render_panel(context, panel):
    request = context.get("request")
    return render_to_string(
        panel.template, {"messages": (), **panel.context, "panel": panel}, request=request
    )
