"""Cross-site requests against a real ``metalwire serve`` in http_basic mode.

A page in an operator's browser can send what a form sends (or a body-less ``fetch``), with
the Basic credentials the browser has cached: metalwire's own writes refuse it with a 415,
and a GET of the audit only reads the latest report. A write the browser marks as sent by
another site's page is a 403 on every path.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.auth.conftest import htpasswd_line
from tests.cli.conftest import clean_env, run_metalwire
from tests.conftest import fault
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.server

AUDIT = "/v1/metalwire/audit"
OPERATOR = ("operator", "cached-in-the-browser")


@pytest.fixture(scope="module")
def operator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    """A client holding the operator's Basic credentials, as a browser caches them."""
    root = tmp_path_factory.mktemp("cross-site")
    users = root / "htpasswd"
    users.write_text(htpasswd_line(*OPERATOR) + "\n")
    env = {
        "METALWIRE_AUTH_STRATEGY": "http_basic",
        "METALWIRE_HTTP_BASIC_AUTH_USER_FILE": str(users),
    }
    with (
        MetalwireServer(root / "data", env=env) as server,
        httpx.Client(base_url=server.url, auth=OPERATOR, timeout=30) as client,
    ):
        yield client


# What a form (or a body-less fetch) can send: its content type and body.
FORM_REQUESTS = {
    "no-body": {},
    "urlencoded": {"data": {"confirm": "yes"}},
    "multipart": {"files": {"f": ("a.txt", b"x")}},
    "text-plain": {"content": b'{"a": "="}', "headers": {"Content-Type": "text/plain"}},
}


@pytest.mark.parametrize("path", [AUDIT, AUDIT + "/repair"])
@pytest.mark.parametrize("form", list(FORM_REQUESTS))
def test_a_form_post_to_a_metalwire_write_is_refused_415(
    operator: httpx.Client, path: str, form: str
) -> None:
    resp = operator.post(path, **FORM_REQUESTS[form])  # type: ignore[arg-type]
    assert resp.status_code == 415, resp.text
    message = fault(resp)
    assert message.startswith(f"POST {path} takes a JSON body (Content-Type: application/json)")
    assert "a browser form cannot send" in message


@pytest.mark.parametrize("body", [{}, None])
def test_a_json_post_passes_the_guard(operator: httpx.Client, body: dict[str, str] | None) -> None:
    # Past the guard the audit itself answers: this server has no Neutron to compare with.
    headers = {"Content-Type": "application/json"}
    content = b"" if body is None else b"{}"
    for path in (AUDIT, AUDIT + "/repair"):
        resp = operator.post(path, content=content, headers=headers)
        assert resp.status_code == 400, resp.text
        assert "no Neutron endpoint is configured" in fault(resp)


def test_a_get_of_the_audit_reads_the_latest_report_and_runs_nothing(
    operator: httpx.Client,
) -> None:
    # Running an audit needs Neutron (a 400 here); reading the latest report does not.
    for path in (AUDIT, AUDIT + "/latest"):
        resp = operator.get(path)
        assert resp.status_code == 200, resp.text
        empty = {"checked_at": None, "nodes_checked": 0, "findings": [], "not_checked": []}
        assert resp.json() == empty


def test_without_credentials_a_form_post_is_401_first(operator: httpx.Client) -> None:
    resp = httpx.post(f"{operator.base_url}{AUDIT}/repair", data={"a": "b"}, timeout=30)
    assert resp.status_code == 401


def test_a_form_post_to_an_ironic_route_is_refused_as_before(operator: httpx.Client) -> None:
    resp = operator.post("/v1/nodes", **FORM_REQUESTS["text-plain"])  # type: ignore[arg-type]
    assert resp.status_code == 400, resp.text
    assert "must be JSON" in fault(resp)


def test_the_cli_reads_runs_and_repairs_through_json(operator: httpx.Client) -> None:
    # The credentials in the URL's user part, which the client's transport sends as Basic.
    url = str(operator.base_url).replace("http://", "http://{}:{}@".format(*OPERATOR))
    env = clean_env(METALWIRE_URL=url)
    latest = run_metalwire("audit", "--latest", env=env)
    assert latest.code == 0, latest.stderr
    assert "No audit has run yet." in latest.stderr
    for args in (("audit",), ("audit", "--repair")):
        ran = run_metalwire(*args, env=env)
        assert ran.code == 1, ran.stderr
        assert "no Neutron endpoint is configured" in ran.stderr, ran.stderr


# What a page's ``fetch(url, {method: "POST", mode: "no-cors", credentials: "include",
# body: new Blob([json])})`` sends: an untyped body, which the Ironic routes read as JSON, and
# the Sec-Fetch-Site header the browser sets and the page cannot change.
# The page cannot name a microversion either: its requests are served as 1.1.
UNTYPED_NODE = b'{"driver": "fake-hardware", "extra": {"tag": "planted-by-a-page"}}'


def _nodes_named(operator: httpx.Client, name: str) -> list[str]:
    """The nodes whose extra/tag is ``name``."""
    resp = operator.get("/v1/nodes/detail")
    assert resp.status_code == 200, resp.text
    return [n["uuid"] for n in resp.json()["nodes"] if n["extra"].get("tag") == name]


@pytest.mark.parametrize("site", ["cross-site", "same-site"])
def test_a_write_a_page_of_another_site_sent_is_refused_and_does_nothing(
    operator: httpx.Client, site: str
) -> None:
    headers = {"Sec-Fetch-Site": site, "Sec-Fetch-Mode": "no-cors"}

    resp = operator.post("/v1/nodes", content=UNTYPED_NODE, headers=headers)

    assert resp.status_code == 403, resp.text
    assert fault(resp) == (
        f"POST /v1/nodes was sent by a page of another site (Sec-Fetch-Site: {site}); "
        "metalwire takes no state-changing request from another site's page."
    )
    assert _nodes_named(operator, "planted-by-a-page") == []
    # also in front of the VIF endpoints and metalwire's own writes
    for path in ("/v1/nodes/any/vifs", AUDIT):
        other = operator.post(path, content=b'{"id": "v"}', headers=headers)
        assert other.status_code == 403, other.text


@pytest.mark.parametrize("site", [None, "same-origin", "none"])
def test_an_untyped_write_from_a_client_or_the_same_origin_is_served(
    operator: httpx.Client, site: str | None
) -> None:
    # An API client sends no Sec-Fetch-Site; a page of this server's own origin, or a request
    # the operator typed, is no other site's.
    name = f"node-of-{site or 'a-client'}"
    body = UNTYPED_NODE.replace(b"planted-by-a-page", name.encode())
    headers = {"Sec-Fetch-Site": site} if site else {}

    resp = operator.post("/v1/nodes", content=body, headers=headers)

    assert resp.status_code == 201, resp.text
    assert _nodes_named(operator, name) == [resp.json()["uuid"]]
