"""Links from data, in templates: every href/src/action a template fills from data goes through
these (tests/security/test_template_links.py checks every template).

- {{ url|safe_url }}: the URL when triage.text.safe_links allows it (http(s), or our own "/..."
  path),
  else "";
- {% safe_link url %}text{% endsafe_link %}: <a href="url">text</a>, or the text alone when the
  URL is refused; links to other sites get rel="noopener noreferrer". Extra attributes as
  keyword arguments, "_" for "-": {% safe_link url class="x" data_keynav_open="" %}.
"""

from django import template
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html, format_html_join

from triage.selectors.social import spike_posts_query
from triage.text.safe_links import is_external, safe_link_url

register = template.Library()

EXTERNAL_REL = "noopener noreferrer"


@register.filter
def safe_url(url):
    return safe_link_url(url)


class SafeLinkNode(template.Node):
    def __init__(self, url, attributes, nodelist):
        self.url, self.attributes, self.nodelist = url, attributes, nodelist

    def render(self, context):
        text = self.nodelist.render(context)
        href = safe_link_url(self.url.resolve(context))
        if not href:
            return text
        attributes = {
            name.replace("_", "-"): value.resolve(context)
            for name, value in self.attributes.items()
        }
        if is_external(href):
            attributes.setdefault("rel", EXTERNAL_REL)
        extra = format_html_join("", ' {}="{}"', attributes.items())
        return format_html('<a href="{}"{}>{}</a>', href, extra, text)


@register.tag
def safe_link(parser, token):
    bits = token.split_contents()
    if len(bits) < 2:
        raise template.TemplateSyntaxError("{% safe_link URL [name=value ...] %} needs a URL")
    attributes = template.base.token_kwargs(bits[2:], parser, support_legacy=False)
    if len(attributes) != len(bits) - 2:
        raise template.TemplateSyntaxError("safe_link takes a URL and name=value attributes")
    nodelist = parser.parse(("endsafe_link",))
    parser.delete_first_token()
    return SafeLinkNode(parser.compile_filter(bits[1]), attributes, nodelist)


@register.filter
def issue_page(reference) -> str:
    """Our page of the issue "OWNER/NAME#N" (a report's reference), else ""."""
    owner, slash, rest = str(reference).partition("/")
    name, hash_, number = rest.rpartition("#")
    if not (owner and slash and name and hash_ and number.isdigit()):
        return ""
    try:
        return reverse("issue-detail", args=[owner, name, int(number)])
    except NoReverseMatch:
        return ""


@register.filter
def spike_posts_url(spike) -> str:
    """The social feed listing a spike's posts (each with the issues it cites)."""
    return f"{reverse('social-feed')}?{spike_posts_query(spike)}"
