from django import forms
from django.contrib import admin

from classifiers import support_matrix
from classifiers.models import SupportMatrixRelease


class SupportMatrixReleaseForm(forms.ModelForm):
    release = forms.CharField(max_length=20, help_text='X.Y or X.Y.Z ("6.4" is kept as 6.4.0)')
    targets = forms.CharField(
        max_length=2000,
        help_text="The gfx targets the release supports on this platform, comma-separated: "
        "gfx942, gfx950 (the LLVM targets: gfx1100 for a Radeon RX 7900 XTX)",
    )
    source = forms.URLField(
        max_length=500, assume_scheme="https", help_text="The URL of the page that lists them"
    )

    class Meta:
        model = SupportMatrixRelease
        fields = ["platform", "release", "targets", "source", "note"]

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        try:
            platform, release, names = support_matrix.release_validate(
                platform=data.get("platform") or "",
                release=data.get("release") or "",
                targets=data.get("targets") or "",
                source=data.get("source") or "",
            )
        except support_matrix.MatrixInvalid as exc:
            raise forms.ValidationError(str(exc)) from None
        data.update(platform=platform, release=release, targets=",".join(names))
        return data


@admin.register(SupportMatrixRelease)
class SupportMatrixReleaseAdmin(admin.ModelAdmin):
    """ROCm releases added to, or corrected in, the bundled support matrix
    (classifiers/data/rocm_support_matrix.json): a row replaces that release's list on its
    platform at once, for the known-error rules too. Removing the row brings the bundled list
    back. The same from a shell: `manage.py support_matrix`."""

    form = SupportMatrixReleaseForm
    list_display = ["release", "platform", "targets", "source", "updated_by", "updated_at"]
    list_filter = ["platform"]
    search_fields = ["release", "targets", "note"]
    readonly_fields = ["updated_by", "updated_at"]

    def save_model(self, request, obj, form, change):
        obj.updated_by = request.user.get_username()
        super().save_model(request, obj, form, change)
