"""TLS to Neutron: ``cafile`` verifies the server, ``certfile``/``keyfile`` present a client
certificate, ``insecure`` turns verification off; against a loopback HTTPS fake Neutron."""

from __future__ import annotations

import shutil
import ssl
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from metalwire.config import NeutronOptions
from metalwire.errors import Invalid, NetworkError
from metalwire.networking.neutron_client import NeutronClient
from tests.support.fake_http import FakeHttp, Received

PORT_ID = "6a8ec5ab-1d82-49fb-8468-d8cc5a45dae3"


def self_signed(directory: Path, name: str) -> tuple[Path, Path]:
    cert, key = directory / f"{name}.pem", directory / f"{name}.key"
    openssl = shutil.which("openssl")
    assert openssl, "the TLS tests need the openssl command"
    subprocess.run(
        [
            *(openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-keyout", str(key), "-out", str(cert), "-subj", f"/CN={name}"),
            *("-addext", "subjectAltName=IP:127.0.0.1"),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path]]:
    directory = tmp_path_factory.mktemp("pki")
    return {name: self_signed(directory, name) for name in ("server", "client")}


@pytest.fixture
def neutron(pki: dict[str, tuple[Path, Path]]) -> Iterator[FakeHttp]:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*pki["server"])
    context.verify_mode = ssl.CERT_REQUIRED  # the client must show its certificate
    context.load_verify_locations(cafile=str(pki["client"][0]))

    def answer(request: Received) -> tuple[int, dict[str, str], dict[str, Any]]:
        return 200, {}, {"port": {"id": PORT_ID}}

    with FakeHttp(answer, tls=context) as fake:
        yield fake


def client(neutron: FakeHttp, **options: Any) -> NeutronClient:
    opts = NeutronOptions(endpoint_override=neutron.url, status_code_retries=0)
    for key, value in options.items():
        setattr(opts, key, value)
    return NeutronClient(opts)


def test_cafile_verifies_the_server_and_certfile_is_presented(
    neutron: FakeHttp, pki: dict[str, tuple[Path, Path]]
) -> None:
    cert, key = pki["client"]
    verified = client(neutron, cafile=str(pki["server"][0]), certfile=str(cert), keyfile=str(key))
    assert verified.get_port(PORT_ID).id == PORT_ID
    verified.close()


def test_a_server_the_cafile_does_not_vouch_for_is_refused(
    neutron: FakeHttp, pki: dict[str, tuple[Path, Path]]
) -> None:
    cert, key = pki["client"]
    unverified = client(neutron, cafile=str(cert), certfile=str(cert), keyfile=str(key))
    with pytest.raises(NetworkError, match="CERTIFICATE_VERIFY_FAILED") as caught:
        unverified.get_port(PORT_ID)
    unverified.close()
    assert caught.value.code == 503


def test_insecure_skips_verification(neutron: FakeHttp, pki: dict[str, tuple[Path, Path]]) -> None:
    cert, key = pki["client"]
    trusting = client(neutron, insecure=True, certfile=str(cert), keyfile=str(key))
    assert trusting.get_port(PORT_ID).id == PORT_ID
    trusting.close()


def test_a_missing_cafile_is_invalid_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "nope.pem"
    with pytest.raises(Invalid, match=rf"\[neutron\] TLS files cannot be used \(cafile {missing}"):
        NeutronClient(NeutronOptions(endpoint_override="https://n", cafile=str(missing)))
