"""The play server's tables, without any web framework.

A ``Table`` is one person's (or one remote bot's) seat at a match: the
engine's own ``MatchState`` and ``Game`` hold the state, three agents
(native agent specs such as ``"greedy"``, or ``cmd:`` bots the server was
configured with) play the other seats. ``Table.handle(text)`` takes one
client message and returns the replies; a malformed or illegal message
gets an ``error`` reply and changes nothing.

The seat protocol (JSON over WebSocket, one JSON object per message) is
documented in ``docs/web.md``; its ``act`` requests and replies are the
stdin bot protocol's (``koudian.protocol.request`` / ``parse_reply``).
"""

from __future__ import annotations

import json
import sys
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from koudian._core import (
    Action,
    Game,
    IllegalActionError,
    KoudianError,
    MatchState,
    Observation,
    Ruleset,
    play_game,
)
from koudian._presets import names as preset_names
from koudian._strictjson import finite
from koudian.agents import Agent, make_agent
from koudian.protocol import parse_reply, request
from koudian.web.guard import SeedKey
from koudian.web.snapshot import result_json, table_state

__all__ = ["MAX_HANDS", "MAX_MESSAGE", "ClientError", "Table", "TableConfig"]

MAX_MESSAGE = 4096
"""Longest client message accepted, in characters."""
MAX_HANDS = 16
"""Most hands in one match."""
MAX_MESSAGES_PER_HAND = 2000
"""A table that receives more messages than this in one hand is closed."""


KEYS = {
    "new": {"type", "id", "preset", "options", "seat", "opponents", "hands", "seed"},
    "act": {"type", "id", "action", "tile", "index"},
    "next": {"type", "id"},
    "state": {"type", "id"},
    "hint": {"type", "id", "agent"},
}
"""The keys each message type may carry (any other is refused: a client
that misspells one is told, not silently ignored)."""


class ClientError(ValueError):
    """A client message that cannot be followed; the reply names why."""


class TableClosed(ClientError):
    """The table was closed (the server is stopping) during a message."""


class TableConfig:
    """What the server offers: opponent specs by name, and where finished
    hands go (``on_hand(log)``). ``client_seeds``: whether a client may
    choose its match's seed (such a table hides nothing from that client:
    the seed deals every hand); else every match seed comes from the OS
    random source and each hand's from ``seed_key``, a secret of the
    server (``koudian.web.guard.SeedKey``)."""

    def __init__(
        self,
        opponents: Mapping[str, str],
        *,
        on_hand: Callable[[str], str | None] | None = None,
        bot_timeout: float = 5.0,
        client_seeds: bool = False,
        seed_key: SeedKey | None = None,
    ) -> None:
        self.opponents = dict(opponents)
        self.on_hand = on_hand
        self.bot_timeout = bot_timeout
        self.client_seeds = client_seeds
        self.seed_key = seed_key if seed_key is not None else SeedKey()


def _options(raw: object) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, dict) or len(raw) > 40:
        raise ClientError('"options" must be an object of ruleset options')
    for k, v in raw.items():
        if not isinstance(v, (bool, int, str)) or (isinstance(v, str) and len(v) > 40):
            raise ClientError(f"option {k!r}: a bool, an integer or a short string")
    return dict(raw)


def _rules(preset: str, options: dict[str, Any]) -> Ruleset:
    """The ruleset of a preset with options; ``ClientError`` for an option
    the ruleset refuses, whatever the ruleset raises (an option named like
    one of ``Ruleset.preset``'s own parameters is a ``TypeError``)."""
    try:
        return Ruleset.preset(preset, **options)
    except (KoudianError, ValueError, TypeError, OverflowError) as e:
        raise ClientError(f"options: {e}") from None


def _int(data: Mapping[str, Any], key: str, default: int, lo: int, hi: int) -> int:
    v = data.get(key, default)
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise ClientError(f'"{key}" must be an integer from {lo} to {hi}')
    return v


