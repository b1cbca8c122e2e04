"""A room's state: a pure fold of its events (no I/O, no clock).

``RoomState(config, secret)`` starts empty; ``apply(seq, kind, body, at)``
folds one event (``koudian.rooms.events``) in; ``check(kind, body)``
says whether an event may be appended now (``RoomError`` with the reason
if not) without changing anything; ``due()`` lists the events the state
itself calls for (the start when everyone is ready, the next hand, the
close of a finished match or a passed vote). The hands are dealt by the
core's ``MatchState`` from seeds keyed by the room's secret, the actions
played by the core's ``Game.step``: every rule is the core's, and
folding the same events gives the same state in every process.

Times: each event carries the time it was appended (``at``); the state
keeps the times a deadline counts from (the open decision, the end of a
hand, the vote), and the service compares them with its clock.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import dataclass, field
from typing import Any

from koudian._core import Action, Game, KoudianError, MatchState
from koudian.protocol import request
from koudian.rooms.config import RoomConfig, RoomError
from koudian.rooms.events import MAX_NAME, Event, check
from koudian.rooms.views import Views, public_table, seat_table
from koudian.web.snapshot import result_json, table_state

__all__ = ["FinishedHand", "RoomState", "Seat", "fold", "hand_seed", "replay_key", "token_hash"]

STATUSES = ("waiting", "playing", "between", "finished", "closed")


def hand_seed(secret: bytes, hand: int) -> int:
    """The seed of hand ``hand``: keyed by the room's secret and one-way,
    so no hand's seed (published with its log) gives away another's."""
    digest = hashlib.blake2b(hand.to_bytes(8, "little"), key=secret, digest_size=8)
    return int.from_bytes(digest.digest(), "little")


def replay_key(secret: bytes, hand: int) -> str:
    """The unguessable (128-bit) key of hand ``hand``'s replay link: the
    same in every process, so any of them can tell it."""
    msg = b"replay" + hand.to_bytes(8, "little")
    digest = hashlib.blake2b(msg, key=secret, digest_size=16).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def token_hash(token: str) -> str:
    """The stored form of a seat token (SHA-256, hex)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass
class Seat:
    """A seat: ``kind`` free, person (a page or a remote bot program) or
    bot (an agent of the server, ``agent``)."""

    kind: str = "free"
    name: str = ""
    token_hash: str = ""
    remote_bot: bool = False
    agent: str | None = None
    ready: bool = False
    away: str | None = None  # why the seat is played by a bot (托管), else None
    back_at: float = 0.0  # when its person last came back (a decision's timer starts no sooner)


@dataclass
class FinishedHand:
    hand: int
    log: str
    deltas: list[int]
    result: dict[str, Any] | None
    table: dict[str, Any]
    replay: str


