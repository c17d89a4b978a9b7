"""Drops ``Retry-After`` from the 503 answers to python-ironicclient (the ``baremetal`` CLI).

python-ironicclient (6.3 and before) passes a ``Retry-After`` header to the constructor of
every error class, and only its 413 class takes it: a 503 carrying one becomes
``HttpError.__init__() got an unexpected keyword argument 'retry_after'``, which also ends
its own retry loop. Without the header it reports the message and retries every
``--retry-interval`` seconds, as it does for Ironic (which sends none). Every other client
(openstacksdk, metalwire's) gets the header.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

_IRONICCLIENT = b"python-ironicclient"


def from_ironicclient(scope: Scope) -> bool:
    """Whether the request comes from python-ironicclient (its User-Agent says so)."""
    for key, value in scope["headers"]:
        if key == b"user-agent":
            return _IRONICCLIENT in value
    return False


class RetryAfterForIronicclient:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not from_ironicclient(scope):
            await self.app(scope, receive, send)
            return

        async def send_without_retry_after(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 503:
                headers = [(k, v) for k, v in message.get("headers", []) if k != b"retry-after"]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_without_retry_after)
