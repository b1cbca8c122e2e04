"""A room's configuration, fixed when the room is created.

``RoomConfig``: the preset and its options (checked by the core:
``Ruleset.preset``), the match length (``hands`` N, or ``rounds`` N by
the dealer rule: the core's ``MatchState``), the decision timer in
seconds (0: none), the bots named for seats at creation, and whether the
match starts as soon as the seats are full (the one-person table).
JSON in and out; anything unknown or out of bounds is refused
(``RoomError``) with the reason.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from koudian._core import KoudianError, MatchState, Ruleset
from koudian._presets import names as preset_names

__all__ = [
    "BOT_PACE",
    "MAX_HANDS",
    "MAX_ROUNDS",
    "MAX_TIMER",
    "OptionValue",
    "RoomConfig",
    "RoomError",
]

MAX_HANDS = 32
"""Most hands in a room's match."""
MAX_ROUNDS = 4
"""Most rounds (圈) in a room's match."""
MAX_TIMER = 600
"""Longest decision timer, seconds."""
BOT_PACE = 0.6
"""Seconds between two bots' moves while a person is at a room's table
(people follow the table), unless the server says otherwise
(``koudian serve --bot-pace``)."""
MAX_OPTIONS = 40
"""Most ruleset options named at creation."""
MAX_OPTION_LIST = 2
"""Longest list an option's value may be (``wall_reserve``: [base, per kong])."""

OptionValue = bool | int | str | list[int]
"""A ruleset option's value in a room's configuration (JSON: a list, not a tuple)."""

KEYS = {"preset", "options", "hands", "rounds", "timer", "bots", "autostart"}


class RoomError(KoudianError):
    """A command or configuration the room refuses (the reason is for the
    person who sent it); nothing changed."""


def _int(data: Mapping[str, Any], key: str, default: int, lo: int, hi: int) -> int:
    v = data.get(key, default)
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise RoomError(f'"{key}" must be an integer from {lo} to {hi}')
    return v


@dataclass(frozen=True)
class RoomConfig:
    """See the module doc. ``bots[s]``: the agent name that takes seat
    ``s`` at creation, or None (a free seat for a person)."""

    preset: str = "shanxi"
    options: dict[str, OptionValue] = field(default_factory=dict)
    hands: int | None = 4
    rounds: int | None = None
    timer: int = 0
    bots: tuple[str | None, ...] = (None, None, None, None)
    autostart: bool = False

    def rules(self) -> Ruleset:
        """The ruleset (``RoomError`` for options the core refuses)."""
        # The core takes a pair as a tuple; it checks every value's range.
        options = {k: tuple(v) if isinstance(v, list) else v for k, v in self.options.items()}
        try:
            return Ruleset.preset(self.preset, **options)  # type: ignore[arg-type]
        except (KoudianError, ValueError, TypeError, OverflowError) as e:
            raise RoomError(f"options: {e}") from None

    def match(self) -> MatchState:
        """A fresh match of this length (hand seeds are the room's: the
        match's own seed is never used to deal)."""
        return MatchState(self.rules(), seed=0, hands=self.hands, rounds=self.rounds)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "preset": self.preset,
            "options": dict(self.options),
            "timer": self.timer,
            "bots": list(self.bots),
            "autostart": self.autostart,
        }
        if self.rounds is not None:
            out["rounds"] = self.rounds
        else:
            out["hands"] = self.hands
        return out

    def dumps(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False, sort_keys=True, allow_nan=False)

    @staticmethod
    def from_json(data: object, agents: Mapping[str, str] | None = None) -> RoomConfig:
        """The configuration of ``data`` (a parsed JSON object), every
        field checked; ``agents``: the bot names on offer (None: any name,
        for a configuration read back from the database)."""
        if not isinstance(data, dict):
            raise RoomError("a room's configuration is a JSON object")
        unknown = sorted(str(k) for k in data if k not in KEYS)
        if unknown:
            raise RoomError(f"unknown key(s) in a room: {', '.join(unknown)}")
        preset = data.get("preset", "shanxi")
        if not isinstance(preset, str) or preset not in preset_names():
            raise RoomError(f"unknown preset {preset!r}; one of {', '.join(preset_names())}")
        raw = data.get("options", {})
        if raw is None:
            raw = {}
        if not isinstance(raw, dict) or len(raw) > MAX_OPTIONS:
            raise RoomError(f'"options": an object of at most {MAX_OPTIONS} ruleset options')
        options: dict[str, OptionValue] = {}
        for k, v in raw.items():
            if isinstance(v, list) and (
                len(v) > MAX_OPTION_LIST
                or not all(isinstance(i, int) and not isinstance(i, bool) for i in v)
            ):
                raise RoomError(f"option {k[:40]!r}: a list of at most {MAX_OPTION_LIST} integers")
            if len(k) > 40 or not isinstance(v, (bool, int, str, list)):
                raise RoomError(
                    f"option {k[:40]!r}: a bool, an integer, a short string or a pair of integers"
                )
            if isinstance(v, str) and len(v) > 40:
                raise RoomError(f"option {k!r}: a short string")
            options[k] = list(v) if isinstance(v, list) else v
        if "hands" in data and "rounds" in data:
            raise RoomError('a match is "hands" or "rounds" long, not both')
        hands: int | None
        rounds: int | None
        if "rounds" in data:
            hands, rounds = None, _int(data, "rounds", 1, 1, MAX_ROUNDS)
        else:
            hands, rounds = _int(data, "hands", 4, 1, MAX_HANDS), None
        timer = _int(data, "timer", 0, 0, MAX_TIMER)
        bots_raw = data.get("bots", [None] * 4)
        if not isinstance(bots_raw, list) or len(bots_raw) != 4:
            raise RoomError('"bots": four agent names or nulls, one per seat')
        bots: list[str | None] = []
        for b in bots_raw:
            if b is not None and not isinstance(b, str):
                raise RoomError('"bots": four agent names or nulls, one per seat')
            if b is not None and agents is not None and b not in agents:
                raise RoomError(f'"bots": {b[:40]!r} is not offered; one of {", ".join(agents)}')
            if b is not None and len(b) > 40:
                raise RoomError('"bots": an agent name is short')
            bots.append(b)
        if all(b is not None for b in bots):
            raise RoomError('"bots": leave at least one seat for a person')
        autostart = data.get("autostart", False)
        if not isinstance(autostart, bool):
            raise RoomError('"autostart": true or false')
        config = RoomConfig(preset, options, hands, rounds, timer, tuple(bots), autostart)
        config.rules()  # the core checks the options now, not at the first hand
        return config

    @staticmethod
    def loads(text: str) -> RoomConfig:
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as e:
            raise RoomError(f"a room's configuration is not JSON: {e}") from None
        return RoomConfig.from_json(data)
