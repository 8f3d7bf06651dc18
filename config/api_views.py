"""What several apps' REST API views share."""

from __future__ import annotations

from rest_framework import generics


class SelectorListView(generics.ListAPIView):
    """A paginated list answered by a selector: the query string is validated by
    `query_serializer` (400 naming the bad parameter) and its values are the selector's keywords.

    A subclass sets serializer_class, query_serializer and `selector = staticmethod(function)`.
    """

    query_serializer: type
    selector = None

    def get_queryset(self):
        query = self.query_serializer(data=self.request.query_params.dict())
        query.is_valid(raise_exception=True)
        return self.selector(**query.validated_data)
