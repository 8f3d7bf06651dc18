"""REST API of releases: trains and their readiness (reads), and the release manager's actions
(nominate, approve or reject a backport, add or remove a fix link, set a target and flags, mark
an RC tagged), thin over selectors and services."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    inline_serializer,
)
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api_views import query_given
from releases import calendar, selectors
from releases.models import Backport
from releases.readiness import readiness_build
from releases.services.backports import (
    BackportError,
    NotReleaseManager,
    backport_approve,
    backport_nominate,
    backport_reject,
)
from releases.services.candidates import CandidateError, train_rc_tag
from releases.services.fixes import FixLinkError, fix_link_add, fix_link_remove
from releases.services.targets import TargetError, target_set
from triage.permissions import MANAGE_TRAINS, HasPermission

SERIES_PARAM = OpenApiParameter(
    "series", OpenApiTypes.STR, description="series name (default: first)"
)


class TrainSerializer(serializers.Serializer):
    series = serializers.CharField()
    version = serializers.CharField()
    label = serializers.CharField()
    position = serializers.ChoiceField(choices=["past", "current", "next"])
    phase = serializers.ChoiceField(choices=["released", "stabilizing", "open"])
    branch_cut = serializers.DateField()
    code_freeze = serializers.DateField()
    rc = serializers.DateField()
    release = serializers.DateField()
    time_zone = serializers.CharField()
    branch_cut_at = serializers.DateTimeField()
    release_at = serializers.DateTimeField()
    note = serializers.CharField()


class AsOfSerializer(serializers.Serializer):
    series = serializers.SlugField(required=False, max_length=50)
    as_of = serializers.DateField(required=False)


class TrainListView(APIView):
    @extend_schema(
        summary="List release trains",
        description="The trains the timeline page shows: past (up to 4), current and next (up "
        "to 3) of every release series.",
        responses=inline_serializer(
            "TrainList",
            {"count": serializers.IntegerField(), "results": TrainSerializer(many=True)},
        ),
    )
    def get(self, request):
        now = timezone.now()
        rows = []
        for series in selectors.series_all():
            past, current, after = calendar.trains_window(
                series.spec(), now, past=calendar.TIMELINE_PAST, upcoming=calendar.TIMELINE_UPCOMING
            )
            for position, trains in (
                ("past", past),
                ("current", [current] if current else []),
                ("next", after),
            ):
                rows += [
                    t.as_dict() | {"position": position, "phase": t.phase(now)} for t in trains
                ]
        return Response({"count": len(rows), "results": TrainSerializer(rows, many=True).data})


class ReadinessView(APIView):
    @extend_schema(
        summary="Readiness report of a train",
        description=(
            "The train's readiness report (the same content as `readiness_report VERSION "
            "--format json`): verdict GO or NO-GO with its reasons, open blockers and "
            "regressions, fixes with their chain, backports, GPU-architecture matrix, and the "
            "forecast of the open issues. `as_of` (default: today) replays the report as of the "
            "end of that day from timestamps (labels and predictions as they are now). "
            "404 for an unknown series or train."
        ),
        parameters=[SERIES_PARAM, OpenApiParameter("as_of", OpenApiTypes.DATE)],
        responses=inline_serializer(
            "ReadinessReport",
            {
                "series": serializers.CharField(),
                "train": serializers.CharField(),
                "verdict": serializers.ChoiceField(choices=["GO", "NO-GO"]),
                "reasons": serializers.ListField(child=serializers.CharField()),
                "counts": serializers.DictField(child=serializers.IntegerField()),
                "open_blockers": serializers.ListField(child=serializers.DictField()),
                "fixed": serializers.ListField(child=serializers.DictField()),
                "gpu_matrix": serializers.ListField(child=serializers.DictField()),
            },
        ),
    )
    def get(self, request, version: str):
        query = AsOfSerializer(data=query_given(request.query_params))
        if not query.is_valid():
            raise ValidationError(query.errors)
        series = selectors.series_get(query.validated_data.get("series", ""))
        as_of = query.validated_data.get("as_of") or selectors.today_in(series, timezone.now())
        try:
            report = readiness_build(series=series, version=version, as_of=as_of)
        except calendar.CalendarError as exc:  # a date the calendar cannot reach
            raise ValidationError({"as_of": [str(exc)]}) from exc
        return Response(report)


# --- the release manager's actions (POST; token or session; permission-checked) --------------


@extend_schema_field(OpenApiTypes.STR)
class ReferenceField(serializers.Field):
    """OWNER/NAME#N (or its GitHub URL) → the issue (or, with pull_request=True, the PR)."""

    def __init__(self, *, pull_request: bool, **kwargs):
        self.pull_request = pull_request
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if not isinstance(data, str) or len(data) > 400:
            raise serializers.ValidationError("a reference OWNER/NAME#NUMBER (text)")
        try:
            return selectors.issue_by_reference(data, pull_request=self.pull_request)
        except selectors.UnknownReference as exc:
            raise serializers.ValidationError(str(exc)) from exc

    def to_representation(self, value):
        return value.reference


