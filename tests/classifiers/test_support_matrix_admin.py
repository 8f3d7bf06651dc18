"""The admin's support matrix releases: validated when saved, in force at once."""

from __future__ import annotations

import pytest
from django.urls import reverse

from classifiers import support_matrix
from classifiers.models import SupportMatrixRelease

SOURCE = "https://rocm.docs.amd.com/en/docs-7.2.0/compatibility/compatibility-matrix.html"
ADD = "admin:classifiers_supportmatrixrelease_add"


def form(**fields):
    return {"platform": "linux", "release": "7.2", "targets": "gfx942", "source": SOURCE} | fields


def test_it_lists_and_searches_the_edited_releases(admin_client):
    support_matrix.matrix_release_set(
        platform="windows", release="7.2.1", targets="gfx1201", source=SOURCE, by="tess"
    )
    url = reverse("admin:classifiers_supportmatrixrelease_changelist")
    response = admin_client.get(url, {"q": "gfx1201"})
    assert response.status_code == 200
    assert "7.2.1" in response.content.decode()


def test_a_release_added_in_the_admin_is_kept_as_x_y_z_and_judges_at_once(admin_client):
    response = admin_client.post(
        reverse(ADD), form(targets="GFX950, gfx942,gfx950", note="ROCm 7.2 matrix")
    )
    assert response.status_code == 302
    row = SupportMatrixRelease.objects.get()
    assert (row.release, row.targets, row.updated_by) == ("7.2.0", "gfx950,gfx942", "admin")
    assert support_matrix.verdict("gfx1031", "7.2.0").sentence == (
        f"ROCm 7.2.0 on Linux does not list gfx1031 (source: {SOURCE})."
    )


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        (
            {"targets": "gfx942, Radeon RX 7900 XTX"},
            "not gfx targets LLVM knows: radeon rx 7900 xtx",
        ),
        ({"release": "7.2.0.1"}, "&#x27;7.2.0.1&#x27; is not a release: write X.Y or X.Y.Z"),
        ({"targets": "gfx12-generic"}, "generic targets are build targets, not GPUs"),
        ({"source": "not a page"}, "Enter a valid URL."),
    ],
)
def test_a_release_the_matrix_cannot_take_is_refused_with_its_fix(admin_client, fields, said):
    response = admin_client.post(reverse(ADD), form(**fields))
    assert response.status_code == 200
    assert said in response.content.decode()
    assert not SupportMatrixRelease.objects.exists()


def test_a_release_already_edited_on_that_platform_is_refused(admin_client):
    support_matrix.matrix_release_set(
        platform="linux", release="7.2.0", targets="gfx950", source=SOURCE
    )
    response = admin_client.post(reverse(ADD), form(release="7.2"))
    assert response.status_code == 200
    assert "with this Platform and Release already exists" in response.content.decode()
    assert SupportMatrixRelease.objects.get().targets == "gfx950"
