"""The client's network transport: TLS prepared only for an https endpoint, verified there."""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest

from metalwire.client import Client, RetryPolicy
from metalwire.client.exceptions import APIConnectionError
from tests.support.server import MetalwireServer, self_signed_certificate

NO_RETRIES = RetryPolicy(max_retries=0)


@pytest.fixture
def contexts_made(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The CA files TLS contexts were made with while the test ran (httpx's default one
    loads its CA bundle with ``load_verify_locations``)."""
    made: list[str] = []
    load = ssl.SSLContext.load_verify_locations

    def counted(self: ssl.SSLContext, cafile: str | None = None, *args: object) -> None:
        made.append(str(cafile))
        load(self, cafile, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", counted)
    return made


def test_a_client_of_an_http_endpoint_reads_no_ca_bundle(
    server: MetalwireServer, contexts_made: list[str]
) -> None:
    with Client(server.url, retry=NO_RETRIES) as client:
        assert client.list_nodes() is not None
        assert client.api_version.minor >= 28
    assert contexts_made == []


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    root = tmp_path_factory.mktemp("client-tls")
    tls = self_signed_certificate(root)
    with MetalwireServer(root / "data", tls=tls) as server:
        yield server.url, tls[0]


def test_an_https_endpoint_is_verified_against_the_ca_bundle(
    tls_server: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, cafile = tls_server
    assert url.startswith("https://")
    with Client(url, retry=NO_RETRIES) as client, pytest.raises(APIConnectionError) as refused:
        client.list_nodes()
    assert "CERTIFICATE_VERIFY_FAILED" in str(refused.value)
    monkeypatch.setenv("SSL_CERT_FILE", str(cafile))  # httpx trusts it, as it always did
    with Client(url, retry=NO_RETRIES) as client:
        assert client.list_nodes() is not None
