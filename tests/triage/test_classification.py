import io

import pytest
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.test import Client

from classifiers import artifacts
from tests.triage.classification_data import labelled_issues
from triage.models import Comment, IssuePrediction, PredictionCorrection
from triage.services import classification, training_data
from triage.sources.github import ingest

pytestmark = pytest.mark.django_db


@pytest.fixture
def triager(user):
    user.user_permissions.add(
        Permission.objects.get(content_type__app_label="triage", codename="triage_issue")
    )
    return user


def test_without_trained_models_only_rules_run_and_the_page_says_not_classified(
    make, logged_in_client
):
    issue = make.issue(title="Crash on MI300X", body="### ROCm Version\n\n6.4.1\n")
    report = classification.issues_classify(ids=[issue.id])
    assert report.skipped["component"] == "not trained" and "symptom" not in report.skipped
    assert "kind" not in report.skipped
    assert set(IssuePrediction.objects.values_list("model_name", "label", "model_version")) == {
        ("environment", "gfx942", "rules"),
        ("symptom", "crash", "rules"),
        ("kind", "bug", "rules"),
        ("severity", "high", "rules"),
    }
    page = logged_in_client.get(
        f"/issues/{issue.repository.full_name}/{issue.number}/"
    ).content.decode()
    assert "not classified" in page
    assert "6.4.1" in page


def test_ingestion_classifies_new_issues_once_models_are_trained(
    make, django_capture_on_commit_callbacks
):
    labelled_issues(make)
    call_command("train_classifier", "kind", stdout=io.StringIO())
    call_command("train_classifier", "duplicates", stdout=io.StringIO())
    repository = make.repository()
    item = {
        "number": 4242,
        "id": 99424242,
        "title": "rocBLAS crashes with segmentation fault on MI300X",
        "body": "Kernel launch fails with hipErrorIllegalAddress; stack trace attached",
        "state": "open",
        "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-02T00:00:00Z",
        "user": {"id": 7, "login": "reporter"},
        "labels": [],
    }
    with django_capture_on_commit_callbacks(execute=True):
        result = ingest.issues_upsert(repository=repository, items=[item])
    [issue_id] = result.changed_ids
    predictions = {p.model_name: p for p in IssuePrediction.objects.filter(issue_id=issue_id)}
    assert predictions["kind"].label == "bug"
    assert predictions["kind"].model_version == artifacts.active_version("kind")
    assert predictions["kind"].evidence["terms"]
    assert predictions["environment"].label == "gfx942"
    candidates = predictions["duplicates"].evidence["candidates"]
    assert 0 < len(candidates) <= 5
    assert candidates[0]["score"] >= candidates[-1]["score"]
    assert "component" not in predictions  # never trained: left out, not failed


def test_a_correction_changes_the_next_training_set(make, user):
    issues = labelled_issues(make)
    before = training_data.training_set(model_name="kind")
    index = before.issue_ids.index(issues[0].id)
    assert before.labels[index] == "bug"
    classification.prediction_correct(
        issue=issues[0], model_name="kind", label="question", user=user
    )
    after = training_data.training_set(model_name="kind")
    assert after.labels[after.issue_ids.index(issues[0].id)] == "question"
    assert after.sources["correction"] == 1
    correction = PredictionCorrection.objects.get()
    assert (correction.before, correction.after, correction.user) == ("", "question", user)


def test_weak_labels_come_from_labels_title_prefixes_and_forms(make):
    make.issue(title="[Feature]: add fp8 GEMM", body="")
    make.issue(title="[Documentation]: typo", body="")
    make.issue(title="Broken on MI300X", body="### ROCm Component\n\nMIOpen\n")
    make.issue(repository=make.repository("ROCm/HIP"), title="hipcc fails", body="")
    kinds = training_data.training_set(model_name="kind")
    assert sorted(kinds.labels) == ["docs", "feature"]
    components = training_data.training_set(model_name="component")
    assert sorted(components.labels) == ["hip", "miopen"]