@dataclass
class RoomState:
    """See the module doc."""

    config: RoomConfig
    secret: bytes
    seq: int = -1
    status: str = "waiting"
    seats: list[Seat] = field(default_factory=lambda: [Seat() for _ in range(4)])
    match: MatchState | None = None
    game: Game | None = None
    hands: list[FinishedHand] = field(default_factory=list)
    vote: dict[int, bool] | None = None
    vote_at: float = 0.0
    decision_seq: int = -1
    decision_at: float = 0.0
    ended_at: float = 0.0
    last_at: float = 0.0
    close_why: str | None = None

    # ------------------------------------------------------------ the fold

    def apply(self, seq: int, kind: str, body: dict[str, Any], at: float) -> None:
        """Folds event ``seq`` in; ``RoomError`` (nothing changed) when it
        is not the next seq or may not be applied here."""
        if seq != self.seq + 1:
            raise RoomError(f"event {seq} after event {self.seq}")
        self.check(kind, body)
        getattr(self, "_on_" + kind)(body, seq, at)
        self.seq = seq
        self.last_at = at

    def _on_join(self, b: dict[str, Any], seq: int, at: float) -> None:
        self.seats[b["seat"]] = Seat(
            "person", b["name"], b["token_hash"], remote_bot=b["bot"], ready=False
        )

    def _on_fill(self, b: dict[str, Any], seq: int, at: float) -> None:
        self.seats[b["seat"]] = Seat("bot", b["agent"], agent=b["agent"], ready=True)

    def _on_leave(self, b: dict[str, Any], seq: int, at: float) -> None:
        self.seats[b["seat"]] = Seat()

    def _on_ready(self, b: dict[str, Any], seq: int, at: float) -> None:
        self.seats[b["seat"]].ready = True

    def _on_start(self, b: dict[str, Any], seq: int, at: float) -> None:
        self.match = self.config.match()
        self._deal(seq, at)

    def _on_next(self, b: dict[str, Any], seq: int, at: float) -> None:
        self._deal(seq, at)

    def _deal(self, seq: int, at: float) -> None:
        assert self.match is not None
        game = self.match.next_game(True, seed=hand_seed(self.secret, len(self.hands)))
        if game is None:
            raise RoomError("the match is over")  # check() refuses this first
        self.game = game
        self.status = "playing"
        for s in self.seats:
            s.ready = s.kind == "bot"
        self.decision_seq, self.decision_at = seq, at

    def _on_act(self, b: dict[str, Any], seq: int, at: float) -> None:
        game = self.game
        assert game is not None and self.match is not None
        game.step(Action.from_index(b["index"]))
        self.decision_seq, self.decision_at = seq, at
        if not game.done:
            return
        self.match.record(game)
        n = len(self.hands)
        result = result_json(game)
        self.hands.append(
            FinishedHand(
                hand=n,
                log=game.log,
                deltas=list(result["deltas"]) if result else [0, 0, 0, 0],
                result=result,
                table=table_state(game),
                replay=f"/replay/{replay_key(self.secret, n)}",
            )
        )
        self.status = "finished" if self.match.done else "between"
        self.ended_at = at

    def _on_away(self, b: dict[str, Any], seq: int, at: float) -> None:
        self.seats[b["seat"]].away = b["why"]

    def _on_back(self, b: dict[str, Any], seq: int, at: float) -> None:
        self.seats[b["seat"]].away = None
        self.seats[b["seat"]].back_at = at

    def _on_vote(self, b: dict[str, Any], seq: int, at: float) -> None:
        if self.vote is None:
            self.vote, self.vote_at = {b["seat"]: True}, at
        elif not b["dismiss"]:
            self.vote = None
        else:
            self.vote[b["seat"]] = True

    def _on_close(self, b: dict[str, Any], seq: int, at: float) -> None:
        self.status = "closed"
        self.close_why = b["why"]
        self.vote = None

    # ------------------------------------------------------------ the rules of a room

    def check(self, kind: str, body: dict[str, Any]) -> None:
        """``RoomError`` (the reason) unless event ``(kind, body)`` may be
        appended now. Changes nothing."""
        check(kind, body)
        if self.status == "closed":
            raise RoomError("the room is closed")
        seat = body.get("seat")
        st = self.seats[seat] if isinstance(seat, int) else None
        if kind == "join":
            self._waiting("join")
            assert st is not None
            if self.first_free() is None:
                raise RoomError("the room is full (you may watch)")
            if seat != self.first_free():
                raise RoomError(f"seat {seat} is not the next free seat")
            name = body["name"]
            if not 1 <= len(name) <= MAX_NAME or not name.isprintable() or name != name.strip():
                raise RoomError(f"a name is 1 to {MAX_NAME} printable characters")
            th = body["token_hash"]
            if len(th) != 64 or any(c not in "0123456789abcdef" for c in th):
                raise RoomError("a token hash is 64 hex digits")
        elif kind == "fill":
            self._waiting("fill a seat")
            assert st is not None
            if st.kind != "free":
                raise RoomError(f"seat {seat} is taken")
            if not 1 <= len(body["agent"]) <= 40:
                raise RoomError("an agent name is 1 to 40 characters")
        elif kind == "leave":
            self._waiting("leave")
            assert st is not None
            if st.kind == "free":
                raise RoomError(f"seat {seat} is free")
        elif kind == "ready":
            if self.status not in ("waiting", "between"):
                raise RoomError("ready is for before a hand")
            assert st is not None
            if st.kind != "person":
                raise RoomError(f"seat {seat} has no person")
            if st.ready:
                raise RoomError("already ready")
        elif kind == "start":
            self._waiting("start")
            if self.first_free() is not None:
                raise RoomError("a seat is free")
        elif kind == "next":
            if self.status != "between":
                raise RoomError("no hand to deal next")
        elif kind == "act":
            game = self.game
            if self.status != "playing" or game is None:
                raise RoomError("no hand in play")
            if body["hand"] != len(self.hands):
                raise RoomError(
                    f"an action of hand {body['hand']}; hand {len(self.hands)} is in play"
                )
            if seat != game.to_act:
                raise RoomError("it is not this seat's turn")
            try:
                action = Action.from_index(body["index"])
            except (KoudianError, ValueError, OverflowError):
                raise RoomError(f"no action {body['index']}") from None
            if action not in game.legal_actions(seat):
                raise RoomError(f"{action} is not legal here")
        elif kind == "away":
            assert st is not None
            if self.status not in ("playing", "between"):
                raise RoomError("away is for a match in play")
            if st.kind != "person" or st.away is not None:
                raise RoomError(f"seat {seat} has no present person")
        elif kind == "back":
            assert st is not None
            if st.kind != "person" or st.away is None:
                raise RoomError(f"seat {seat} is not away")
        elif kind == "vote":
            assert st is not None
            if st.kind != "person":
                raise RoomError("only the room's people vote")
            if self.status == "finished":
                raise RoomError("the match is over")
            if self.vote is None and not body["dismiss"]:
                raise RoomError("no vote to answer")
            if self.vote is not None and seat in self.vote:
                raise RoomError("already voted")
        elif kind == "close":
            why = body["why"]
            if why == "finished" and self.status != "finished":
                raise RoomError("the match is not over")
            if why == "dismissed" and self.vote is None:
                raise RoomError("no dismissal vote")

    def _waiting(self, what: str) -> None:
        if self.status != "waiting":
            raise RoomError(f"too late to {what}: the match has started")

    def due(self) -> Event | None:
        """The event this state calls for by itself, if any (the service
        appends it, and asks again)."""
        if self.status == "closed":
            return None
        persons = [s for s in self.seats if s.kind == "person"]
        if self.vote is not None and all(self.vote.get(i, False) for i in self.person_seats()):
            return ("close", {"why": "dismissed"})
        if self.status == "finished":
            return ("close", {"why": "finished"})
        if self.status == "waiting" and self.first_free() is None and persons:
            if self.config.autostart or all(s.ready for s in persons):
                return ("start", {})
        if self.status == "between" and self.live():
            # An away person is not ready: the next hand waits for them
            # (the service deals it without them when the time between
            # hands is up), so that they can come back to it.
            if all(s.ready for s in persons):
                return ("next", {})
        return None

    def live(self) -> bool:
        """Whether one of the room's people is connected (to some server
        process): a room whose people are all gone waits for them, its bots
        do not play on alone."""
        return any(s.kind == "person" and s.away != "disconnect" for s in self.seats)

    def watched(self) -> bool:
        """Whether a person (not a bot program) is at the table, connected
        to some server process (away for a timeout included: they watch
        the bots play their seat): the bots' moves are then paced."""
        return any(
            s.kind == "person" and not s.remote_bot and s.away != "disconnect" for s in self.seats
        )

    # ------------------------------------------------------------ questions

    def first_free(self) -> int | None:
        for i, s in enumerate(self.seats):
            if s.kind == "free":
                return i
        return None

    def person_seats(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if s.kind == "person"]

    def seat_of(self, token: str) -> int | None:
        """The seat ``token`` holds (compared in constant time), or None."""
        th = token_hash(token)
        found = None
        for i, s in enumerate(self.seats):
            if s.kind == "person" and hmac.compare_digest(s.token_hash, th):
                found = i
        return found

    @property
    def to_act(self) -> int | None:
        """The seat whose decision is open, or None."""
        if self.status != "playing" or self.game is None or self.game.done:
            return None
        return self.game.to_act

    def bot_plays(self, seat: int) -> bool:
        """Whether the server's bot decides for ``seat`` (a bot seat, or a
        person away: 托管)."""
        s = self.seats[seat]
        return s.kind == "bot" or s.away is not None

    # ------------------------------------------------------------ views

    def match_json(self) -> dict[str, Any]:
        m = self.match
        return {
            "hands_played": len(self.hands),
            "done": self.status in ("finished", "closed") and m is not None and m.done,
            "totals": list(m.totals) if m is not None else [0, 0, 0, 0],
            "dealer": self.game.dealer if self.game is not None else 0,
            "hands": [{"hand": h.hand, "deltas": h.deltas, "replay": h.replay} for h in self.hands],
        }

    def room_json(self, you: int | None, connected: list[bool]) -> dict[str, Any]:
        """The room as everyone may see it (names, who is ready, away,
        connected to this server); ``you``: the receiver's seat."""
        seats = []
        for i, s in enumerate(self.seats):
            seats.append(
                {
                    "kind": s.kind,
                    "name": s.name if s.kind != "free" else None,
                    "bot": s.remote_bot or s.kind == "bot",
                    "connected": s.kind == "bot" or connected[i],
                    "away": s.away is not None,
                    "ready": s.ready,
                }
            )
        vote = None
        if self.vote is not None:
            vote = {"yes": sorted(self.vote), "at": self.vote_at}
        return {
            "status": self.status,
            "config": self.config.to_json(),
            "seats": seats,
            "you": you,
            "match": self.match_json(),
            "vote": vote,
            "closed": self.close_why,
        }

    def table_json(self, seat: int | None, views: Views = None) -> dict[str, Any] | None:
        """The table of the hand in play (or the last one) as ``seat``
        sees it; a spectator's (``None``) shows public information only.
        ``views``: the hand's observations, if the caller has them."""
        game = self.game
        if game is None:
            return None
        if game.done:
            return self.hands[-1].table
        return public_table(game, views) if seat is None else seat_table(game, seat, views)

    def request_json(self, seat: int) -> dict[str, Any] | None:
        """The open decision of ``seat`` (the stdin protocol's request,
        ``id`` the event seq it was asked at), or None."""
        game = self.game
        if self.to_act != seat or game is None:
            return None
        msg = request(game.observe(seat), game.legal_actions(seat))
        msg["id"] = self.decision_seq
        return msg


def fold(config: RoomConfig, secret: bytes, events: list[tuple[int, str, str, float]]) -> RoomState:
    """The state after ``events`` (``(seq, kind, body text, at)``, from
    seq 0); ``RoomError`` naming the event that cannot be folded."""
    from koudian.rooms.events import parse

    state = RoomState(config, secret)
    for seq, kind, text, at in events:
        try:
            state.apply(seq, kind, parse(kind, text), at)
        except KoudianError as e:
            raise RoomError(f"event {seq} ({kind}) cannot be folded: {e}") from None
    return state
