"""One module per full screen (*Screen)."""
