def test_it_documents_the_issue_endpoints(api_client):
    response = api_client.get("/api/schema/", {"format": "json"})

    assert response.status_code == 200
    schema = response.json()
    paths = schema["paths"]
    assert "/api/issues/" in paths
    assert "/api/issues/{owner}/{name}/{number}/" in paths
    parameters = {p["name"]: p for p in paths["/api/issues/"]["get"]["parameters"]}
    assert {"repo", "state", "is_pull_request", "page"} <= set(parameters)
    assert parameters["state"]["schema"]["enum"] == ["all", "closed", "open"]


def test_it_serves_the_docs_page(logged_in_client):
    assert logged_in_client.get("/api/docs/").status_code == 200


def test_the_schema_needs_a_login_or_token(client):
    assert client.get("/api/schema/").status_code in (401, 403)


def test_the_docs_page_loads_swagger_from_our_static_files(logged_in_client):
    page = logged_in_client.get("/api/docs/").content.decode()
    assert "cdn.jsdelivr.net" not in page
    assert "/static/drf_spectacular_sidecar/" in page
