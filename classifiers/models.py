"""Models of classifiers: the support matrix's edited releases (the rest of the app keeps files)."""

from django.db import models


class SupportMatrixRelease(models.Model):
    """One ROCm release's supported gfx targets on one platform, added or corrected without a
    redeploy; it replaces the bundled file's (and settings.ROCM_SUPPORT_MATRIX's) list of the
    same release (classifiers/support_matrix.py)."""

    class Platform(models.TextChoices):
        LINUX = "linux", "Linux"
        WINDOWS = "windows", "Windows"

    platform = models.CharField(max_length=10, choices=Platform.choices)
    release = models.CharField(max_length=20, help_text='X.Y.Z ("6.4" is kept as 6.4.0)')
    targets = models.TextField(
        help_text="The gfx targets the release supports there, comma-separated: gfx942, gfx950"
    )
    source = models.URLField(max_length=500, help_text="The page that lists them")
    note = models.TextField(blank=True)
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.CharField(max_length=150, blank=True)

    class Meta:
        ordering = ["platform", "release"]
        constraints = [
            models.UniqueConstraint(
                fields=["platform", "release"], name="support_matrix_release_once_per_platform"
            )
        ]

    def __str__(self) -> str:
        return f"ROCm {self.release} on {self.get_platform_display()}"

    @property
    def target_list(self) -> list[str]:
        return [t for t in self.targets.split(",") if t]