def test_decisions_on_the_page_need_login_and_record_who(make, logged_in_client, triager):
    user = triager
    issue = make.issue(title="Crash")
    url = f"/issues/{issue.repository.full_name}/{issue.number}/predictions/kind/"
    anonymous = Client().post(url, {"label": "bug"})
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]
    assert not PredictionCorrection.objects.exists()
    response = logged_in_client.post(url, {"label": "bug"})
    assert response.status_code == 302
    assert PredictionCorrection.objects.get().user == user
    prediction = IssuePrediction.objects.get(issue=issue, model_name="kind")
    assert (prediction.label, prediction.needs_triage) == ("bug", False)
    bad = logged_in_client.post(url, {"label": "colour"}, follow=True).content.decode()
    assert "kind is one of" in bad
    assert PredictionCorrection.objects.count() == 1


def test_decisions_need_the_triage_permission(make, logged_in_client):
    issue = make.issue(title="Crash")
    classification.issues_classify(ids=[issue.id])
    IssuePrediction.objects.update_or_create(
        issue=issue, model_name="kind", defaults={"label": "bug", "confidence": 0.6}
    )
    page = logged_in_client.get(f"/issues/{issue.repository.full_name}/{issue.number}/")
    assert "triagers decide" in page.content.decode()
    url = f"/issues/{issue.repository.full_name}/{issue.number}/predictions/kind/"
    assert logged_in_client.post(url, {"label": "bug"}).status_code == 403
    assert not PredictionCorrection.objects.exists()


