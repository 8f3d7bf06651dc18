"""Forms of the release manager's actions: they validate and resolve references, nothing more.

Shared by the dashboard views (releases.views_actions) and the REST API (releases.api)."""

from __future__ import annotations

from django import forms

from releases import selectors
from releases.services.notes import MAX_NOTES_CHARS


class _ReferenceField(forms.CharField):
    """OWNER/NAME#N (or a GitHub URL) -> the issue or pull request."""

    def __init__(self, *, pull_request: bool, **kwargs):
        self.pull_request = pull_request
        super().__init__(max_length=400, **kwargs)

    def clean(self, value):
        value = super().clean(value)
        try:
            return selectors.issue_by_reference(value, pull_request=self.pull_request)
        except selectors.UnknownReference as exc:
            raise forms.ValidationError(str(exc)) from exc


class NominateForm(forms.Form):
    issue = _ReferenceField(pull_request=False)
    reason = forms.CharField(max_length=255, required=False)


class FixLinkForm(forms.Form):
    issue = _ReferenceField(pull_request=False)
    pull_request = _ReferenceField(pull_request=True)


class TargetForm(forms.Form):
    issue = _ReferenceField(pull_request=False)
    version = forms.CharField(max_length=20, required=False, help_text="'' keeps the target")
    flags = forms.CharField(
        max_length=1000, required=False, help_text="comma-separated: blocker, known issue"
    )
    keep_flags = forms.BooleanField(required=False, help_text="leave the flags as they are")
    note = forms.CharField(max_length=255, required=False)

    def clean_flags(self):
        return [f.strip() for f in self.cleaned_data["flags"].split(",") if f.strip()]


class CandidateForm(forms.Form):
    tag = forms.CharField(max_length=100)


class NotesForm(forms.Form):
    text = forms.CharField(max_length=MAX_NOTES_CHARS, strip=False)


def first_error(form: forms.Form) -> str:
    for field, errors in form.errors.items():
        name = "" if field == "__all__" else f"{field}: "
        return f"{name}{errors[0]}"
    return "invalid input"
