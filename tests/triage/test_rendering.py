from django.template import Context, Template

from triage.text.rendering import MAX_MARKDOWN_CHARS, render_markdown


def test_it_renders_github_flavoured_markdown():
    html = render_markdown("# Title\n\n**bold** ~~gone~~ `code`\n\n- [x] done\n- [ ] todo")
    assert "<h1>Title</h1>" in html
    assert "<strong>bold</strong>" in html
    assert "<s>gone</s>" in html
    assert "<code>code</code>" in html
    checkboxes = [line for line in html.splitlines() if "<input" in line]
    assert len(checkboxes) == 2
    assert all('type="checkbox"' in c and 'disabled="disabled"' in c for c in checkboxes)
    assert 'checked="checked"' in checkboxes[0]


def test_it_renders_tables():
    html = render_markdown("| arch | ok |\n| --- | --- |\n| gfx942 | yes |")
    assert "<table>" in html
    assert "<th>arch</th>" in html
    assert "<td>gfx942</td>" in html


def test_it_linkifies_urls_with_safe_rel():
    html = render_markdown("see https://rocm.docs.amd.com/en/latest")
    assert (
        '<a href="https://rocm.docs.amd.com/en/latest" rel="nofollow noopener noreferrer">' in html
    )


def test_it_drops_script_tags_and_their_content():
    html = render_markdown(
        "before <script>alert('x')</script> after\n\n<script>\nevil()\n</script>"
    )
    assert "<script" not in html
    assert "alert" not in html
    assert "evil" not in html
    assert "before" in html


def test_it_drops_event_handler_attributes():
    html = render_markdown('<img src="https://example.com/a.png" onerror="alert(1)">')
    assert "onerror" not in html
    assert 'href="https://example.com/a.png"' in html  # as a link: tests/triage/test_images.py


def test_it_drops_javascript_links():
    for text in (
        "[x](javascript:alert(1))",
        '<a href="javascript:alert(1)">x</a>',
        '<a href="JaVaScRiPt:alert(1)">x</a>',
        '<a href="jav&#x09;ascript:alert(1)">x</a>',
    ):
        assert 'href="javascript' not in render_markdown(text).lower()


def test_it_drops_data_urls():
    html = render_markdown(
        '![i](data:image/png;base64,AAAA)\n\n<a href="data:text/html,<script>x</script>">y</a>'
        '\n\n<img src="data:image/svg+xml,<svg onload=alert(1)>">'
    )
    assert "data:" not in html
    assert "onload" not in html


def test_it_only_links_http_image_sources():
    assert "href" not in render_markdown('<img src="mailto:a@b.c">')
    assert "href" not in render_markdown('<img src="/relative.png">')
    assert 'href="http://example.com/a.png"' in render_markdown("![a](http://example.com/a.png)")


def test_it_drops_iframes_objects_styles_and_forms():
    html = render_markdown(
        '<iframe src="https://evil.example"></iframe><object data="x.swf"></object>'
        '<embed src="x"><style>body{display:none}</style><form action="https://x">'
        '<input type="password"></form><p style="position:fixed">styled</p>'
    )
    bad_parts = ["<iframe", "<object", "<embed", "<style", "display:none", "<form", "style="]
    for bad in [*bad_parts, 'type="password"']:
        assert bad not in html
    assert "styled" in html


def test_it_keeps_html_inside_a_fenced_code_block_escaped():
    html = render_markdown("```html\n<script>alert(1)</script>\n<b>x</b>\n```")
    assert "<pre><code>&lt;script&gt;alert(1)&lt;/script&gt;\n&lt;b&gt;x&lt;/b&gt;" in html


def test_it_keeps_github_details_blocks():
    html = render_markdown("<details><summary>Log</summary>\n\n```\ntrace\n```\n</details>")
    assert "<details><summary>Log</summary>" in html
    assert "<pre><code>trace" in html


def test_it_adds_rel_to_raw_links_and_drops_relative_ones():
    html = render_markdown('<a href="https://x.example" rel="opener">x</a> <a href="/admin/">y</a>')
    assert '<a href="https://x.example" rel="nofollow noopener noreferrer">x</a>' in html
    assert "/admin/" not in html


def test_it_truncates_a_huge_body_with_a_note():
    html = render_markdown("word " * (2 * 1024 * 1024))  # 10 MB
    assert "Text truncated" in html
    assert len(html) < MAX_MARKDOWN_CHARS * 2


def test_it_survives_deep_nesting():
    # Markdown-it stops nesting blocks at 20 levels rather than recursing without bound.
    assert render_markdown("> " * 50_000 + "x").count("<blockquote>") == 20
    assert render_markdown("- " * 50_000 + "x").count("<ul>") <= 20
    assert "x" in render_markdown("[" * 50_000 + "x")
    assert "x" in render_markdown("<div>" * 50_000 + "x")


def test_it_escapes_html_when_a_body_has_too_many_tags():
    html = render_markdown("<b>" * 5000 + "x")
    assert "&lt;b&gt;" in html


def test_it_returns_empty_for_no_text():
    assert render_markdown("") == ""
    assert render_markdown(None) == ""


def test_the_markdown_filter_marks_sanitized_html_safe():
    template = Template("{% load markdown %}{{ body|markdown }}")
    html = template.render(Context({"body": "**hi** <script>x</script>"}))
    assert html == "<p><strong>hi</strong> </p>\n"
