"""Label chips: GitHub's label colour, validated, with a readable text colour."""

from django import template
from django.utils.html import format_html

from config import linear_re

register = template.Library()

HEX_COLOR_RE = linear_re.compile(r"^[0-9a-fA-F]{6}$")
DEFAULT_COLOR = "ededed"


def _text_color(hex_color: str) -> str:
    red, green, blue = (int(hex_color[i : i + 2], 16) for i in (0, 2, 4))
    luminance = 0.299 * red + 0.587 * green + 0.114 * blue
    return "#1f2328" if luminance > 150 else "#ffffff"


@register.simple_tag
def label_chip(label):
    """A <span> for one Label; the colour is used only when it is six hex digits."""
    color = label.color.lstrip("#") if label.color else ""
    if not HEX_COLOR_RE.match(color):
        color = DEFAULT_COLOR
    return format_html(
        '<span class="label" style="background-color: #{}; color: {}">{}</span>',
        color.lower(),
        _text_color(color),
        label.name,
    )
