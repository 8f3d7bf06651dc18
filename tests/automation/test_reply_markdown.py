"""Other people's words in the bot's replies stay inert: no mention, link, image or HTML of theirs
survives GitHub's Markdown (checked with markdown-it, CommonMark with GitHub's autolinks)."""

from hypothesis import example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from automation.outbox import reply_markdown, reply_templates

PIECES = st.sampled_from(
    [
        "`",
        "``",
        "@",
        "@octo-team",
        "@rocm/maintainers",
        "[x](https://evil.example)",
        "![img](https://evil.example/a.png)",
        "<img src=x onerror=alert(1)>",
        "<a href='https://evil.example'>",
        "https://evil.example",
        "www.evil.example",
        "#1234",
        "owner/repo#12",
        "**",
        "_",
        "|",
        "\n",
        "/kind",
        " ",
    ]
)
WORDS = st.lists(st.one_of(PIECES, st.text(max_size=8)), max_size=12).map("".join)


def rendered_tokens(markdown: str):
    md = MarkdownIt("commonmark", {"linkify": True}).enable("linkify").enable("table")
    md.linkify.set({"fuzzy_link": False, "fuzzy_email": False})
    for block in md.parse(markdown):
        yield block
        yield from block.children or ()


@settings(max_examples=300, deadline=None)
@given(line=WORDS, why=WORDS)
@example(line="", why="_https://evil.example.")  # a URL after a word character is linked too
def test_a_refusal_never_carries_a_commenters_mention_link_image_or_html(line, why):
    reply = reply_templates.render_text(
        reply_templates.DEFAULTS["commands.refused"].body,  # the reply as the service renders it
        login=reply_markdown.login("drive-by"),
        line=reply_markdown.in_code_span(line),
        why=reply_markdown.inert(why),
    )
    tokens = list(rendered_tokens(reply))
    kinds = {token.type for token in tokens}
    assert not kinds & {"link_open", "image", "html_inline", "html_block"}, reply
    texts = [t.content for t in tokens if t.type == "text"]
    assert texts[0].startswith("@drive-by: "), reply  # the one person addressed
    for text in [texts[0].removeprefix("@drive-by: "), *texts[1:]]:
        assert not any(ch == "@" and text[i + 1 : i + 2].isalnum() for i, ch in enumerate(text)), (
            reply
        )
    code = [t.content for t in tokens if t.type == "code_inline"]
    assert len(code) == 1 and "`" not in code[0], reply


def test_a_login_is_a_login_or_nothing():
    assert reply_markdown.login("maintainer-1") == "maintainer-1"
    assert reply_markdown.login("@everyone") == ""
    assert reply_markdown.login("a--b") == ""