class NominateSerializer(serializers.Serializer):
    series = serializers.SlugField(required=False, max_length=50)
    issue = ReferenceField(pull_request=False, help_text="OWNER/NAME#N")
    reason = serializers.CharField(required=False, allow_blank=True, max_length=255, default="")


class FixLinkSerializer(serializers.Serializer):
    issue = ReferenceField(pull_request=False, help_text="OWNER/NAME#N of the issue")
    pull_request = ReferenceField(pull_request=True, help_text="OWNER/NAME#N of the fix")


class TargetSerializer(serializers.Serializer):
    series = serializers.SlugField(required=False, max_length=50)
    issue = ReferenceField(pull_request=False, help_text="OWNER/NAME#N")
    version = serializers.CharField(
        required=False, allow_blank=True, max_length=20, default="", help_text="'' keeps it"
    )
    flags = serializers.ListField(
        child=serializers.CharField(max_length=50),
        required=False,
        max_length=20,
        help_text="replaces the flags (blocker, known issue ...); absent: kept",
    )
    note = serializers.CharField(required=False, max_length=255)


class CandidateSerializer(serializers.Serializer):
    series = serializers.SlugField(required=False, max_length=50)
    tag = serializers.CharField(max_length=100)


class BackportOutSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    issue = serializers.CharField(source="issue.reference")
    series = serializers.CharField(source="series.name")
    train = serializers.CharField(source="train_version")
    state = serializers.CharField()
    automatic = serializers.BooleanField()
    reason = serializers.CharField()
    decided_by = serializers.CharField(source="decided_by.username", default="")
    merged_pull_request = serializers.CharField(source="merged_pull_request.reference", default="")


class FixLinkOutSerializer(serializers.Serializer):
    issue = serializers.CharField(source="issue.reference")
    pull_request = serializers.CharField(source="pull_request.reference")
    source = serializers.CharField()
    removed = serializers.BooleanField()
    train = serializers.CharField(source="train_version")
    via = serializers.CharField()
    merge_commit = serializers.CharField(source="merge_commit_sha")


class TargetOutSerializer(serializers.Serializer):
    issue = serializers.CharField(source="issue.reference")
    series = serializers.CharField(source="series.name")
    train = serializers.CharField(source="train_version")
    flags = serializers.ListField(child=serializers.CharField())
    note = serializers.CharField()


class CandidateOutSerializer(serializers.Serializer):
    series = serializers.CharField(source="series.name")
    train = serializers.CharField(source="train_version")
    tag = serializers.CharField()
    tagged_at = serializers.DateTimeField()
    verification_requested = serializers.IntegerField()


ACTION_ERRORS = (
    BackportError,
    CandidateError,
    FixLinkError,
    TargetError,
    calendar.CalendarError,
)


def _valid(serializer_class, request):
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


def _refuse(exc) -> Response:
    return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)


