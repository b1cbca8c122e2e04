"""Matches: hands dealt one after another with running totals.

``Match(rules, agents, hands=N, seed=S)`` plays N hands; ``rounds=R``
plays full rounds instead (Linxian 四圈 is ``rounds=4``: the deal has moved
on 16 seats). Hand seeds, dealer rotation and totals come from the Rust
core (``koudian.MatchState``); before each hand every agent with a
``reset(seed)`` method is reset with ``mix_seed(hand seed, 1 + seat)``,
as native self-play does. External bots (``cmd:`` agents) start when the
match is made: one that cannot start raises ``koudian.protocol.BotError``.

    >>> import koudian
    >>> m = koudian.Match("linxian", ["random"] * 4, rounds=1, seed=3)
    >>> totals = m.play()
    >>> sum(totals)
    0
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from koudian._core import GameResult, MatchState, RulesetError, play_match_hand
from koudian.agents import AgentSpec, Fault, loop_agent, make_agent
from koudian.faults import from_core
from koudian.protocol import start_bots

__all__ = ["Match"]


class Match:
    """A match of ``hands`` hands or ``rounds`` rounds with running totals."""

    def __init__(
        self,
        rules: object,
        agents: Sequence[AgentSpec],
        *,
        hands: int | None = None,
        rounds: int | None = None,
        seed: int = 0,
        record: bool = True,
    ) -> None:
        if len(agents) != 4:
            raise RulesetError(f"give 4 agents, one per seat; got {len(agents)}")
        if hands is None and rounds is None:
            hands = 1
        self._state = MatchState(rules, seed=seed, hands=hands, rounds=rounds)  # type: ignore[arg-type]
        self.agents = [make_agent(a, seat=s) for s, a in enumerate(agents)]
        try:
            start_bots(self.agents)  # a bot that cannot start fails here
        except BaseException:
            self.close()
            raise
        self.results: list[GameResult] = []
        """Results of the hands played, in order."""
        self.logs: list[str] = []
        """Logs of the hands played (when ``record``)."""
        self.faults: list[Fault] = []
        """Agent faults, with the fallback played for each."""
        self._record = record

    @property
    def totals(self) -> tuple[int, int, int, int]:
        """Running totals per seat (zero-sum)."""
        return self._state.totals

    @property
    def done(self) -> bool:
        """Whether the match is over."""
        return self._state.done

    @property
    def hands_played(self) -> int:
        """Hands played so far."""
        return self._state.hands_played

    def play_hand(self) -> GameResult | None:
        """Plays the next hand; None when the match is over."""
        agents = [loop_agent(a) for a in self.agents]
        hand = play_match_hand(self._state, agents, record=self._record)
        if hand is None:
            return None
        game, faults = hand
        self.faults += (from_core(f) for f in faults)
        result = game.result
        assert result is not None
        self.results.append(result)
        if self._record:
            self.logs.append(game.log)
        return result

    def __iter__(self) -> Iterator[GameResult]:
        """Plays the remaining hands, yielding each result."""
        while True:
            r = self.play_hand()
            if r is None:
                return
            yield r

    def play(self) -> tuple[int, int, int, int]:
        """Plays the remaining hands and returns the totals."""
        for _ in self:
            pass
        return self.totals

    def close(self) -> None:
        """Stops external bot processes (``cmd:`` agents)."""
        for a in self.agents:
            close = getattr(a, "close", None)
            if close is not None:
                close()

    def __enter__(self) -> Match:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
