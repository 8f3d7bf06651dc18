"""REST API for the dashboard's own pages: the triage queue and its decisions, the models, the
home page's summary and the saved searches. Same data and permissions as the pages."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from classifiers import registry
from config.api_views import SelectorListView
from triage.api.issues import IssueSerializer, PredictionSerializer, PrioritySerializer
from triage.permissions import HasPermission
from triage.selectors import home as selectors_home
from triage.selectors import issues as selectors
from triage.selectors import social as selectors_social
from triage.services import classification, priority


class QueueQuerySerializer(serializers.Serializer):
    repo = serializers.RegexField(selectors.FULL_NAME_RE, required=False, max_length=201)
    component = serializers.CharField(required=False, max_length=100)
    architecture = serializers.RegexField(r"^gfx[0-9a-f]{3,5}$", required=False, max_length=10)
    kind = serializers.ChoiceField(choices=selectors.QUEUE_KINDS, required=False)
    severity = serializers.ChoiceField(choices=registry.entry("severity").labels, required=False)
    needs_triage = serializers.BooleanField(required=False, default=False)
    has_repro = serializers.BooleanField(required=False, default=False)
    needs_info = serializers.BooleanField(required=False, default=False)
    awaiting_approval = serializers.BooleanField(required=False, default=False)
    known_error = serializers.BooleanField(required=False, default=False)
    q = serializers.CharField(required=False, max_length=200)


class QueueItemSerializer(IssueSerializer):
    predictions = PredictionSerializer(many=True, read_only=True)
    priority = PrioritySerializer(read_only=True, allow_null=True)

    class Meta(IssueSerializer.Meta):
        fields = [*IssueSerializer.Meta.fields, "predictions", "priority"]
        read_only_fields = fields


class TriageQueueView(SelectorListView):
    """GET /api/triage-queue/: open issues by priority, with their predictions (filters as the
    dashboard's queue; 400 on a bad one)."""

    serializer_class = QueueItemSerializer

    query_serializer = QueueQuerySerializer
    selector = staticmethod(selectors.triage_queue)

    @extend_schema(summary="The triage queue", parameters=[QueueQuerySerializer])
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)


class DecisionSerializer(serializers.Serializer):
    label = serializers.CharField(
        max_length=255,
        help_text='The accepted or corrected label; for "priority" 0-100 or "auto"; for '
        '"duplicates" OWNER/NAME#N.',
    )


class PredictionDecideView(APIView):
    """POST /api/issues/OWNER/NAME/NUMBER/predictions/MODEL/: accept or correct a prediction
    (the models the registry says triagers correct) or override the priority ("priority")."""

    permission_classes = [HasPermission.to("correct")]

    @extend_schema(
        summary="Accept or correct a prediction",
        request=DecisionSerializer,
        responses={200: PredictionSerializer, 400: None, 404: None},
    )
    def post(self, request, owner: str, name: str, number: int, model_name: str):
        issue = selectors.issue_detail(owner=owner, name=name, number=number)
        body = DecisionSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        label = body.validated_data["label"]
        try:
            if model_name == priority.OVERRIDE_MODEL:
                priority.priority_override(issue=issue, label=label, user=request.user)
                current = selectors.issue_predictions(issue=issue)["priority"]
                return Response(PrioritySerializer(current).data if current else {})
            classification.prediction_correct(
                issue=issue, model_name=model_name, label=label, user=request.user
            )
        except (classification.CorrectionError, priority.OverrideError) as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        prediction = selectors.issue_predictions(issue=issue)["predictions"].get(model_name)
        return Response(PredictionSerializer(prediction).data if prediction else {})


class ModelVersionSerializer(serializers.Serializer):
    version = serializers.CharField()
    active = serializers.BooleanField()
    created_at = serializers.CharField(required=False)
    n_samples = serializers.IntegerField(required=False, allow_null=True)
    source = serializers.CharField(required=False)
    macro_f1 = serializers.FloatField(required=False, allow_null=True)
    accuracy = serializers.FloatField(required=False, allow_null=True)
    coverage = serializers.FloatField(required=False, allow_null=True)
    precision_at_threshold = serializers.FloatField(required=False, allow_null=True)
    sklearn_version = serializers.CharField(required=False)
    error = serializers.CharField(required=False)


class ModelSerializer(serializers.Serializer):
    name = serializers.CharField()
    version = serializers.CharField(allow_null=True)
    versions = ModelVersionSerializer(many=True, source="history")


class ModelListView(APIView):
    """GET /api/models/: every classifier, its active version and its saved versions' scores."""

    @extend_schema(
        summary="Classifier models and their versions", responses=ModelSerializer(many=True)
    )
    def get(self, request):
        rows = [
            {**row, "history": selectors_home.model_versions(row["name"])}
            for row in selectors_home.model_health()
        ]
        return Response(ModelSerializer(rows, many=True).data)


class SavedSearchSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    query = serializers.CharField()
    enabled = serializers.BooleanField()
    post_count = serializers.IntegerField()
    monthly_budget = serializers.IntegerField()
    last_run_at = serializers.DateTimeField(allow_null=True)
    last_error = serializers.CharField()


class SavedSearchListView(APIView):
    """GET /api/saved-searches/: the X searches with their post counts and state."""

    @extend_schema(summary="Saved X searches", responses=SavedSearchSerializer(many=True))
    def get(self, request):
        return Response(SavedSearchSerializer(selectors_social.saved_searches(), many=True).data)


class DashboardView(APIView):
    """GET /api/dashboard/: the home page's triage, social and model summary."""

    @extend_schema(
        summary="What needs a maintainer today",
        responses=inline_serializer(
            "Dashboard",
            {
                "open": serializers.IntegerField(),
                "untriaged": serializers.IntegerField(),
                "top": QueueItemSerializer(many=True),
                "posts_48h": serializers.IntegerField(),
                "negative_48h": serializers.IntegerField(),
                "spikes": serializers.ListField(child=serializers.CharField()),
                "models": serializers.ListField(child=serializers.DictField()),
                "issues_per_week": serializers.DictField(),
            },
        ),
    )
    def get(self, request):
        now = timezone.now()
        summary = selectors_home.triage_summary()
        social = selectors_home.social_summary(now=now)
        return Response(
            {
                "open": summary["open"],
                "untriaged": summary["untriaged"],
                "top": QueueItemSerializer(summary["top"], many=True).data,
                "posts_48h": social["posts"],
                "negative_48h": social["negative"],
                "spikes": [spike.describe() for spike in social["spikes"]],
                "models": [
                    {k: row.get(k) for k in ("name", "version", "created_at", "macro_f1")}
                    for row in selectors_home.model_health()
                ],
                "issues_per_week": selectors_home.issues_opened_closed_per_week(now=now),
            }
        )
