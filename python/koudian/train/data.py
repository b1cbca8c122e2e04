"""Training rows from koudian datasets (``simulate --record``, ``arena
--record``), kept packed in memory (426 bytes of planes a row) and
unpacked by the core a minibatch at a time."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from koudian._core import N_ACTIONS, OBS_BYTES, OBS_ENCODING_VERSION, KoudianError
from koudian.train.model import family_index, features


@dataclass
class Rows:
    """Decisions with their targets (one entry a row).

    ``expert``: ``(n, 141)`` float32 of the expert's estimated values
    (NaN: no value; the dataset's ``expert_values``) or ``None`` when no
    source had them; ``weight``: the row's weight in the losses."""

    obs: npt.NDArray[np.uint8]
    mask: npt.NDArray[np.bool_]
    action: npt.NDArray[np.int64]
    delta: npt.NDArray[np.float32]
    family: npt.NDArray[np.int64]
    weight: npt.NDArray[np.float32]
    hand: npt.NDArray[np.int64]
    expert: npt.NDArray[np.float32] | None = None
    sources: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return int(self.action.shape[0])

    def take(self, idx: npt.NDArray[np.int64]) -> Rows:
        """The rows at ``idx``."""
        return Rows(
            self.obs[idx],
            self.mask[idx],
            self.action[idx],
            self.delta[idx],
            self.family[idx],
            self.weight[idx],
            self.hand[idx],
            None if self.expert is None else self.expert[idx],
            self.sources,
        )

    def inputs(self, idx: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
        """The net's unscaled inputs of the rows at ``idx``."""
        from koudian.dataset import unpack_obs

        return features(unpack_obs(self.obs[idx]), self.family[idx])


def dataset_family(directory: str | os.PathLike[str]) -> str:
    """The ruleset family of a recorded dataset (from its manifest's rules)."""
    from koudian._core import Ruleset
    from koudian.dataset import read_manifest

    m = read_manifest(directory)
    # The core's own TOML reader (strict), from a file as it takes them.
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rules.toml"
        path.write_text(m["rules"], encoding="utf-8")
        return str(Ruleset.from_toml(path).family)


def load(
    sources: Sequence[str | os.PathLike[str]],
    agent_weights: dict[str, float] | None = None,
    max_rows: int | None = None,
) -> Rows:
    """The rows of the datasets ``sources`` (directories), concatenated.
    ``agent_weights`` weighs the rows by the recording seat's agent spec's
    base name (``{"mc": 2.0, "greedy": 1.0}``; an agent not named keeps
    1.0, 0.0 drops its rows). ``max_rows`` caps the rows read per source
    (the first, in hand order). Hands are renumbered so that they stay
    distinct across sources (for the held-out split)."""
    from koudian.dataset import iter_batches, read_manifest
    from koudian.dataset import open as open_dataset

    if not sources:
        raise KoudianError("no dataset given to train on")
    parts: dict[str, list[Any]] = {k: [] for k in ("obs", "mask", "action", "delta", "family")}
    parts.update(weight=[], hand=[], expert=[])
    any_expert = False
    hand_base = 0
    for src in sources:
        m = read_manifest(src)
        version = int(m["encoding"]["version"])
        if version != OBS_ENCODING_VERSION:
            raise KoudianError(
                f"{src}: recorded in observation encoding version {version}; the net reads "
                f"version {OBS_ENCODING_VERSION} (the look-ahead planes): record it again with "
                "this koudian"
            )
        fam = family_index(dataset_family(src))
        agents = [str(a).split(":", 1)[0] for a in m["agents"]]
        ds = open_dataset(src)
        taken = 0
        max_hand = 0
        for b in _batches(ds, iter_batches):
            n = len(b["action"])
            if max_rows is not None:
                n = min(n, max_rows - taken)
                if n <= 0:
                    break
            w = np.array(
                [(agent_weights or {}).get(agents[int(s)], 1.0) for s in b["seat"][:n]],
                np.float32,
            )
            keep = w > 0
            parts["obs"].append(b["obs_packed"][:n][keep])
            parts["mask"].append(b["mask"][:n][keep])
            parts["action"].append(b["action"][:n][keep])
            parts["delta"].append(b["delta"][:n][keep].astype(np.float32))
            parts["family"].append(np.full(int(keep.sum()), fam, np.int64))
            parts["weight"].append(w[keep])
            parts["hand"].append(b["hand"][:n][keep].astype(np.int64) + hand_base)
            ev = b.get("expert_values")
            if ev is not None:
                any_expert = True
            parts["expert"].append(
                ev[:n][keep]
                if ev is not None
                else np.full((int(keep.sum()), N_ACTIONS), np.nan, np.float32)
            )
            max_hand = max(max_hand, int(b["hand"][:n].max()) + 1 if n else 0)
            taken += n
        hand_base += max_hand
    cat = {k: np.concatenate(v) if v else np.zeros(0) for k, v in parts.items()}
    if len(cat["action"]) == 0:
        raise KoudianError(f"no rows to train on in {', '.join(map(str, sources))}")
    return Rows(
        cat["obs"].astype(np.uint8).reshape(-1, OBS_BYTES),
        cat["mask"].astype(bool),
        cat["action"].astype(np.int64),
        cat["delta"].astype(np.float32),
        cat["family"].astype(np.int64),
        cat["weight"].astype(np.float32),
        cat["hand"].astype(np.int64),
        cat["expert"].astype(np.float32) if any_expert else None,
        [str(Path(s)) for s in sources],
    )


def _batches(ds: Any, iter_batches: Any) -> Any:
    """The dataset's batches with the packed ``obs`` kept packed (the
    planes are unpacked a minibatch at a time)."""
    yield from iter_batches(ds, batch_size=65536, packed=True)


def split(rows: Rows, holdout: float, seed: int) -> tuple[Rows, Rows]:
    """Train and held-out rows, split by hand (a hand's rows stay
    together), the held-out hands chosen from ``seed``."""
    hands = np.unique(rows.hand)
    rng = np.random.default_rng(seed)
    n_out = round(len(hands) * holdout)
    out = rng.choice(hands, size=n_out, replace=False) if n_out else np.zeros(0, np.int64)
    is_out = np.isin(rows.hand, out)
    return rows.take(np.flatnonzero(~is_out)), rows.take(np.flatnonzero(is_out))


def input_scale(rows: Rows, sample: int = 20000, seed: int = 0) -> npt.NDArray[np.float32]:
    """One over each input's largest value on a sample of the rows (1
    where an input is always 0), so every scaled input lies in [0, 1]."""
    rng = np.random.default_rng(seed)
    idx = np.sort(rng.choice(len(rows), size=min(sample, len(rows)), replace=False))
    x = rows.inputs(idx.astype(np.int64))
    top = x.max(axis=0)
    return np.where(top > 0, 1.0 / np.maximum(top, 1e-9), 1.0).astype(np.float32)
