"""``metalwire db upgrade|current|check`` through the real program, on each database."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from sqlalchemy import create_engine
from sqlalchemy.orm import Session

from metalwire.db import migrations
from metalwire.db.models import Node, Port, Portgroup, VifAttachment
from tests.cli.conftest import Result, clean_env, run_metalwire
from tests.conftest import DATABASES


def db(*args: str, url: str) -> Result:
    return run_metalwire("db", *args, "--database", url, env=clean_env())


def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'metalwire.db'}"


def test_upgrade_says_from_which_revision_to_which(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path)
    head = migrations.head_revision(create_engine(url))
    (tmp_path / "metalwire.db").touch()  # a file without a schema (db current makes none)
    none = db("current", url=url)
    assert none.code == 1
    assert none.stdout.startswith(f"no schema on {url}: run 'metalwire db upgrade'")

    first = db("upgrade", url=url)
    assert (first.code, first.stdout) == (
        0,
        f"schema upgraded from no schema to revision {head} on {url}\n",
    )
    again = db("upgrade", url=url)
    assert again.stdout == f"schema already at revision {head} (the newest) on {url}\n"
    assert db("current", url=url).stdout == f"revision {head} (the newest) on {url}\n"


def test_upgrade_from_an_older_revision_names_both(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path)
    engine = create_engine(url)
    migrations.upgrade(engine, "0003")
    head = migrations.head_revision(engine)
    engine.dispose()
    behind = db("current", url=url)
    assert behind.stdout == (
        f"revision 0003 (behind {head}: run 'metalwire db upgrade') on {url}\n"
    )
    checked = db("check", url=url)
    assert checked.code == 1
    assert f"problem: the schema is at revision 0003, not {head}" in checked.stdout
    upgraded = db("upgrade", url=url)
    assert upgraded.stdout == f"schema upgraded from revision 0003 to revision {head} on {url}\n"


def _node(session: Session, name: str) -> Node:
    node = Node(
        uuid=str(uuid.uuid4()),
        name=name,
        driver="fake-hardware",
        network_interface="noop",
        provision_state="enroll",
    )
    session.add(node)
    session.flush()
    return node


def test_check_names_each_row_that_breaks_a_rule(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path)
    assert db("upgrade", url=url).code == 0
    clean = db("check", url=url)
    assert (clean.code, clean.stdout) == (0, f"schema and rows keep every rule on {url}\n")

    # Plain SQLite connections do not enforce foreign keys: rows a restored dump could hold.
    engine = create_engine(url)
    with Session(engine) as session:
        a, b = _node(session, "a"), _node(session, "b")
        b.attrs = {"chassis_uuid": "5a4b8e3c-1d2f-4a6b-9c8d-7e6f5a4b3c2d"}
        bond = Portgroup(uuid=str(uuid.uuid4()), node_id=b.id, address="52:54:00:00:00:0b")
        session.add(bond)
        session.flush()
        crossed = Port(
            uuid=str(uuid.uuid4()),
            node_id=a.id,
            portgroup_id=bond.id,
            address="52:54:00:00:00:01",
        )
        shouting = Port(uuid=str(uuid.uuid4()), node_id=a.id, address="52:54:00:00:00:AA")
        orphan = Port(uuid=str(uuid.uuid4()), node_id=999, address="52:54:00:00:00:02")
        session.add_all([crossed, shouting, orphan])
        session.flush()
        session.add(VifAttachment(vif_id="vif-x", node_id=b.id, port_id=shouting.id))
        a.attrs = {"allocation_uuid": "0b5c1b52-5c3e-4c4e-9a55-6c1d7f0e2a11"}  # none such
        session.commit()
        ids = (crossed.uuid, shouting.uuid, orphan.uuid, bond.uuid, b.uuid, a.uuid)
    engine.dispose()

    checked = db("check", url=url)
    crossed_id, shouting_id, orphan_id, bond_id, node_b, node_a = ids
    assert checked.code == 1
    assert sorted(checked.stdout.splitlines()) == sorted(
        [
            f"problem: port {crossed_id}: its portgroup {bond_id} is on another node",
            f"problem: port {shouting_id}: address '52:54:00:00:00:AA' is not a lower-case "
            "MAC address",
            f"problem: port {orphan_id}: its node (id 999) does not exist",
            f"problem: VIF vif-x: its port {shouting_id} is on another node",
            f"problem: node {node_b}: its chassis 5a4b8e3c-1d2f-4a6b-9c8d-7e6f5a4b3c2d does "
            "not exist",
            f"problem: node {node_a}: its allocation 0b5c1b52-5c3e-4c4e-9a55-6c1d7f0e2a11 "
            "does not hold it",
        ]
    )
    assert checked.stderr == f"6 problem(s) on {url}\n"


@pytest.mark.parametrize("name", ["postgresql", "mariadb"])
def test_current_and_check_on_the_server_databases(
    request: pytest.FixtureRequest, name: str
) -> None:
    if name not in DATABASES:
        pytest.skip(f"METALWIRE_TEST_DATABASES leaves out {name}")
    url = request.getfixturevalue(f"{name}_url")
    shown = url.split("@")[-1]  # the password is hidden in what the commands print
    current = db("current", url=url)
    assert current.code == 0, current.stderr
    assert "(the newest)" in current.stdout and shown in current.stdout
    assert db("upgrade", url=url).stdout.startswith("schema already at revision")
    checked = db("check", url=url)
    assert checked.code == 0, checked.stdout + checked.stderr
    assert checked.stdout.startswith("schema and rows keep every rule on ")


def test_upgrade_of_a_new_postgresql_database_starts_from_no_schema(
    request: pytest.FixtureRequest,
) -> None:
    if "postgresql" not in DATABASES:
        pytest.skip("METALWIRE_TEST_DATABASES leaves out postgresql")
    server = request.getfixturevalue("postgres_server")
    url = server.create_database(f"dbcmd_{uuid.uuid4().hex[:8]}")
    upgraded = db("upgrade", url=url)
    assert upgraded.code == 0, upgraded.stderr
    assert upgraded.stdout.startswith("schema upgraded from no schema to revision ")
    assert db("check", url=url).code == 0


@pytest.mark.parametrize("action", ["current", "check"])
def test_current_and_check_create_no_database_where_there_is_none(
    tmp_path: Path, action: str
) -> None:
    """A mistyped --data-dir is reported, and leaves no directory nor SQLite file behind
    (for a later ``metalwire serve`` or ``db upgrade`` there to start from)."""
    mistyped = tmp_path / "metalwrie-data"
    run = run_metalwire("db", action, "--data-dir", str(mistyped), env=clean_env())
    assert run.code == 1, run.stderr
    assert run.stdout == ""
    assert run.stderr.startswith(
        f"metalwire: no database at {mistyped / 'metalwire.db'}: the file does not exist"
    )
    assert not mistyped.exists()
    by_url = db(action, url=sqlite_url(mistyped))
    assert by_url.code == 1 and "the file does not exist" in by_url.stderr
    assert not mistyped.exists()
