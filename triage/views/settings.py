"""The settings page (tracked repositories, saved searches, release series) and preferences."""

import zoneinfo

from django import forms
from django.contrib import messages
from django.shortcuts import redirect, render
from django.views.decorators.http import require_safe

from config import wiring
from triage.models import UserPreference
from triage.panels import page_panels

TIME_ZONES = sorted(zoneinfo.available_timezones())


class PreferenceForm(forms.Form):
    time_zone = forms.ChoiceField(
        choices=[(name, name) for name in TIME_ZONES],
        label="Time zone",
        help_text="Dates and times on every page are shown in it.",
    )
    github_login = forms.RegexField(
        r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$",
        required=False,
        max_length=39,
        label="Your GitHub login",
        help_text="The queue's 'My issues' shows the issues assigned to it on GitHub and those "
        "of the components the ownership rules give it.",
        error_messages={"invalid": "A GitHub login: letters, digits and dashes."},
    )
    inbox_email = forms.BooleanField(
        required=False,
        label="E-mail me each new inbox item",
        help_text="Your inbox holds what is assigned to your GitHub login, mentions of it and "
        "replies on issues you follow; with this, each new item is also e-mailed to you.",
    )


@require_safe
def settings_overview(request):
    return render(
        request,
        "triage/settings.html",
        {"panels": page_panels(wiring.SETTINGS_PANELS, request=request)},
    )


def _preferences_saved(before, *, zone: str, login: str, email: bool = False) -> str:
    """The message names what changed, and only that."""
    said = []
    if zone != (before.time_zone if before else "UTC"):
        said.append(f"times are now shown in {zone}")
    if login != (before.github_login if before else ""):
        said.append(f"your GitHub login is now @{login}" if login else "your GitHub login is unset")
    if email != (before.inbox_email if before else False):
        said.append("new inbox items are e-mailed to you" if email else "no inbox e-mails")
    if not said:
        return "Nothing changed."
    text = "; ".join(said)
    return text[0].upper() + text[1:] + "."


def preferences(request):
    current = UserPreference.objects.filter(user=request.user).first()
    form = PreferenceForm(
        request.POST or None,
        initial={
            "time_zone": current.time_zone if current else "UTC",
            "github_login": current.github_login if current else "",
            "inbox_email": current.inbox_email if current else False,
        },
    )
    if request.method == "POST" and form.is_valid():
        zone, login = form.cleaned_data["time_zone"], form.cleaned_data["github_login"]
        email = form.cleaned_data["inbox_email"]
        UserPreference.objects.update_or_create(
            user=request.user,
            defaults={"time_zone": zone, "github_login": login, "inbox_email": email},
        )
        messages.success(request, _preferences_saved(current, zone=zone, login=login, email=email))
        return redirect("preferences")
    return render(request, "triage/preferences.html", {"form": form})
