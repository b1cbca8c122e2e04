"""One hand, step by step: before each of seat 0's decisions the table as
seat 0 sees it (``str(observation)``), then the action chosen; the other
seats' moves as one line each. Seat 0 is the built-in greedy agent; change
``agents`` to put your own in its place.

    python examples/step_by_step.py            # shanxi, seed 7
    python examples/step_by_step.py linxian 3  # a preset and a seed
"""

from __future__ import annotations

import sys

import koudian


def main(rules: str = "shanxi", seed: int = 7) -> koudian.GameResult:
    game = koudian.Game(rules, seed=seed)
    agents = [
        koudian.GreedyAgent(),
        koudian.RandomAgent(),
        koudian.RandomAgent(),
        koudian.GreedyAgent(),
    ]
    while not game.done:
        seat = game.to_act
        assert seat is not None
        observation = game.observe(seat)
        action = agents[seat].act(observation, game.legal_actions(seat))
        if seat == 0:
            print(observation)
            print(f">>> seat 0 plays: {action}\n")
        else:
            print(f"    seat {seat} plays: {action}")
        game.step(action)
    result = game.result
    assert result is not None
    print(f"\nend: {result}")
    print(game.settlement)
    return result


if __name__ == "__main__":
    args = sys.argv[1:]
    main(args[0] if args else "shanxi", int(args[1]) if len(args) > 1 else 7)
