"""Drives the real Nova ironic driver against a metalwire server, one command per line.

Run by the Python of the Nova venv (scripts/install-nova), never imported by pytest:

    .venv-nova/bin/python tests/nova/nova_driver.py http://127.0.0.1:PORT

Each line read on stdin is a JSON command ``{"op": ..., ...}``; each answer is one JSON line
``{"ok": true, "result": ...}`` or ``{"ok": false, "error": "<exception class>", "message":
...}``. Only Nova's own infrastructure is replaced (its database-backed object saves and
lookups, the virt API, the security group lookup of the metadata builder); every call the
driver makes to the Bare Metal API goes over HTTP to the server, through openstacksdk.
"""

from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path
from typing import Any
from unittest import mock

import nova.conf
from nova import context as nova_context
from nova import objects
from nova.compute import task_states, vm_states
from nova.network import model as network_model
from nova.tests.unit import fake_instance
from nova.virt import driver as virt_driver
from nova.virt.ironic import driver as ironic_driver

CONF = nova.conf.CONF
HERE = Path(__file__).resolve().parent


def configure(
    url: str, host: str, shard: str | None = None, conductor_group: str | None = None
) -> None:
    CONF([], project="nova", default_config_files=[])
    CONF.set_override("host", host)
    if shard:
        CONF.set_override("shard", shard, group="ironic")
    if conductor_group is not None:
        CONF.set_override("conductor_group", conductor_group, group="ironic")
        # Nova refuses a conductor group without this service in its peer list.
        CONF.set_override("peer_list", [host], group="ironic")
    CONF.set_override("auth_type", "none", group="ironic")
    CONF.set_override("endpoint_override", url + "/", group="ironic")
    # Polls a provision verb's end: at once where it is done when answered, each second
    # while its steps go on in the background (a neutron node's; Nova's own default is 2 s).
    CONF.set_override("api_retry_interval", 1, group="ironic")
    CONF.set_override("api_max_retries", 60, group="ironic")
    CONF.set_override("force_config_drive", True)
    CONF.set_override("mkisofs_cmd", str(HERE / "fake_mkisofs"))


def vif(vif_id: str, mac: str) -> network_model.VIF:
    network = network_model.Network(id="net-" + vif_id, bridge="br-int", label="tenant")
    return network_model.VIF(
        id=vif_id, address=mac, network=network, type="other", vnic_type="baremetal"
    )


