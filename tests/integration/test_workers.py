"""``metalwire serve`` with ``[api] api_workers``: several server processes on one port."""

from __future__ import annotations

import http.client
import os
import signal
import socket
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.integration.invariants import HEADERS, vif_placement
from tests.integration.test_concurrency import make_node
from tests.integration.test_scale_out import run_owned_vifs
from tests.support.server import MetalwireServer
from tests.support.worker_processes import serving_pids, workers_of

pytestmark = [pytest.mark.server]

WORKERS = 3
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def wait_for(predicate: object, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return
        time.sleep(0.1)
    raise AssertionError(f"not within {seconds} s: {what}")


def vif_requests_counted(client: httpx.Client) -> float:
    """The VIF requests /metrics has counted, summed over its series."""
    text = client.get("/metrics", headers=HEADERS).text
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("metalwire_http_requests_total{") and "/vifs" in line
    )


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgresql)])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MetalwireServer]:
    database = None
    if request.param == "postgresql":
        database = request.getfixturevalue("postgres_server").create_database("workers")
    env = {"METALWIRE_API_API_WORKERS": str(WORKERS)}
    with MetalwireServer(tmp_path / "data", database=database, env=env) as started:
        assert started.process is not None
        wait_for(lambda: len(workers_of(started.process.pid)) == WORKERS, 30, "3 workers")  # type: ignore[union-attr]
        yield started


@pytest.mark.slow
def test_workers_share_the_port_the_load_and_the_metrics_and_lose_nothing(
    server: MetalwireServer,
) -> None:
    assert server.process is not None
    workers = workers_of(server.process.pid)
    with httpx.Client(base_url=server.url, timeout=30) as client:
        nodes = [make_node(client, 4, prefix=0xD0 + i) for i in range(6)]
        counted_before = vif_requests_counted(client)
    cpu_before = {pid: cpu_seconds(pid) for pid in workers}
    # 12 clients, each request on a new connection, which the kernel gives to one of the
    # workers' sockets.
    fresh = httpx.Limits(max_keepalive_connections=0)
    expected, counts = run_owned_vifs([server.url], nodes, 8, workers=12, limits=fresh)
    busy = [pid for pid in workers if cpu_seconds(pid) - cpu_before[pid] > 0.2]
    assert len(busy) >= 2, f"only {busy} of {workers} answered: {counts}"
    with httpx.Client(base_url=server.url, timeout=30) as client:
        # Whichever worker answers the scrape counts every worker's requests.
        assert vif_requests_counted(client) - counted_before == sum(counts.values())
        placement = vif_placement(client)
    lost = [v for v, node in expected.items() if node and placement.get(v) != [node]]
    extra = [v for v, nodes in placement.items() if expected.get(v) is None or len(nodes) > 1]
    assert lost == [] and extra == [], f"lost {lost}, duplicated {extra}; calls {counts}"
    assert counts.get("attach 204", 0) > 20, counts


def test_connections_opened_together_are_spread_over_the_workers(tmp_path: Path) -> None:
    # Clients keep their connections open: those opened in a burst stay where they landed.
    with MetalwireServer(tmp_path / "data", args=["--workers", "2"]) as server:
        assert server.process is not None
        wait_for(lambda: server.log().count("serving (pid") == 2, 60, "2 workers serving")
        workers = workers_of(server.process.pid)
        opened = [http.client.HTTPConnection("127.0.0.1", server.port) for _ in range(64)]
        try:
            # A burst that arrives while one worker is busy: all 64 wait to be accepted, and
            # the other worker comes round to them first.
            for pid in workers:
                os.kill(pid, signal.SIGSTOP)
            try:
                for connection in opened:
                    connection.connect()
                os.kill(workers[0], signal.SIGCONT)
                time.sleep(0.5)
            finally:
                for pid in workers:
                    os.kill(pid, signal.SIGCONT)
            for connection in opened:
                connection.request("GET", "/v1/nodes", headers=HEADERS)
                assert connection.getresponse().read() and connection.sock is not None
            ports = [c.sock.getsockname()[1] for c in opened]  # type: ignore[union-attr]
            held = Counter(serving_pids(server.port, ports, workers).values())
        finally:
            for connection in opened:
                connection.close()
    # Spread by a hash of the client's port: below 16 of 64 one time in 50,000.
    assert sum(held.values()) == 64 and min(held[pid] for pid in workers) >= 16, held


