"""Who is asking: the authentication strategies, the identity they verify, and the policy.

The strategies (``noauth``, ``http_basic``, ``keystone``) are Ironic's. :class:`AuthMiddleware`
runs in front of the VIF endpoints and the router; it puts the verified
:class:`~metalwire.api.auth.identity.Identity` into the ASGI scope, and nothing else the
client sent (no ``X-User-Id``) ever names the user.
"""
