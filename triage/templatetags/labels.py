"""Label chips: GitHub's label colour, validated, with a readable text colour.

No style attribute (the Content-Security-Policy allows styles from our stylesheet only): the chip
carries its colour as data-label-color (six hex digits, or none) and a class for the text colour;
static/js/app.js sets the colour as the CSS custom property --label-color, which the stylesheet
uses as the background. Without script the chip shows the stylesheet's default for its class.
"""

from string import hexdigits

from django import template
from django.utils.html import format_html

register = template.Library()

DEFAULT_COLOR = "ededed"


def _hex_color(value: str) -> str:
    color = (value or "").lstrip("#")
    return color.lower() if len(color) == 6 and all(c in hexdigits for c in color) else ""


def _text_class(hex_color: str) -> str:
    red, green, blue = (int(hex_color[i : i + 2], 16) for i in (0, 2, 4))
    luminance = 0.299 * red + 0.587 * green + 0.114 * blue
    return "label-dark-text" if luminance > 150 else "label-light-text"


@register.simple_tag
def label_chip(label):
    """A <span> for one Label; the colour is used only when it is six hex digits."""
    color = _hex_color(label.color) or DEFAULT_COLOR
    return format_html(
        '<span class="label {}" data-label-color="{}">{}</span>',
        _text_class(color),
        color,
        label.name,
    )


@register.filter
def words(key) -> str:
    """A stored key as words for a page: "open_in_train" -> "open in train"."""
    return str(key).replace("_", " ")
