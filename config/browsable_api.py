"""DRF's browsable API under the Content-Security-Policy.

Its templates (rest_framework/base.html and its form templates) set layout with style
attributes, which the site's policy refuses (style-src 'self'). Only on these pages the policy
also allows style attributes (style-src-attr 'unsafe-inline'): the page shows API data escaped
in <pre>, so the attributes are DRF's own; scripts and style elements stay restricted to our
static files. DRF also writes Pygments' stylesheet into an inline <style> for highlighted view
descriptions, which only exist with the `markdown` package (not a dependency): it is left out.
JSON answers (what API clients ask for) keep the site's policy unchanged.
"""

from csp.constants import UNSAFE_INLINE
from rest_framework import renderers

STYLE_ATTRIBUTES = {"style-src-attr": [UNSAFE_INLINE]}


class BrowsableAPIRenderer(renderers.BrowsableAPIRenderer):
    def get_context(self, data, accepted_media_type, renderer_context):
        context = super().get_context(data, accepted_media_type, renderer_context)
        context["code_style"] = None  # no inline <style> (see above)
        return context

    def render(self, data, accepted_media_type=None, renderer_context=None):
        response = (renderer_context or {}).get("response")
        if response is not None:
            response._csp_update = STYLE_ATTRIBUTES  # read by csp.middleware.CSPMiddleware
        return super().render(data, accepted_media_type, renderer_context)
