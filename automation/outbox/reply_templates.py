"""The texts the service posts on GitHub: templates maintainers edit in the admin.

Each is Django's template language, rendered with the variables DEFAULTS lists for it (without
HTML escaping: GitHub renders Markdown). A template that does not compile, or that names a
variable its text does not get, is refused when saved (`template_validate`). Until a maintainer
saves one, the default below is used; the admin shows it.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.template import Context, Engine, TemplateSyntaxError

from automation.outbox.models import ReplyTemplate

INVALID = "@@UNKNOWN VARIABLE@@"
_ENGINE = Engine(autoescape=False)
_CHECKING = Engine(autoescape=False, string_if_invalid=INVALID)


class TemplateInvalid(ValueError):
    pass


@dataclass(frozen=True)
class Default:
    body: str
    variables: dict  # name -> a sample value (what validation renders with)
    help: str


_MISSING = ["the GPU model and its gfx target", "the ROCm version"]
_ISSUE = {"reporter": "octocat", "repository": "ROCm/ROCm", "number": 4242}

DEFAULTS: dict[str, Default] = {
    "needs_info.ask": Default(
        "Thanks for the report, @{{ reporter }}. To triage it we need:\n"
        "{% for item in missing %}\n- [ ] {{ item }}{% endfor %}\n\n"
        "Please add them in a comment or by editing the issue; this comment is updated as they "
        "arrive.",
        {**_ISSUE, "missing": _MISSING},
        "Asks the reporter of a new bug for what triage needs. `missing`: what is missing.",
    ),
    "needs_info.satisfied": Default(
        "Thanks, @{{ reporter }}: the report now has what triage needs"
        "{% if supplied %} ({{ supplied|join:', ' }}){% endif %}.",
        {**_ISSUE, "supplied": _MISSING},
        "Replaces the request once nothing is missing. `supplied`: what was asked for.",
    ),
    "needs_info.remind": Default(
        "@{{ reporter }}, this issue still needs{% for item in missing %} {{ item }}"
        "{% if not forloop.last %};{% endif %}{% endfor %}. Without it we cannot triage the "
        "report; it will be closed in {{ close_days }} days if nothing arrives.",
        {**_ISSUE, "missing": _MISSING, "close_days": 14},
        "The one reminder. `close_days`: days until it is closed.",
    ),
    "needs_info.close": Default(
        "Closing as not planned: the information asked for on {{ asked_on }} did not arrive. "
        "@{{ reporter }}, comment with it (or open a new issue that links this one) and a "
        "maintainer will reopen it.",
        {**_ISSUE, "asked_on": "2026-11-02"},
        "Said when the issue is closed for lack of an answer: how to have it reopened.",
    ),
    "releases.fixed_in": Default(
        "Fixed in {{ product }} {{ release }}"
        "{% if verified_on %}; verified on {{ verified_on|join:' and ' }}{% endif %} "
        "({{ pull_requests|join:', ' }}). @{{ reporter }}, if it still happens with "
        "{{ release }}, please open a new issue and link this one.",
        {
            "product": "ROCm",
            "release": "7.9.0",
            "verified_on": ["gfx942", "gfx1100"],
            "pull_requests": ["ROCm/ROCm#5001"],
            "reporter": "octocat",
        },
        "Told on each issue whose fix ships in a released train.",
    ),
    "commands.refused": Default(
        "@{{ login }}: `{{ line }}` was not applied: {{ why }}.",
        {"login": "octocat", "line": "/kind bugg", "why": "kind is one of bug, feature"},
        "The one reply to a refused comment command. `why`: the reason.",
    ),
}


def _body(name: str) -> str:
    row = ReplyTemplate.objects.filter(name=name).first()
    return row.body if row is not None else DEFAULTS[name].body


def template_validate(*, name: str, body: str) -> str:
    """The body if it compiles and renders with the template's own variables only."""
    default = DEFAULTS.get(name)
    if default is None:
        raise TemplateInvalid(f"no template is called {name!r}: one of {', '.join(DEFAULTS)}")
    return text_validate(body=body, variables=default.variables)


def text_validate(*, body: str, variables: dict) -> str:
    """The body if it compiles and renders with these (sample) variables and no others."""
    default = Default(body, variables, "")
    try:
        text = _CHECKING.from_string(body).render(Context(default.variables, autoescape=False))
    except TemplateSyntaxError as exc:
        raise TemplateInvalid(f"the template does not compile: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - a filter failing on the sample values
        raise TemplateInvalid(f"the template does not render: {exc}") from None
    if INVALID in text:
        known = ", ".join(sorted(default.variables))
        raise TemplateInvalid(f"the template names a variable it does not get (it gets {known})")
    if not text.strip():
        raise TemplateInvalid("the template renders to nothing")
    return body


def render(name: str, **context) -> str:
    """The text of template `name` (the admin's, else its default) for these values."""
    return render_text(_body(name), **context)


def render_text(body: str, **context) -> str:
    return _ENGINE.from_string(body).render(Context(context, autoescape=False)).strip()
