"""REST API of releases: trains and their readiness, thin over selectors and the report."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from releases import calendar, selectors
from releases.readiness import readiness_build

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
        description="Past (up to 6), current and next (up to 6) trains of every release series.",
        responses=TrainSerializer(many=True),
    )
    def get(self, request):
        now = timezone.now()
        rows = []
        for series in selectors.series_all():
            past, current, after = calendar.trains_window(series.spec(), now, past=6, upcoming=6)
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
            "regressions, fixes with their chain, backports, GPU-architecture matrix. "
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
        query = AsOfSerializer(data=request.query_params.dict())
        if not query.is_valid():
            raise ValidationError(query.errors)
        series = selectors.series_get(query.validated_data.get("series", ""))
        as_of = query.validated_data.get("as_of") or selectors.today_in(series, timezone.now())
        return Response(readiness_build(series=series, version=version, as_of=as_of))