class Session:
    """The driver, the instances it was given, and the Nova infrastructure they need."""

    def __init__(
        self, url: str, host: str, shard: str | None = None, conductor_group: str | None = None
    ) -> None:
        configure(url, host, shard, conductor_group)
        objects.register_all()
        self.context = nova_context.get_admin_context()
        self.driver = ironic_driver.IronicDriver(mock.Mock(name="virtapi"))
        self.instances: dict[str, objects.Instance] = {}
        self.networks: dict[str, list[network_model.VIF]] = {}
        self.host = host

    def _instance(self, uuid: str) -> objects.Instance:
        return self.instances[uuid]

    def new_instance(self, uuid: str, node: str, vifs: list[list[str]]) -> dict[str, Any]:
        flavor = objects.Flavor(
            id=1,
            name="baremetal",
            memory_mb=1024,
            vcpus=2,
            root_gb=10,
            ephemeral_gb=0,
            flavorid="bm",
            swap=0,
            rxtx_factor=1.0,
            vcpu_weight=1,
            disabled=False,
            is_public=True,
            extra_specs={},
            projects=[],
        )
        instance = fake_instance.fake_instance_obj(
            self.context,
            uuid=uuid,
            node=node,
            host=self.host,
            flavor=flavor,
            display_name="vm-" + uuid[:8],
            hostname="vm-" + uuid[:8],
            config_drive="True",
            vm_state=vm_states.BUILDING,
            task_state=task_states.SPAWNING,
            project_id="tenant-1",
            user_id="user-1",
            image_ref="1b2c3d4e-0000-4000-8000-000000000001",
            expected_attrs=["metadata", "system_metadata"],
        )
        instance.metadata, instance.system_metadata = {}, {}
        instance.device_metadata = None
        instance.numa_topology = None
        instance.ec2_ids = objects_ec2_ids()
        instance.info_cache = objects.InstanceInfoCache(
            instance_uuid=uuid, network_info=network_model.NetworkInfo()
        )
        # Nova's database: saves and refreshes keep the object as it is.
        instance.save = mock.Mock(name="save")
        instance.refresh = mock.Mock(name="refresh")
        self.instances[uuid] = instance
        self.networks[uuid] = [vif(vif_id, mac) for vif_id, mac in vifs]
        return {"uuid": uuid}

    def network_info(self, uuid: str) -> network_model.NetworkInfo:
        return network_model.NetworkInfo(self.networks[uuid])

    def image_meta(self) -> objects.ImageMeta:
        return objects.ImageMeta.from_dict(
            {"id": "1b2c3d4e-0000-4000-8000-000000000001", "name": "cirros", "properties": {}}
        )

    def node_is_available(self, node: str) -> bool:
        self.driver.get_available_nodes(refresh=True)
        return bool(self.driver.node_is_available(node))

    def node_resources(self, node: str) -> dict[str, Any]:
        self.driver.get_available_nodes(refresh=True)
        cached = self.driver.node_cache[node]
        return {
            "unavailable": self.driver._node_resources_unavailable(cached),
            "used": self.driver._node_resources_used(cached),
        }

    def prepare_for_spawn(self, uuid: str) -> None:
        self.driver.prepare_for_spawn(self._instance(uuid))

    def prepare_two_for_spawn_at_once(self, first: str, second: str) -> None:
        """Two builds scheduled to one node: both read it while it is still free, then each
        reserves it; the second's reservation is what the Bare Metal API must refuse."""
        node = self.driver._get_node(self._instance(second).node)
        self.driver.prepare_for_spawn(self._instance(first))
        with mock.patch.object(self.driver, "_get_node", return_value=node):
            self.driver.prepare_for_spawn(self._instance(second))

    def block_device_info(self, uuid: str, volumes: list[dict[str, Any]]) -> dict[str, Any]:
        """What the compute manager hands the driver for ``volumes`` attached by Cinder: each
        ``{"volume_id", "boot_index", "driver_volume_type", "data"}``, ``data`` being the
        connection properties Cinder answered for the connector."""
        mappings = [
            objects.BlockDeviceMapping(
                self.context,
                id=number,
                instance_uuid=uuid,
                source_type="volume",
                destination_type="volume",
                boot_index=volume["boot_index"],
                volume_id=volume["volume_id"],
                device_name=f"/dev/sd{chr(ord('a') + number)}",
                delete_on_termination=False,
                device_type="disk",
                disk_bus=None,
                guest_format=None,
                volume_size=10,
                connection_info=json.dumps(
                    {"driver_volume_type": volume["driver_volume_type"], "data": volume["data"]}
                ),
                attachment_id=None,
                encrypted=False,
                volume_type=None,
                tag=None,
                no_device=False,
                snapshot_id=None,
                image_id=None,
            )
            for number, volume in enumerate(volumes)
        ]
        instance = self._instance(uuid)
        info: dict[str, Any] = virt_driver.get_block_device_info(
            instance, objects.BlockDeviceMappingList(objects=mappings)
        )
        return info

    def get_volume_connector(self, uuid: str) -> dict[str, Any]:
        """What Nova hands Cinder to attach a volume to the instance's node."""
        connector: dict[str, Any] = self.driver.get_volume_connector(self._instance(uuid))
        return connector

    def spawn(
        self,
        uuid: str,
        admin_password: str | None = None,
        deleted_while_deploying: bool = False,
        volumes: list[dict[str, Any]] | None = None,
    ) -> None:
        """``deleted_while_deploying``: the user deletes the instance once the deploy has
        started; Nova's next look at the instance, while it waits for ``active``, sees it.
        ``volumes``: the instance boots from (or has attached) these Cinder volumes, as
        :meth:`block_device_info` describes them."""
        instance = self._instance(uuid)
        network_info = self.network_info(uuid)
        if deleted_while_deploying:
            instance.refresh.side_effect = lambda: setattr(
                instance, "task_state", task_states.DELETING
            )
        # The compute manager attaches the VIFs before the block devices, then spawns.
        self.driver.prepare_networks_before_block_device_mapping(instance, network_info)
        self.driver.spawn(
            self.context,
            instance,
            self.image_meta(),
            injected_files=[],
            admin_password=admin_password,
            allocations={},
            network_info=network_info,
            block_device_info=self.block_device_info(uuid, volumes) if volumes else None,
        )
        instance.vm_state, instance.task_state = vm_states.ACTIVE, None

    def get_info(self, uuid: str) -> dict[str, Any]:
        info = self.driver.get_info(self._instance(uuid), use_cache=False)
        return {"state": info.state}

    def reboot(self, uuid: str, kind: str) -> None:
        instance = self._instance(uuid)
        self.driver.reboot(self.context, instance, self.network_info(uuid), kind)

    def power_off(self, uuid: str, timeout: int = 0) -> None:
        self.driver.power_off(self._instance(uuid), timeout=timeout)

    def power_on(self, uuid: str) -> None:
        instance = self._instance(uuid)
        self.driver.power_on(self.context, instance, self.network_info(uuid))

    def rebuild(self, uuid: str) -> None:
        instance = self._instance(uuid)
        instance.task_state = task_states.REBUILDING
        self.driver.rebuild(
            self.context,
            instance,
            self.image_meta(),
            injected_files=[],
            admin_password=None,
            allocations={},
            bdms=None,
            detach_block_devices=None,
            attach_block_devices=None,
            network_info=self.network_info(uuid),
        )
        instance.task_state = None

    def rescue(self, uuid: str, password: str) -> None:
        instance = self._instance(uuid)
        self.driver.rescue(
            self.context, instance, self.network_info(uuid), self.image_meta(), password, None, None
        )

    def unrescue(self, uuid: str) -> None:
        self.driver.unrescue(self.context, self._instance(uuid))

    def serial_console(self, uuid: str) -> dict[str, Any]:
        console = self.driver.get_serial_console(self.context, self._instance(uuid))
        return {"host": console.host, "port": console.port}

    def attach_interface(self, uuid: str, vif_id: str, mac: str) -> None:
        new = vif(vif_id, mac)
        self.driver.attach_interface(self.context, self._instance(uuid), self.image_meta(), new)
        self.networks[uuid].append(new)

    def detach_interface(self, uuid: str, vif_id: str) -> None:
        gone = next(v for v in self.networks[uuid] if v["id"] == vif_id)
        self.driver.detach_interface(self.context, self._instance(uuid), gone)
        self.networks[uuid].remove(gone)

    def destroy(self, uuid: str) -> None:
        instance = self._instance(uuid)
        instance.task_state = task_states.DELETING
        self.driver.destroy(self.context, instance, self.network_info(uuid))

    def failed_spawn_cleanup(self, uuid: str) -> None:
        self.driver.failed_spawn_cleanup(self._instance(uuid))

    def list_instance_uuids(self) -> list[str]:
        return sorted(self.driver.list_instance_uuids())

    def available_nodes(self) -> list[str]:
        """The nodes this compute service manages, as its resource tracker asks for them."""
        return sorted(self.driver.get_available_nodes(refresh=True))


