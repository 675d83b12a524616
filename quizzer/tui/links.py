"""Opening a question's link in a web browser, and saying so plainly when there is none.

On a machine with no browser (an SSH session, a container) `webbrowser.open` raises nothing
and returns False; and where the only browser found runs in the terminal (lynx, w3m), starting
it would take the screen from the app. Either way the app says so and shows the link, which
most terminals let you click or copy.
"""

from __future__ import annotations

import webbrowser

from textual.widget import Widget


def browser_problem(url: str) -> str | None:
    """Open ``url`` in a graphical browser; None when one started, else why not."""
    try:
        browser = webbrowser.get()
    except webbrowser.Error:
        return "No web browser on this machine"
    if type(browser) is webbrowser.GenericBrowser:
        # GenericBrowser waits for its program: the console browsers (lynx, w3m, www-browser)
        # that webbrowser falls back to without a display, which would take over the terminal.
        return f"The only browser here ({browser.name}) runs in the terminal"
    try:
        opened = browser.open(url)
    except Exception as exc:  # a browser's own failure is a message, not a crash
        return f"The browser could not start ({exc})"
    return None if opened else "The browser did not start"


def open_link(widget: Widget, title: str, url: str) -> None:
    """Open ``url`` and tell the user what happened, with the link itself when it did not
    open (also put on the clipboard where the terminal allows it)."""
    problem = browser_problem(url)
    if problem is None:
        widget.notify(f"Opening {title}: {url}", timeout=3)
        return
    widget.app.copy_to_clipboard(url)
    widget.notify(
        f"{problem}; the link (also on the clipboard, where the terminal allows):\n{url}",
        severity="warning",
        timeout=20,
        markup=False,
    )
