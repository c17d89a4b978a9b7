"""The REST API: Ironic's v1 URLs, microversions and error body, over the RPC API."""
