import io

from django.core.management import call_command

from releases.models import ReleaseNotesDraft


def test_the_release_manager_saves_an_edited_draft_and_the_download_exports_it(
    release_manager_client, series
):
    edited = "## ROCm 7.9.0\n\n### Resolved issues\n\n* **Edited by hand**.\n"
    response = release_manager_client.post(
        "/releases/7.9/notes/save/", {"series": "rocm", "text": edited.replace("\n", "\r\n")}
    )
    assert response.status_code == 302
    draft = ReleaseNotesDraft.objects.get()
    assert (draft.train_version, draft.text) == ("7.9", edited)
    download = release_manager_client.get("/releases/7.9/notes/?download=1")
    assert download.content.decode() == edited
    page = release_manager_client.get("/releases/7.9/notes/").content.decode()
    assert "Edited by hand" in page and "saved by rmgr" in page


def test_the_command_exports_the_draft_too(release_manager_client, series):
    release_manager_client.post("/releases/7.9/notes/save/", {"text": "## by hand\n"})
    out = io.StringIO()
    call_command("readiness_report", "7.9", "--format", "notes", stdout=out)
    assert out.getvalue() == "## by hand\n"


def test_discarding_the_draft_generates_the_notes_again(release_manager_client, series):
    release_manager_client.post("/releases/7.9/notes/save/", {"text": "## by hand\n"})
    release_manager_client.post("/releases/7.9/notes/save/", {"discard": "1"})
    assert not ReleaseNotesDraft.objects.exists()
    download = release_manager_client.get("/releases/7.9/notes/?download=1")
    assert download.content.startswith(b"## rocm 7.9.0\n\n### Resolved issues")


def test_empty_notes_are_refused_and_the_draft_is_kept(release_manager_client, series):
    release_manager_client.post("/releases/7.9/notes/save/", {"text": "## by hand\n"})
    response = release_manager_client.post("/releases/7.9/notes/save/", {"text": "   "})
    assert response.status_code == 302
    assert ReleaseNotesDraft.objects.get().text == "## by hand\n"
    page = release_manager_client.get(response["Location"])
    assert b"the release notes are empty" in page.content


def test_a_viewer_reads_but_cannot_save(logged_in_client, series):
    page = logged_in_client.get("/releases/7.9/notes/").content.decode()
    assert "readonly" in page and "Save the draft" not in page
    assert logged_in_client.post("/releases/7.9/notes/save/", {"text": "x"}).status_code == 403
    assert not ReleaseNotesDraft.objects.exists()
