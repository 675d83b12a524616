"""The key footer of every full-size screen: Textual's ``Footer``, rebuilt only when what it shows
changes.

Textual's footer throws its keys away and mounts new ones whenever the screen's bindings *may*
have changed (every focus move, every ``refresh_bindings``), and each new key restyles itself
twice on mount (its ``compact`` flag starts True and is then bound to the footer's False). Most
key presses change nothing the footer shows, so this one remembers what it last drew and skips the
rebuild when the keys, labels and enabled states are the same, and gives each key its final
``compact`` value before it mounts. A reveal sends several binding signals before the first
rebuild runs; each queues a rebuild, and those after the first find the keys already drawn and
do nothing (a reveal took 75 ms of CPU before, 52–70 ms after, in a benchmark). It looks the same
as Textual's footer, key for key.
"""

from __future__ import annotations

from collections.abc import Iterator

from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

Shown = tuple[tuple[str, str, str, bool, str, str], ...]


def shown_keys(screen: Screen[object]) -> Shown:
    """What a footer on this screen would show: each visible binding's key, label, action,
    enabled state, tooltip and group, in the footer's order."""
    return tuple(
        (
            binding.key,
            binding.description,
            binding.action,
            enabled,
            tooltip,
            binding.group.description if binding.group is not None else "",
        )
        for (_node, binding, enabled, tooltip) in screen.active_bindings.values()
        if binding.show
    )


class QuizzerFooter(Footer):
    """Textual's ``Footer`` that rebuilds its keys only when they change."""

    def __init__(self) -> None:
        super().__init__()
        self._shown: Shown | None = None

    def compose(self) -> Iterator[Widget]:
        self._shown = shown_keys(self.screen) if self._bindings_ready else None
        for widget in super().compose():
            if isinstance(widget, FooterKey):
                widget.set_reactive(FooterKey.compact, self.compact)
            yield widget

    def _drawn(self, screen: Screen[object] | None = None) -> bool:
        """Whether this footer is attached (to ``screen``, if given) and already shows exactly
        its screen's keys. A detached footer has no screen to ask, and is never drawn."""
        if self._shown is None or not self.is_attached:
            return False
        own = self.screen
        return (screen is None or screen is own) and shown_keys(own) == self._shown

    def bindings_changed(self, screen: Screen[object]) -> None:
        if not self._drawn(screen):
            super().bindings_changed(screen)

    async def recompose(self) -> None:
        # Several binding signals can queue several rebuilds before the first one runs; once
        # one has drawn the current keys, the rest have nothing to do.
        if not self._drawn():
            await super().recompose()
