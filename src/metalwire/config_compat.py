"""Option names metalwire accepts besides its own: old metalwire names and Ironic's extras.

Two tables, read by :func:`metalwire.config.load_config`:

* :data:`DEPRECATED_ALIASES`: names metalwire used before it took Ironic's. A value given
  under the old name is read as the new option (translated where the values changed too)
  and a warning at start names the new option. When both names are given, the new one wins.
* :data:`IRONIC_UNUSED`: options of Ironic's ``ironic.conf`` that metalwire has no use for.
  An operator's Ironic file carries them; metalwire starts with a warning that it ignores
  them instead of refusing the file. An option metalwire comes to implement is declared in
  its section's dataclass, which takes precedence over this table.

* :data:`IRONIC_SECTIONS`: the sections of Ironic 39's ``ironic.conf`` (its own and those
  of the libraries it loads) that metalwire does not read; a file may carry them, with a
  warning at start that they are ignored.

Any other unknown option in a section metalwire knows is refused, naming it, and so is a
section that is neither metalwire's nor Ironic's (a misspelled ``[databse]`` would
otherwise leave the server on a fresh SQLite file).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Alias:
    """An old option name, the option it now means, and how old values read as new ones."""

    new: str
    values: tuple[tuple[str, str], ...] = ()

    def translate(self, raw: str) -> str:
        return dict(self.values).get(raw.strip().lower(), raw)


DEPRECATED_ALIASES: dict[str, dict[str, Alias]] = {
    "neutron": {
        "url": Alias("endpoint_override"),
        "auth_strategy": Alias(
            "auth_type", (("noauth", "none"), ("token", "token"), ("keystone", "password"))
        ),
        "timeout": Alias("request_timeout"),
        "retries": Alias("status_code_retries"),
    },
}

_LOGGING = (
    "debug log_config_append log_date_format log_file log_dir watch_log_file use_journal "
    "use_json use_syslog use_eventlog syslog_log_facility use_stderr "
    "logging_context_format_string logging_default_format_string "
    "logging_debug_format_suffix logging_exception_prefix logging_user_identity_format "
    "default_log_levels publish_errors instance_format instance_uuid_format "
    "rate_limit_interval rate_limit_burst rate_limit_except_level fatal_deprecations"
)
_MESSAGING_AND_SERVICE = (
    "transport_url control_exchange rpc_response_timeout rpc_conn_pool_size "
    "executor_thread_pool_size rpc_ping_enabled run_external_periodic_tasks backdoor_port "
    "backdoor_socket log_options rpc_transport"
)
_IRONIC_DEFAULT = (
    "auth_strategy debug_tracebacks_in_api pecan_debug default_resource_class "
    "default_portgroup_mode bindir pybasedir state_path tempdir my_ip my_ipv6 "
    "notification_level versioned_notifications_topics rootwrap_config "
    "hash_partition_exponent hash_ring_reset_interval hash_ring_algorithm "
    "image_download_concurrency parallel_image_downloads isolinux_bin "
    "isolinux_config_template grub_config_path grub_config_template ldlinux_c32 esp_image "
    "force_raw_images raw_image_growth_factor conductor_always_validates_images "
    "minimum_required_memory minimum_memory_wait_time minimum_memory_wait_retries "
    "minimum_memory_warning_only"
)
_IRONIC_NEUTRON = (
    "servicing_network servicing_network_security_groups "
    "add_all_ports dhcpv6_stateful_address_count allow_disabling_power_off "
    # keystoneauth options metalwire does not read
    "auth_section collect_timing split_loggers system_scope domain_id domain_name "
    "project_id trust_id default_domain_id default_domain_name user_id user_domain_id "
    "project_domain_id application_credential_name interface version min_version max_version"
)
_IRONIC_DEPLOY = (
    "image_server_auth_strategy image_server_user image_server_password "
    "image_server_auth_hosts image_server_auth_permit_unknown_hosts external_http_url "
    "external_callback_url enable_ata_secure_erase enable_nvme_secure_erase "
    "erase_devices_priority erase_devices_metadata_priority delete_configuration_priority "
    "create_configuration_priority shred_random_overwrite_iterations "
    "shred_final_overwrite_with_zeros continue_if_disk_secure_erase_fails "
    "disk_erasure_concurrency power_off_after_deploy_failure default_boot_mode "
    "configdrive_use_object_store http_image_subdir fast_track fast_track_timeout "
    "erase_skip_read_only ramdisk_image_download_source iso_master_path iso_cache_size "
    "iso_cache_ttl"
)

_IRONIC_INSPECTOR = (
    "built_in_rules callback_endpoint_override cpu_capabilities dhcp_hostsdir "
    "disk_partitioning_spacing driver enabled extra_hardware_strict force_dhcp "
    "inspection_scope known_accelerators mask_secrets pci_device_alias pre_create_ports "
    "require_managed_boot status_check_period supported_inspect_interfaces sync_period "
    # keystoneauth options of ironic-inspector's client
    "auth_type auth_url auth_section cafile certfile keyfile insecure timeout "
    "collect_timing split_loggers username password user_domain_name project_name "
    "project_domain_name region_name service_type valid_interfaces endpoint_override "
    "status_code_retries status_code_retry_delay connect_retries connect_retry_delay"
)

IRONIC_UNUSED: dict[str, frozenset[str]] = {
    "DEFAULT": frozenset(f"{_LOGGING} {_MESSAGING_AND_SERVICE} {_IRONIC_DEFAULT}".split()),
    "neutron": frozenset(_IRONIC_NEUTRON.split()),
    # oslo.middleware's healthcheck options that metalwire's health check has no use for
    "healthcheck": frozenset(
        [
            "backends",
            "allowed_source_ranges",
            "ignore_proxied_requests",
            "disable_by_file_path",
            "disable_by_file_paths",
            "enable_by_file_paths",
        ]
    ),
    # Ironic's [deploy] options but the HTTP server's URL and root, which the iPXE boot checks
    "deploy": frozenset(_IRONIC_DEPLOY.split()),
    # metalwire calls the switch drivers in-process and writes no driver files
    "ironic_networking": frozenset({"rpc_transport", "driver_config_dir"}),
    # Ironic's [inspector] options but those of the agent inspection's report
    "inspector": frozenset(_IRONIC_INSPECTOR.split()),
}


# ironic/conf/opts.py's groups, and the sections of the oslo libraries, keystonemiddleware and
# osprofiler that Ironic's sample configuration includes.
_IRONIC_SECTIONS = (
    "agent agent_containers anaconda ansible audit auto_discovery cifs cinder console "
    "dhcp disk_utils dnsmasq drac errors fake glance inspection_rules "
    "inventory ipmi ironic_lib ironic_networking_json_rpc "
    "json_rpc mdns metrics_statsd nfs nova oci pxe pxe_filter redfish sensor_data "
    "service_catalog swift vnc "
    "cors oslo_concurrency oslo_messaging_amqp oslo_messaging_kafka "
    "oslo_messaging_notifications oslo_messaging_rabbit oslo_middleware oslo_reports "
    "oslo_versionedobjects profiler"
)
IRONIC_SECTIONS: frozenset[str] = frozenset(_IRONIC_SECTIONS.split())


def alias(section: str, name: str) -> Alias | None:
    return DEPRECATED_ALIASES.get(section, {}).get(name)


def aliases(section: str) -> dict[str, Alias]:
    return DEPRECATED_ALIASES.get(section, {})


def is_ironic_unused(section: str, name: str) -> bool:
    return name in IRONIC_UNUSED.get(section, frozenset())