class Table:
    """One client's seat at a match against three agents."""

    def __init__(
        self, config: TableConfig, *, bot_share: Callable[[int], bool] | None = None
    ) -> None:
        """``bot_share(delta)``: counts ``delta`` more (or fewer) bot
        processes against this table's client, False when that exceeds its
        share (``koudian.web.guard.ClientShare``)."""
        self.config = config
        self.bot_share = bot_share
        self.bots = 0  # bot processes this table holds (cmd: opponents)
        self.closed = False
        self.match: MatchState | None = None
        self.match_seed: int | None = None  # set when the server keys the hand seeds
        self.game: Game | None = None
        self.seat = 0
        self.agents: list[Agent | None] = [None] * 4
        self.specs: list[str] = []
        self.messages = 0
        self.request_id = 0
        self.last_active = time.monotonic()

    # ------------------------------------------------------------ messages

    def handle(self, text: str) -> list[dict[str, Any]]:
        """The replies to one client message (``error`` replies for bad
        ones: the table is then unchanged)."""
        self.last_active = time.monotonic()
        self.messages += 1
        rid: object = None
        try:
            if len(text) > MAX_MESSAGE:
                raise ClientError(f"message longer than {MAX_MESSAGE} characters")
            try:
                data = json.loads(text)
            except json.JSONDecodeError as e:
                raise ClientError(f"not JSON: {e}") from None
            except RecursionError:  # "[" * 4000 is within MAX_MESSAGE
                raise ClientError("not JSON: nested too deeply") from None
            if not isinstance(data, dict):
                raise ClientError("a message is a JSON object")
            rid = data.get("id")
            if rid is not None and not isinstance(rid, (int, str)):
                rid = None
            kind = data.get("type", "act")
            if not isinstance(kind, str) or kind not in KEYS:
                raise ClientError(f"unknown message type {kind!r}")
            unknown = sorted(str(k) for k in data if k not in KEYS[kind])
            if unknown:
                raise ClientError(f"unknown key(s) in a {kind} message: {', '.join(unknown)}")
            if kind == "new":
                out = self._new(data)
            elif kind == "act":
                out = self._act(text, data.get("id"))
            elif kind == "next":
                out = self._next()
            elif kind == "state":
                out = self._resume()
            else:
                out = [self._hint(data)]
        except (ValueError, OverflowError) as e:  # ClientError, KoudianError, …
            return [_error(str(e), rid)]
        except Exception as e:
            # A defect, not the client's fault: the operator sees the
            # traceback, the client an error reply, and the table stays
            # (``state`` resumes a hand an agent's move was cut short in).
            traceback.print_exc(file=sys.stderr)
            return [_error(f"the server failed on this message ({type(e).__name__})", rid)]
        return out

    def _new(self, data: Mapping[str, Any]) -> list[dict[str, Any]]:
        preset = data.get("preset", "shanxi")
        if not isinstance(preset, str) or preset not in preset_names():
            raise ClientError(f"unknown preset {preset!r}; one of {', '.join(preset_names())}")
        rules = _rules(preset, _options(data.get("options")))
        seat = _int(data, "seat", 0, 0, 3)
        hands = _int(data, "hands", 1, 1, MAX_HANDS)
        if "seed" in data and not self.config.client_seeds:
            raise ClientError(
                '"seed": this server deals its own seeds (its operator can allow '
                "client seeds: koudian serve --client-seeds)"
            )
        keyed = "seed" not in data
        seed = _int(data, "seed", 0, 0, (1 << 64) - 1) if not keyed else SeedKey.match_seed()
        opponents = data.get("opponents", ["greedy"] * 3)
        if (
            not isinstance(opponents, list)
            or len(opponents) != 3
            or not all(isinstance(o, str) and o in self.config.opponents for o in opponents)
        ):
            offered = ", ".join(self.config.opponents)
            raise ClientError(f'"opponents": three of {offered}')
        bots = sum(self.config.opponents[o].startswith("cmd:") for o in opponents)
        # The bots this table holds are given back when it starts another match.
        if self.bot_share is not None and not self.bot_share(bots - self.bots):
            raise ClientError(
                f"too many bot processes for this client: {bots} more would exceed its share"
            )
        agents: list[Agent | None] = [None] * 4
        specs: list[str] = ["you"] * 4
        others = [s for s in range(4) if s != seat]
        try:
            for s, name in zip(others, opponents, strict=True):
                agents[s] = make_agent(
                    self.config.opponents[name], seat=s, timeout=self.config.bot_timeout
                )
                specs[s] = name
            match = MatchState(rules, seed=seed, hands=hands)
        except BaseException:
            _close_agents(agents)
            if self.bot_share is not None:
                self.bot_share(self.bots - bots)
            raise
        _close_agents(self.agents)
        self.bots = bots
        self.match = match
        self.match_seed = seed if keyed else None
        self.seat, self.agents, self.specs = seat, agents, specs
        self.game = None
        return self._start_hand()

    def _start_hand(self) -> list[dict[str, Any]]:
        assert self.match is not None
        if self.match.done:
            raise ClientError("the match is over; send a new one")
        if self.match_seed is None:
            game = self.match.next_game(True)
        else:
            hand = self.config.seed_key.hand_seed(self.match_seed, self.match.hands_played)
            game = self.match.next_game(True, seed=hand)
        if game is None:
            raise ClientError("the match is over; send a new one")
        self.game = game
        self.messages = 0
        return self._advance(reset=True)

    def _act(self, text: str, rid: object) -> list[dict[str, Any]]:
        game = self.game
        if game is None or game.done:
            raise ClientError("no hand in play: send new (or next)")
        if game.to_act != self.seat:
            raise ClientError("it is not your turn")
        if rid is not None and rid != self.request_id:
            raise ClientError(f"a reply to request {rid!r}; the open request is {self.request_id}")
        try:
            action = parse_reply(text)
        except ValueError as e:
            raise ClientError(str(e)) from None
        if action not in game.legal_actions(self.seat):
            raise IllegalActionError(f"{action} is not legal here")
        game.step(action)
        self.request_id += 1
        return self._advance()

    def _resume(self) -> list[dict[str, Any]]:
        """``state``: the open request, first playing the agents' moves if
        a failure cut them short."""
        game = self.game
        if game is not None and not game.done and game.to_act != self.seat:
            return self._advance()
        return [self._state_message()]

    def _next(self) -> list[dict[str, Any]]:
        if self.game is None or not self.game.done:
            raise ClientError("the hand is not over")
        return self._start_hand()

    def _hint(self, data: Mapping[str, Any]) -> dict[str, Any]:
        import koudian

        game = self.game
        if game is None or game.to_act != self.seat:
            raise ClientError("a hint is for your own decision")
        native = [v for v in self.config.opponents.values() if not v.startswith("cmd:")]
        agent = data.get("agent", "greedy")
        if not isinstance(agent, str) or agent not in native:
            raise ClientError(f'"agent": one of {", ".join(native)}')
        ranked = koudian.rank_actions(game, self.seat, agent=agent)
        return {"type": "hint", "agent": agent, "ranked": [ranked_json(r) for r in ranked]}

    # ------------------------------------------------------------ playing

    def _advance(self, reset: bool = False) -> list[dict[str, Any]]:
        """Plays the agents' decisions until the client's or the end (the
        core's game loop: the client's seat has no agent there); with
        ``reset``, the agents are first reset from the hand's seed."""
        game = self.game
        assert game is not None
        if self.closed and not game.done and game.to_act != self.seat:
            raise TableClosed("the table was closed (the server is stopping)")
        bots = [None if s == self.seat else _Stoppable(self, a) for s, a in enumerate(self.agents)]
        play_game(game, bots, reset=reset)
        if not game.done:
            return [self._state_message()]
        assert self.match is not None
        self.match.record(game)
        replay = self.config.on_hand(game.log) if self.config.on_hand else None
        return [self._end_message(replay)]

    def _state_message(self) -> dict[str, Any]:
        game = self.game
        if game is None:
            raise ClientError("no hand in play: send new")
        if game.done:
            return self._end_message(None)
        msg: dict[str, Any]
        if game.to_act == self.seat:
            legal = game.legal_actions(self.seat)
            msg = request(game.observe(self.seat), legal)
            msg["id"] = self.request_id
        else:
            msg = {"type": "state", "seat": self.seat}
        msg["table"] = table_state(game, self.seat)
        msg["match"] = self._match_json()
        return msg

    def _end_message(self, replay: str | None) -> dict[str, Any]:
        game = self.game
        assert game is not None
        return {
            "type": "end",
            "seat": self.seat,
            "result": result_json(game),
            "table": table_state(game),
            "match": self._match_json(),
            "replay": replay,
        }

    def _match_json(self) -> dict[str, Any]:
        m = self.match
        assert m is not None
        return {
            "hands_played": m.hands_played,
            "done": m.done,
            "totals": list(m.totals),
            "players": self.specs,
        }

    def close(self) -> None:
        """Stops the table's external bot processes (and gives them back
        to the client's share)."""
        _close_agents(self.agents)
        if self.bot_share is not None and self.bots:
            self.bot_share(-self.bots)
        self.bots = 0

    def abort(self) -> None:
        """Closes the table from another thread while a message may be in
        flight: its bots are killed and never restarted, so a decision in
        flight ends at once (with the fallback) and the hand stops at the
        next move (``TableClosed``). ``close`` still ends the processes."""
        self.closed = True
        for a in self.agents:
            abort = getattr(a, "abort", None)
            if abort is not None:
                abort()


