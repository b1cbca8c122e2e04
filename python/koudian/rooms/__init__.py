"""Rooms: people play together online, and a crash loses nothing.

A room is its configuration, a secret (its hand seeds' key) and an
append-only log of events (``koudian.rooms.events``); its state is the
fold of those events (``koudian.rooms.room``), so a server that restarts
(or another process on the same database) rebuilds every room exactly.
The log lives in a ``Store`` (``koudian.rooms.store``: SQLite by default,
PostgreSQL for several processes); ``koudian.rooms.service`` runs the
rooms of one server process. ``docs/rooms.md`` describes the protocol,
persistence and options.
"""
