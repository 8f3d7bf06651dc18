"""REST API for X posts: GET /api/posts/."""

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, serializers
from rest_framework.exceptions import NotFound

from config.api_views import query_given
from triage.models import Post, PostIssueLink, SavedSearch
from triage.selectors import social as selectors_social


class PostListQuerySerializer(serializers.Serializer):
    search = serializers.IntegerField(required=False, help_text="saved search id")
    sentiment = serializers.ChoiceField(
        choices=selectors_social.SENTIMENTS, required=False, allow_blank=True
    )
    since = serializers.DateTimeField(required=False, help_text="ISO 8601; posts created since")
    component = serializers.CharField(required=False, max_length=100)


class PostSerializer(serializers.ModelSerializer):
    id = serializers.CharField(source="external_id")
    author = serializers.CharField(source="author.login", default=None, allow_null=True)
    url = serializers.CharField()
    linked_issues = serializers.SerializerMethodField()
    searches = serializers.SerializerMethodField()
    sentiment_decided = serializers.SerializerMethodField(
        help_text="a triager set the sentiment (its confidence is then 1)"
    )

    class Meta:
        model = Post
        fields = [
            "id",
            "text",
            "author",
            "created_at",
            "lang",
            "sentiment",
            "sentiment_confidence",
            "sentiment_decided",
            "mentions",
            "url",
            "linked_issues",
            "searches",
        ]

    def get_linked_issues(self, post) -> list[dict]:
        return [
            {
                "issue": f"{link.issue.repository.full_name}#{link.issue.number}",
                "kind": link.kind,
                "status": link.status,
                "score": link.score,
            }
            for link in post.issue_links.all()
        ]

    def get_sentiment_decided(self, post) -> bool:
        return post.sentiment_corrected_at is not None

    def get_searches(self, post) -> list[str]:
        return [search.name for search in post.searches.all()]


class PostSummarySerializer(PostSerializer):
    class Meta(PostSerializer.Meta):
        fields = ["id", "text", "author", "created_at", "sentiment", "url"]


class LinkedPostSerializer(serializers.ModelSerializer):
    post = PostSummarySerializer()

    class Meta:
        model = PostIssueLink
        fields = ["kind", "status", "score", "post"]


class PostListView(generics.ListAPIView):
    serializer_class = PostSerializer

    def get_queryset(self):
        query = PostListQuerySerializer(data=query_given(self.request.query_params))
        query.is_valid(raise_exception=True)
        data = query.validated_data
        search_id = data.get("search")
        if search_id is not None and not SavedSearch.objects.filter(pk=search_id).exists():
            raise NotFound(f"No saved search {search_id}.")  # as an unknown id in a path is
        return selectors_social.post_list(
            search_id=search_id,
            sentiment=data.get("sentiment", ""),
            since=data.get("since"),
            component=data.get("component", ""),
        )

    @extend_schema(
        parameters=[
            OpenApiParameter("search", int, description="saved search id"),
            OpenApiParameter("sentiment", str, enum=selectors_social.SENTIMENTS),
            OpenApiParameter("since", str, description="ISO 8601 date-time"),
            OpenApiParameter("component", str),
            OpenApiParameter("page", int),
        ],
        summary="X posts, newest first, with their sentiment, searches and linked issues",
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)