def test_a_killed_worker_is_replaced_and_sigterm_stops_them_all(tmp_path: Path) -> None:
    with MetalwireServer(tmp_path / "data", args=["--workers", "2"]) as server:
        assert server.process is not None
        supervisor = server.process.pid
        wait_for(lambda: len(workers_of(supervisor)) == 2, 30, "2 workers")
        victim, survivor = workers_of(supervisor)
        os.kill(victim, signal.SIGKILL)
        # Once it has ended (its socket closed with it) the other worker answers meanwhile,
        # each request on a new connection. Ended means reaped by the supervisor: a killed
        # process's main thread is a zombie while its other threads still exit, holding its
        # files (the socket, which resets what the kernel queued on it); the supervisor reaps
        # it once every thread is gone.
        ended = f"(pid {victim}) ended with signal SIGKILL"
        wait_for(lambda: ended in server.log(), 10, f"worker {victim} ends")
        for _ in range(20):
            assert httpx.get(server.url + "/v1/nodes", headers=HEADERS).status_code == 200
        wait_for(lambda: len(workers_of(supervisor)) == 2, 60, "a new worker")
        assert survivor in workers_of(supervisor) and victim not in workers_of(supervisor)
        assert "[api] api_workers is 2 on SQLite: the workers take turns" in server.log()
        both = workers_of(supervisor)
        os.kill(supervisor, signal.SIGTERM)
        assert server.process.wait(30) == 0
        wait_for(lambda: not any(Path(f"/proc/{pid}").exists() for pid in both), 10, "exits")


def test_workers_stop_when_their_supervisor_is_killed_and_the_next_cleans_up(
    tmp_path: Path,
) -> None:
    temporary = tmp_path / "tmp"  # where the supervisors make the directories they share
    temporary.mkdir()
    env = {"METALWIRE_API_API_WORKERS": "2", "TMPDIR": str(temporary)}
    with MetalwireServer(tmp_path / "data", env=env) as server:
        assert server.process is not None
        wait_for(lambda: len(workers_of(server.process.pid)) == 2, 30, "2 workers")  # type: ignore[union-attr]
        workers = workers_of(server.process.pid)
        os.kill(server.process.pid, signal.SIGKILL)
        server.process.wait(10)
        gone = lambda: not any(Path(f"/proc/{pid}").exists() for pid in workers)  # noqa: E731
        wait_for(gone, 15, f"workers {workers} stop")
    [left] = list(temporary.iterdir())  # a SIGKILL leaves the supervisor no time to clean up
    with MetalwireServer(tmp_path / "data", env=env) as server:
        assert server.process is not None
        wait_for(lambda: len(workers_of(server.process.pid)) == 2, 30, "2 workers")  # type: ignore[union-attr]
        [own] = list(temporary.iterdir())  # the killed server's is gone, its own kept
        assert own != left and (own / "supervisor.lock").exists()
        assert f"removed {left}, left by a server that was killed" in server.log()
    assert list(temporary.iterdir()) == []  # stopped, it removes its own


def test_a_sighup_while_workers_start_waits_for_them(tmp_path: Path) -> None:
    env = {"METALWIRE_API_API_WORKERS": "2"}
    server = MetalwireServer(tmp_path / "data", env=env)
    server.start_process()
    try:
        assert server.process is not None
        # Both workers are importing metalwire: a SIGHUP would end them by default.
        wait_for(lambda: "worker 1 started" in server.log(), 30, "the workers' start")
        os.kill(server.process.pid, signal.SIGHUP)
        wait_for(lambda: server.log().count("serving (pid") == 2, 60, "2 workers serving")
        assert "ended with" not in server.log()
        assert httpx.get(server.url + "/v1/nodes", headers=HEADERS).status_code == 200
    finally:
        server.stop()


