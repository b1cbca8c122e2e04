"""The rooms' pages, whole: the home page (``/``: create a room, play
alone against bots) and the room page (``/r/{code}`` and
``/r/{code}/history``). Static HTML with the stylesheet (font and tile
faces inlined by ``koudian.web.assets.page_css``), table.js and, for the
room page, room.js put in; the routes (``koudian.web.app``) serve the
strings as they are."""

from __future__ import annotations

from functools import cache
from importlib import resources

from koudian.web.assets import page_css

__all__ = ["home_page", "room_page"]


def _static(name: str) -> str:
    return resources.files("koudian.web").joinpath("static", name).read_text(encoding="utf-8")


@cache
def home_page() -> str:
    """``/``: create a room (its options as labelled controls), join one by
    its code, or play alone against bots."""
    return (
        _static("home.html")
        .replace("__CSS__", page_css())
        .replace("__TABLE_JS__", _static("table.js"))
    )


@cache
def room_page() -> str:
    """``/r/{code}`` (and ``/r/{code}/history``): the lobby, the table, the
    settlement and totals, the history; the page reads the code from its
    address."""
    return (
        _static("room.html")
        .replace("__CSS__", page_css())
        .replace("__TABLE_JS__", _static("table.js"))
        .replace("__ROOM_JS__", _static("room.js"))
    )
