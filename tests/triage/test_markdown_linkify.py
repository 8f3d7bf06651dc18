"""Bare links in Markdown: linked as markdown-it links them, with bounded work per link."""

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from triage.text.markdown_linkify import MAX_SCHEME_CHARS, MAX_URL_CHARS, use_bounded_linkify
from triage.text.rendering import render_markdown


class RecordingLinkify:
    """linkify-it as markdown-it uses it, noting the length of every text it is asked about."""

    def __init__(self, linkify):
        self.linkify, self.lengths = linkify, []

    def match_at_start(self, text):
        self.lengths.append(len(text))
        return self.linkify.match_at_start(text)

    def __getattr__(self, name):
        return getattr(self.linkify, name)


def _markdown(bounded: bool) -> MarkdownIt:
    md = MarkdownIt("gfm-like", {"linkify": True})
    return md.use(use_bounded_linkify) if bounded else md


def test_each_link_is_looked_at_through_a_window_of_bounded_size():
    md = _markdown(bounded=True)
    md.linkify = RecordingLinkify(md.linkify)
    md.render("a://b:" * 5000 + " https://example.org/x " + "https://" * 3000)
    assert md.linkify.lengths and max(md.linkify.lengths) <= MAX_URL_CHARS + MAX_SCHEME_CHARS


def test_it_links_what_markdown_it_links():
    text = "See https://github.com/ROCm/ROCm/issues/4840, and (http://x.org/a_b) or git+ssh://h/p."
    assert _markdown(bounded=True).render(text) == _markdown(bounded=False).render(text)
    html = render_markdown("crash: https://github.com/ROCm/hip/issues/12 since 6.2")
    assert 'href="https://github.com/ROCm/hip/issues/12"' in html


@settings(max_examples=300)
@given(
    st.lists(
        st.sampled_from(
            ["https://", "http://a.b/c", "x", " ", "\n", "ftp:", "a1+.-", "://", "*", "_", "`", "("]
        ),
        max_size=40,
    ).map("".join)
)
def test_short_texts_render_exactly_as_with_markdown_its_own_rule(text):
    assert _markdown(bounded=True).render(text) == _markdown(bounded=False).render(text)


def test_a_scheme_longer_than_the_bound_is_not_linked():
    text = "x" * (MAX_SCHEME_CHARS + 1) + "://example.org"
    assert "<a " not in _markdown(bounded=True).render(text)