def answer(session: Session, command: dict[str, Any]) -> dict[str, Any]:
    op = command.pop("op")
    try:
        result = getattr(session, op)(**command)
    except Exception as exc:  # the driver's error is the answer the test checks
        return {
            "ok": False,
            "error": type(exc).__name__,
            "message": str(exc),
            "traceback": traceback.format_exc(),
        }
    return {"ok": True, "result": result}


def main() -> None:
    url, host = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "compute-1"
    shard = (sys.argv[3] or None) if len(sys.argv) > 3 else None  # [ironic] shard
    conductor_group = sys.argv[4] if len(sys.argv) > 4 else None  # [ironic] conductor_group
    # The metadata builder asks Neutron for the security groups: Nova's infrastructure.
    with (
        mock.patch("nova.network.security_group_api.get_instance_security_groups", return_value=[]),
        mock.patch("nova.objects.EC2Ids.get_by_instance", return_value=objects_ec2_ids()),
        # The hash ring's peers come from Nova's service table: this compute service alone.
        mock.patch("nova.objects.ServiceList.get_all_computes_by_hv_type", return_value=[]),
        # The instance's block devices, from Nova's database: none (an image-backed boot).
        mock.patch(
            "nova.objects.BlockDeviceMappingList.get_by_instance_uuid",
            side_effect=lambda *args, **kwargs: objects.BlockDeviceMappingList(objects=[]),
        ),
    ):
        session = Session(url, host, shard, conductor_group)
        # Which instances Nova's database places on this host: those the test created.
        mock.patch(
            "nova.objects.InstanceList.get_uuids_by_host",
            side_effect=lambda ctxt, host: list(session.instances),
        ).start()
        print(json.dumps({"ok": True, "result": "ready"}), flush=True)
        for line in sys.stdin:
            if line.strip():
                print(json.dumps(answer(session, json.loads(line)), default=str), flush=True)


def objects_ec2_ids() -> Any:
    objects.register_all()
    return objects.EC2Ids(
        instance_id="i-00000001", ami_id="ami-00000001", kernel_id=None, ramdisk_id=None
    )


if __name__ == "__main__":
    main()