def test_from_htmx_a_decision_answers_the_updated_panel(make, logged_in_client, triager):
    issue = make.issue(title="Crash")
    IssuePrediction.objects.create(issue=issue, model_name="kind", label="bug", confidence=0.6)
    page = logged_in_client.get(f"/issues/{issue.repository.full_name}/{issue.number}/")
    assert 'hx-target="#classification-panel"' in page.content.decode()
    url = f"/issues/{issue.repository.full_name}/{issue.number}/predictions/kind/"
    response = logged_in_client.post(url, {"label": "question"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    fragment = response.content.decode()
    assert fragment.lstrip().startswith('<div id="classification-panel">')
    assert "kind corrected to question." in fragment
    assert "<strong>question</strong>" in fragment and "decided by alice" in fragment
    assert "<html" not in fragment
    assert PredictionCorrection.objects.get().after == "question"


def test_decisions_need_a_csrf_token(make, triager):
    user = triager
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    issue = make.issue(title="Crash")
    url = f"/issues/{issue.repository.full_name}/{issue.number}/predictions/kind/"
    assert client.post(url, {"label": "bug"}).status_code == 403


def test_confirming_a_duplicate_names_an_existing_issue(make, user):
    first, second = make.issue(title="Crash"), make.issue(title="Crash again")
    with pytest.raises(classification.CorrectionError, match="existing issue"):
        classification.prediction_correct(
            issue=second, model_name="duplicates", label="ROCm/ROCm#999999", user=user
        )
    classification.prediction_correct(
        issue=second, model_name="duplicates", label=f"ROCm/ROCm#{first.number}", user=user
    )
    assert IssuePrediction.objects.get(model_name="duplicates").label.endswith(f"#{first.number}")


def test_a_foreign_artifact_is_skipped_not_fatal(make, settings):
    labelled_issues(make)
    report = classification.classifier_train_from_database(model_name="kind")
    meta = settings.CLASSIFIER_ARTIFACT_DIR / "kind" / report.version / "metadata.json"
    meta.write_text(meta.read_text().replace('"sklearn_version": "', '"sklearn_version": "0.0+'))
    artifacts._cache.clear()
    issue = make.issue(title="Crash")
    result = classification.issues_classify(ids=[issue.id])
    assert "scikit-learn 0.0+" in result.skipped["kind"]
    # the model is left out; the rules still speak
    kind = IssuePrediction.objects.get(model_name="kind")
    assert kind.model_version == "rules" and "model" not in str(kind.evidence)


def test_the_api_shows_predictions_and_priority(make, api_client):
    issue = make.issue(title="Crash on MI300X after upgrading", body="segfault")
    classification.issues_classify(ids=[issue.id])
    data = api_client.get(f"/api/issues/{issue.repository.full_name}/{issue.number}/").json()
    assert data["predictions"][0]["model"] == "environment"
    assert data["predictions"][0]["label"] == "gfx942"
    assert data["priority"]["score"] == sum(p["points"] for p in data["priority"]["parts"])


# --- retraining reaches the existing issues --------------------------------------------------


def test_a_retraining_that_activates_reclassifies_the_open_issues(
    make, django_capture_on_commit_callbacks
):
    issues = labelled_issues(make)
    make.issue(title="rocBLAS crashes on MI300X", state="closed")
    with django_capture_on_commit_callbacks(execute=True):
        result = classification.classifiers_retrain()
    assert result.enqueued["issues"] == 1  # 30 open issues: one chunk
    kind = IssuePrediction.objects.filter(model_name="kind")
    assert set(kind.values_list("issue_id", flat=True)) == {i.id for i in issues}
    assert set(kind.values_list("model_version", flat=True)) == {artifacts.active_version("kind")}

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        again = classification.classifiers_retrain()  # the same data: nothing new is active
    assert again.enqueued == {} and callbacks == []


def test_open_issues_come_in_chunks(make):
    from triage.services import priority

    open_ids = [make.issue(title=f"Crash {n}").id for n in range(5)]
    make.issue(title="Closed", state="closed")
    make.pull_request(title="Fix")
    chunks = list(priority.open_issue_id_chunks(size=2))
    assert chunks == [open_ids[0:2], open_ids[2:4], open_ids[4:]]


# --- sentiment of comments -------------------------------------------------------------------


def comment_item(github_id: int, number: int, body: str) -> dict:
    return {
        "id": github_id,
        "issue_url": f"https://api.github.com/repos/ROCm/ROCm/issues/{number}",
        "html_url": f"https://github.com/ROCm/ROCm/issues/{number}#issuecomment-{github_id}",
        "user": {"id": github_id + 1, "login": f"user{github_id}"},
        "author_association": "NONE",
        "body": body,
        "created_at": "2026-11-20T10:00:00Z",
        "updated_at": "2026-11-20T10:00:00Z",
    }


def test_ingested_comments_get_their_sentiment_shown_on_the_page(
    make, logged_in_client, django_capture_on_commit_callbacks
):
    from triage.services import demo

    sentiment = demo.demo_sentiment_train()
    issue = make.issue(number=77, title="RCCL hang")
    bodies = {
        "This is still broken, the GPU hangs again and I have to reboot. Awful.": "negative",
        "Thanks, that fixed it! Works perfectly now on my MI300X.": "positive",
        "Could you attach the output of rocminfo and the exact command?": "neutral",
    }
    items = [comment_item(900 + n, 77, body) for n, body in enumerate(bodies)]
    with django_capture_on_commit_callbacks(execute=True):
        ingest.comments_upsert(repository=issue.repository, items=items)

    stored = {c.body: c for c in Comment.objects.all()}
    assert {body: c.sentiment for body, c in stored.items()} == bodies
    assert {c.sentiment_model_version for c in stored.values()} == {sentiment.version}
    assert all(0.34 < c.sentiment_confidence <= 1 for c in stored.values())
    page = logged_in_client.get("/issues/ROCm/ROCm/77/").content.decode()
    assert 'class="badge sentiment sentiment-negative"' in page


def test_without_a_sentiment_model_comments_are_left_alone(make):
    issue = make.issue(title="Crash")
    make.comment(issue, body="awful")
    report = classification.comments_classify(issue_ids=[issue.id])
    assert report.skipped == "sentiment not trained"
    assert Comment.objects.get().sentiment == ""


# --- what the models train on ----------------------------------------------------------------


def test_the_text_a_weak_label_comes_from_is_not_trained_on(make):
    make.issue(title="[Feature]: add fp8 GEMM to hipBLASLt", body="fp8 please")
    make.issue(title="Feature request: hipGraph support in MIOpen", labels=["feature request"])
    make.issue(title="[Documentation]: [rocBLAS] typo in the guide", body="")
    make.issue(
        title="Broken on MI300X",
        body="### ROCm Component\n\nMIOpen\n\n### Steps to Reproduce\n\nrun it",
    )
    kinds = training_data.training_set(model_name="kind")
    assert sorted(kinds.labels) == ["docs", "feature", "feature"]
    assert dict(kinds.sources) == {"title prefix": 2, "label": 1}
    text = "\n".join(kinds.texts)
    assert "add fp8 GEMM to hipBLASLt" in text and "hipGraph support in MIOpen" in text
    for leak in ("[Feature]", "Feature request", "[Documentation]", "[rocBLAS]"):
        assert leak not in text
    components = training_data.training_set(model_name="component")
    form = components.texts[components.labels.index("miopen")]
    assert "MIOpen" not in form and "Steps to Reproduce" in form
    # "[Documentation]: [rocBLAS] typo": its second tag names the component
    assert dict(components.sources) == {"issue form": 1, "title prefix": 1}
    severity = training_data.training_set(model_name="severity")
    assert set(severity.sources) == {"rule"}


def test_the_training_source_names_are_whole(make):
    labelled_issues(make)
    classification.prediction_correct(
        issue=make.issue(title="How do I pick a GPU?"),
        model_name="kind",
        label="question",
        user=None,
    )
    report = classification.classifier_train_from_database(model_name="kind")
    source = artifacts.metadata_read("kind", report.version)["source"]
    assert source == "database (correction 1, label 30)"


# --- weak labels are hints, not truth (issue 16) ---------------------------------------------


def weak_labels(model_name: str) -> dict[str, str]:
    """{title: weak label} of the training set of `model_name`."""
    from triage.models import Issue

    data = training_data.training_set(model_name=model_name)
    titles = dict(Issue.objects.values_list("id", "title"))
    return {titles[i]: label for i, label in zip(data.issue_ids, data.labels, strict=True)}


def test_an_issue_form_that_asks_is_a_question_and_one_asking_about_a_failure_is_not_labelled(
    make,
):
    form = "### Problem Description\n\n{}\n\n### Operating System\n\nUbuntu 24.04\n"
    make.issue(title="[Issue]: Is there a ROCm version that supports gfx1151?", body="")
    make.issue(title="[Issue]: How do I build PyTorch for an RX 7900 XTX", body=form.format("-"))
    make.issue(
        title="[Issue]: gfx1151 support",
        body=form.format("Does ROCm 6.4 support the Radeon 8060S? I could not find it listed."),
    )
    make.issue(title="[Issue]: Why does hipMemcpyAsync crash on MI300X?", body="")
    make.issue(
        title="[Issue]: rocBLAS gemm returns NaN on gfx942",
        body=form.format("Is this expected? The same call is fine on gfx90a."),
    )
    make.issue(title="[Issue]: Does not compile with ROCm 6.3", body="")
    assert weak_labels("kind") == {
        "[Issue]: Is there a ROCm version that supports gfx1151?": "question",
        "[Issue]: How do I build PyTorch for an RX 7900 XTX": "question",
        "[Issue]: gfx1151 support": "question",
        "[Issue]: rocBLAS gemm returns NaN on gfx942": "bug",  # a failure, with a question after
        "[Issue]: Does not compile with ROCm 6.3": "bug",
    }
    assert training_data.training_set(model_name="kind").sources["question-shaped"] == 3


def test_title_tags_that_name_hardware_are_never_components(make):
    make.issue(title="[Navi21] OpenCL kernel hangs after resume from suspend")
    make.issue(title="[gfx90a][COMGR] code object v5 fails to load")
    make.issue(title="[MI300X] RCCL all-reduce is slower than on MI250X")
    make.issue(title="[Strix Halo] hipMalloc fails above 64 GB")
    make.issue(title="[ROCm 6.4.1] [Ubuntu 24.04] rocminfo lists no agents")
    make.issue(title="[Issue]: [MIOpen] convolution search takes hours on W7900")
    assert weak_labels("component") == {
        "[gfx90a][COMGR] code object v5 fails to load": "comgr",
        "[Issue]: [MIOpen] convolution search takes hours on W7900": "miopen",
    }
    assert training_data.environment_title_tags("[gfx90a][COMGR] code object v5") == ["gfx90a"]
    assert training_data.environment_title_tags("[Strix Halo][7900XTX] x") == [
        "Strix Halo",
        "7900XTX",
    ]


def test_label_maps_name_repositories_in_any_case_and_by_their_former_names(make, settings):
    from triage.models import RepositoryFormerName

    settings.CLASSIFIER_LABEL_MAPS = {"kind": {"rocm/rocm": {"Type: Defect": "bug"}}}
    make.issue(title="Kernel panics on suspend", labels=["type: defect"])  # ROCm/ROCm
    make.issue(repository=make.repository("ROCm/hip"), title="hipcc rejects --offload-arch")
    renamed = make.repository("ROCm/rocm-hip")
    RepositoryFormerName.objects.create(repository=renamed, full_name="ROCm/HIP-old")
    settings.CLASSIFIER_LABEL_MAPS["component_repository"] = {"rocm/hip-old": {"*": "hip"}}
    make.issue(repository=renamed, title="hipGraph capture drops a memset")
    assert weak_labels("kind") == {"Kernel panics on suspend": "bug"}
    assert weak_labels("component") == {
        "hipcc rejects --offload-arch": "hip",  # the default map is written for ROCm/HIP
        "hipGraph capture drops a memset": "hip",
    }


def test_kind_trains_per_repository_from_the_database_and_a_renamed_one_keeps_its_model(
    make, settings
):
    from tests.classifiers.test_per_repository import NEW_REPORT, repository_rows
    from triage.services import tracking

    settings.CLASSIFIER_KIND_OTHER_REPOSITORIES_WEIGHT = 0.3
    settings.CLASSIFIER_DECISIONS_TO_OVERRULE = 100  # the maintainers' labels below: 108
    texts, labels, groups = repository_rows()
    kind_label = {"question": "question", "bug": "bug", "feature": "feature request"}
    kind_label.update(docs="documentation", performance="performance")
    repositories = {name: make.repository(name) for name in set(groups)}
    for text, label, group in zip(texts, labels, groups, strict=True):
        title, _, body = text.partition("\n")
        make.issue(
            repository=repositories[group],
            title=title,
            body=body.split("\n", 1)[-1],
            labels=[kind_label[label]],
        )
    report = classification.classifier_train_from_database(model_name="kind")
    loaded = artifacts.artifact_load("kind", report.version)
    assert set(loaded.model.repository_models) == {"rocm/rocm", "rocm/hip"}
    assert loaded.metadata["cv_metrics"]["other_repositories_weight"] == 0.3

    # the pooled model calls the new report a bug; ROCm/ROCm's own, under its new name, does not
    tracking.repository_rename(repository=repositories["ROCm/ROCm"], full_name="ROCm/rocm-core")
    title, _, body = NEW_REPORT.partition("\n")
    hip = make.issue(repository=repositories["ROCm/hip"], title=title, body=body)
    rocm = make.issue(repository=repositories["ROCm/ROCm"], title=title, body=body)
    classification.issues_classify(ids=[hip.id, rocm.id])
    kind = dict(IssuePrediction.objects.filter(model_name="kind").values_list("issue_id", "label"))
    assert (kind[rocm.id], kind[hip.id]) == ("question", "bug")
    # taught by the maintainers' labels, the model outranks the rules (which read a bug here);
    # the same labels on the demo's synthetic issues teach nothing: the rules speak
    evidence = IssuePrediction.objects.get(issue=rocm, model_name="kind").evidence
    assert "taught by" in evidence["terms"][0]["rule"]
    classification.classifier_train_from_database(
        model_name="kind", origin=classification.DEMO_SOURCE, force=True
    )
    classification.issues_classify(ids=[rocm.id])
    assert IssuePrediction.objects.get(issue=rocm, model_name="kind").label == "bug"
