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


@require_safe
def settings_overview(request):
    return render(
        request,
        "triage/settings.html",
        {"panels": page_panels(wiring.SETTINGS_PANELS, request=request)},
    )


def preferences(request):
    current = UserPreference.objects.filter(user=request.user).first()
    form = PreferenceForm(
        request.POST or None, initial={"time_zone": current.time_zone if current else "UTC"}
    )
    if request.method == "POST" and form.is_valid():
        UserPreference.objects.update_or_create(
            user=request.user, defaults={"time_zone": form.cleaned_data["time_zone"]}
        )
        messages.success(request, f"Times are now shown in {form.cleaned_data['time_zone']}.")
        return redirect("preferences")
    return render(request, "triage/preferences.html", {"form": form})
