"""The topology page at ``/ui/``: static HTML, CSS and JavaScript that read the ``/v1`` API.

Nothing here talks to the database or the conductor: the page fetches what it shows through
the same API, under the same authentication and policy, as any other client.
"""