class BackportNominateView(APIView):
    permission_classes = [HasPermission.to("nominate_backport")]

    @extend_schema(
        summary="Nominate a fix for a train (backport)",
        description="Idempotent: nominating again answers the existing nomination (200).",
        request=NominateSerializer,
        responses={201: BackportOutSerializer, 200: BackportOutSerializer},
    )
    def post(self, request, version: str):
        data = _valid(NominateSerializer, request)
        series = selectors.series_get(data.get("series", ""))
        try:
            existed = Backport.objects.filter(
                issue=data["issue"], series=series, train_version=version
            ).exists()
            backport = backport_nominate(
                issue=data["issue"],
                series=series,
                version=version,
                user=request.user,
                reason=data["reason"],
            )
        except ACTION_ERRORS as exc:
            return _refuse(exc)
        return Response(
            BackportOutSerializer(backport).data,
            status=status.HTTP_200_OK if existed else status.HTTP_201_CREATED,
        )


class BackportDecideView(APIView):
    permission_classes = [HasPermission.to("decide_backport")]

    @extend_schema(
        summary="Approve or reject a nominated backport",
        description="`decision` is approve or reject; 400 when the backport is not nominated.",
        operation_id="releases_backports_decide",
        request=None,
        responses=BackportOutSerializer,
    )
    def post(self, request, pk: int, decision: str):
        decide = {"approve": backport_approve, "reject": backport_reject}.get(decision)
        if decide is None:
            raise NotFound("approve or reject")
        backport = get_object_or_404(Backport.objects.select_related("series", "issue"), pk=pk)
        try:
            backport = decide(backport=backport, user=request.user)
        except (BackportError, NotReleaseManager) as exc:
            return _refuse(exc)
        return Response(BackportOutSerializer(backport).data)


def _fix_link_change(request, change, status_code: int) -> Response:
    """Add or remove (`change`) the fix link the request names."""
    data = _valid(FixLinkSerializer, request)
    try:
        link = change(issue=data["issue"], pull_request=data["pull_request"], user=request.user)
    except ACTION_ERRORS as exc:
        return _refuse(exc)
    return Response(FixLinkOutSerializer(link).data, status=status_code)


class FixLinkAddView(APIView):
    permission_classes = [HasPermission.of(MANAGE_TRAINS)]

    @extend_schema(
        summary="Link a pull request to the issue it fixes (by hand)",
        request=FixLinkSerializer,
        responses={201: FixLinkOutSerializer},
    )
    def post(self, request):
        return _fix_link_change(request, fix_link_add, status.HTTP_201_CREATED)


class FixLinkRemoveView(APIView):
    permission_classes = [HasPermission.of(MANAGE_TRAINS)]

    @extend_schema(
        summary="Remove a fix link (kept as removed: parsing never brings it back)",
        request=FixLinkSerializer,
        responses=FixLinkOutSerializer,
    )
    def post(self, request):
        return _fix_link_change(request, fix_link_remove, status.HTTP_200_OK)


class TargetSetView(APIView):
    permission_classes = [HasPermission.to("target")]

    @extend_schema(
        summary="Set an issue's target train and release-side flags",
        request=TargetSerializer,
        responses=TargetOutSerializer,
    )
    def post(self, request):
        data = _valid(TargetSerializer, request)
        series = selectors.series_get(data.get("series", ""))
        try:
            target = target_set(
                issue=data["issue"],
                series=series,
                version=data["version"],
                flags=data.get("flags"),
                note=data.get("note"),
                user=request.user,
            )
        except ACTION_ERRORS as exc:
            return _refuse(exc)
        return Response(TargetOutSerializer(target).data)


class CandidateTagView(APIView):
    permission_classes = [HasPermission.of(MANAGE_TRAINS)]

    @extend_schema(
        summary="Mark a train's release candidate tagged",
        description=(
            "Records the tag (idempotent) and asks kernels_ci to re-verify every issue fixed on "
            "the train."
        ),
        request=CandidateSerializer,
        responses={201: CandidateOutSerializer},
    )
    def post(self, request, version: str):
        data = _valid(CandidateSerializer, request)
        series = selectors.series_get(data.get("series", ""))
        try:
            candidate = train_rc_tag(
                series=series, version=version, tag=data["tag"], user=request.user
            )
        except ACTION_ERRORS as exc:
            return _refuse(exc)
        return Response(CandidateOutSerializer(candidate).data, status=status.HTTP_201_CREATED)
