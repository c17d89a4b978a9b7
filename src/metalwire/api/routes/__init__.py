"""One module per resource; each handler checks input, delegates, and renders."""