def test_a_worker_started_again_keeps_the_configuration_the_server_started_with(
    tmp_path: Path,
) -> None:
    config = tmp_path / "metalwire.conf"
    config.write_text("[api]\napi_workers = 2\n")
    with MetalwireServer(tmp_path / "data", config=config) as server:
        assert server.process is not None
        supervisor = server.process.pid
        # Both serving before one is killed (a worker killed while it starts logs no line).
        wait_for(lambda: server.log().count("serving (pid") == 2, 60, "2 workers serving")
        config.write_text("[api]\napi_workers = 2\n[DEFAULT]\nauth_strategy = nosuch\n")
        os.kill(workers_of(supervisor)[0], signal.SIGKILL)
        wait_for(lambda: server.log().count("serving (pid") == 3, 60, "a new worker serving")
        assert server.process.poll() is None
        assert httpx.get(server.url + "/v1/nodes", headers=HEADERS).status_code == 200


def test_workers_that_cannot_start_stop_the_server_with_their_status(tmp_path: Path) -> None:
    from tests.cli.test_tbn_command import BAD, GOOD

    rules = tmp_path / "tbn.yaml"
    rules.write_text(GOOD)
    env = {
        "METALWIRE_API_API_WORKERS": "2",
        "METALWIRE_CONDUCTOR_ENABLE_TRAIT_BASED_NETWORKING": "true",
        "METALWIRE_CONDUCTOR_TRAIT_BASED_NETWORKING_CONFIG_FILE": str(rules),
    }
    with MetalwireServer(tmp_path / "data", env=env) as server:
        assert server.process is not None
        supervisor = server.process.pid
        wait_for(lambda: len(workers_of(supervisor)) == 2, 30, "2 workers")
        rules.write_text(BAD)  # each new worker reads the rules file, and refuses it
        for pid in workers_of(supervisor):
            os.kill(pid, signal.SIGKILL)
        assert server.process.wait(240) == 2  # three starts of each worker, on a loaded machine
        log = server.log()
        assert "worker 0 cannot start: trait-based networking file" in log
        assert "every worker failed 3 starts in a row: stopping" in log
        assert "starting another in 2 s" in log  # the delay grows


def test_serve_refuses_fewer_than_one_worker_naming_the_option(tmp_path: Path) -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "metalwire.cli.main", "serve", "--workers", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env={k: v for k, v in os.environ.items() if not k.startswith("METALWIRE_")},
    )
    assert done.returncode == 2
    assert "[api] api_workers: 0 is below the minimum 1" in done.stderr


@pytest.mark.parametrize("workers", [1, 2])
def test_an_empty_host_ip_serves_every_address_with_workers_as_without(
    tmp_path: Path, workers: int
) -> None:
    # host_ip "" is every IPv4 and every IPv6 address: asyncio binds one socket for each
    # when one process serves, and each worker binds its own two.
    if not socket.has_ipv6 or not _loopback_ipv6():
        pytest.skip("this machine has no IPv6 loopback address")
    env = {"METALWIRE_API_ALLOW_INSECURE_NOAUTH": "true"}
    args = ["--host", "", "--workers", str(workers)]
    with MetalwireServer(tmp_path / "data", env=env, args=args) as server:
        assert server.process is not None
        if workers > 1:
            wait_for(lambda: server.log().count("serving (pid") == workers, 60, "workers serving")
        for address in ("127.0.0.1", "[::1]"):
            url = f"http://{address}:{server.port}/v1/nodes"
            assert httpx.get(url, headers=HEADERS).status_code == 200, address


def _loopback_ipv6() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True
