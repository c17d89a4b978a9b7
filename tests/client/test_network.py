"""The client's network transport: TLS prepared only for an https endpoint, verified there."""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from metalwire.client import Client, RetryPolicy
from metalwire.client.exceptions import APIConnectionError
from tests.support.server import MetalwireServer, noauth_https_server, self_signed_certificate

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
    with noauth_https_server(tmp_path_factory.mktemp("client-tls")) as found:
        yield found


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


def test_verify_and_cert_set_the_tls_of_an_https_endpoint(
    tls_server: tuple[str, Path], tmp_path: Path
) -> None:
    url, cafile = tls_server
    with Client(url, retry=NO_RETRIES, verify=str(cafile)) as client:
        assert client.list_nodes() is not None
    with Client(url, retry=NO_RETRIES, verify=False) as client:
        assert client.list_nodes() is not None
    other_ca = self_signed_certificate(tmp_path)[0]
    with (
        Client(url, retry=NO_RETRIES, verify=str(other_ca)) as client,
        pytest.raises(APIConnectionError) as refused,
    ):
        client.list_nodes()
    assert "CERTIFICATE_VERIFY_FAILED" in str(refused.value)


def test_tls_files_that_cannot_be_used_raise_value_error(tmp_path: Path) -> None:
    missing = tmp_path / "missing.pem"
    with pytest.raises(ValueError, match=f"cannot use the CA bundle {missing}: .Errno 2"):
        Client("https://127.0.0.1:1", verify=str(missing))
    not_pem = tmp_path / "empty.pem"
    not_pem.write_text("")
    with pytest.raises(ValueError, match=f"cannot use the client certificate {not_pem}: "):
        Client("https://127.0.0.1:1", cert=str(not_pem))
    with pytest.raises(ValueError, match="give them to the transport or session"):
        Client("https://127.0.0.1:1", verify=False, transport=httpx.MockTransport(print))