class _Stoppable:
    """A bot seat as the core's game loop plays it: the agent, asked only
    while the table is open (``abort`` from another thread stops the hand
    at the next move, ``TableClosed``)."""

    def __init__(self, table: Table, agent: Agent | None) -> None:
        assert agent is not None
        self.table = table
        self.agent = agent
        reset = getattr(agent, "reset", None)
        if reset is not None:
            self.reset = reset

    def act(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        if self.table.closed:
            raise TableClosed("the table was closed (the server is stopping)")
        return self.agent.act(observation, legal_actions)


def _close_agents(agents: Sequence[Agent | None]) -> None:
    for a in agents:
        close = getattr(a, "close", None)
        if close is not None:
            close()


def _error(text: str, rid: object) -> dict[str, Any]:
    err: dict[str, Any] = {"type": "error", "error": text}
    if rid is not None:
        err["id"] = rid
    return err


def ranked_json(r: Any) -> dict[str, Any]:
    """A ``koudian.RankedAction`` as plain, strict JSON: ``null`` for a
    value that is not a finite number (mc gives ``-inf`` and NaN for the
    candidates it did not search)."""
    return {
        "action": r.action.to_json(),
        "value": finite(float(r.value)),
        "numbers": {str(k): finite(float(v)) for k, v in dict(r.numbers).items()},
    }


def offered_opponents(specs: Sequence[str], bots: Mapping[str, str]) -> dict[str, str]:
    """The opponents a server offers: the native agent specs that exist in
    this build (``NativeAgent`` accepts them), then ``cmd:`` bots by name."""
    from koudian._core import NativeAgent

    out: dict[str, str] = {}
    for spec in specs:
        try:
            NativeAgent(spec)
        except KoudianError:
            continue
        out[spec] = spec
    for name, command in bots.items():
        out[name] = "cmd:" + command
    return out
