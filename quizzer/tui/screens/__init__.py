"""One module per screen or modal."""
