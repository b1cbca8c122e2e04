"""Imitation: the policy head learns the recorded action (cross-entropy)
and, where the expert ranked its candidates (``expert_values``), the
softmax of its estimated values (KL), the value head the hand's
settlement (``delta / value_scale``, squared error). Seeded: the same
rows, options and seed train the same weights (on the CPU, one thread)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from koudian.train.data import Rows, input_scale
from koudian.train.model import FAMILIES, VALUE_SCALE, Params, family_index, forward, init

NEG = -1e9


@dataclass
class ImitateConfig:
    """The recipe's knobs (recorded in the model's provenance)."""

    hidden: tuple[int, ...] = (256, 128)
    epochs: int = 4
    batch: int = 512
    lr: float = 1e-3
    weight_decay: float = 1e-5
    soft: float = 0.5
    """Share of the policy loss given to the expert's values where a row
    has them (the rest to the played action)."""
    temperature: float = 2.0
    """Points per unit of logit of the expert's values' softmax."""
    family_soft: dict[str, float] = field(default_factory=dict)
    """``soft`` for the rows of a family where it differs. In Sichuan
    mc's values are mostly noise (its best two candidates a median 0.09
    points apart, its edge over greedy +0.01 ± 0.01 a hand): a net that
    follows them departs from greedy on a coin toss and loses, one that
    learns mc's choice (a 2-standard-error lead) plays greedy's equal
    (docs/models.md)."""
    value_coef: float = 0.25
    seed: int = 0

    def softs(self, family: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
        """The ``soft`` share of each row, by its family index."""
        by_family = np.array([self.family_soft.get(f, self.soft) for f in FAMILIES], np.float32)
        return by_family[family]


def _masked_logp(logits: Any, mask: Any) -> Any:
    import jax

    return jax.nn.log_softmax(logits + (1.0 - mask) * NEG, axis=-1)


def policy_targets(
    action: npt.NDArray[np.int64],
    expert: npt.NDArray[np.float32] | None,
    soft: float | npt.NDArray[np.float32],
    temperature: float,
) -> npt.NDArray[np.float32]:
    """The policy's target distribution of each row: the played action's
    one-hot, mixed with weight ``soft`` (one for all rows, or one per
    row) with the softmax of the expert's values over the actions it
    valued (``-inf``: legal, not played out: probability 0) on rows
    where it valued two or more."""
    n = action.shape[0]
    from koudian._core import N_ACTIONS

    t = np.zeros((n, N_ACTIONS), np.float32)
    t[np.arange(n), action] = 1.0
    if expert is None:
        return t
    share = np.broadcast_to(np.asarray(soft, np.float32), (n,))
    finite = np.isfinite(expert)
    has = (finite.sum(1) >= 2) & (share > 0)
    if not has.any():
        return t
    v = np.where(finite[has], expert[has], -np.inf) / temperature
    v = v - v.max(1, keepdims=True)
    e = np.exp(v)
    p = e / e.sum(1, keepdims=True)
    w = share[has][:, None]
    t[has] = (1 - w) * t[has] + w * p
    return t


def make_step(optimizer: Any, value_coef: float) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The jitted training step, ``(params, frozen, opt_state, x, mask,
    target, value_target, weight) -> (params, opt_state, metrics)``, and
    the jitted evaluation, ``(params, frozen, x, ...) -> metrics``."""
    import jax
    import jax.numpy as jnp

    def loss_fn(
        params: Params, frozen: Params, x: Any, mask: Any, tgt: Any, vt: Any, w: Any
    ) -> Any:
        logits, value = forward({**params, **frozen}, x)
        logp = _masked_logp(logits, mask)
        ce = -(tgt * jnp.where(tgt > 0, logp, 0.0)).sum(-1)
        vl = (value - vt) ** 2
        wsum = jnp.maximum(w.sum(), 1e-9)
        pl = (ce * w).sum() / wsum
        vloss = (vl * w).sum() / wsum
        acc = ((jnp.argmax(logp, -1) == jnp.argmax(tgt, -1)) * w).sum() / wsum
        return pl + value_coef * vloss, (pl, vloss, acc)

    def step(
        params: Params, frozen: Params, opt_state: Any, x: Any, mask: Any, tgt: Any, vt: Any, w: Any
    ) -> Any:
        (loss, aux), grads = jax.value_and_grad(loss_fn, has_aux=True)(
            params, frozen, x, mask, tgt, vt, w
        )
        updates, opt_state = optimizer.update(grads, opt_state, params)
        import optax

        params = optax.apply_updates(params, updates)
        return params, opt_state, (loss, *aux)

    def evaluate(
        params: Params, frozen: Params, x: Any, mask: Any, tgt: Any, vt: Any, w: Any
    ) -> Any:
        loss, aux = loss_fn(params, frozen, x, mask, tgt, vt, w)
        return (loss, *aux)

    return jax.jit(step), jax.jit(evaluate)


def _batch(
    rows: Rows, idx: npt.NDArray[np.int64], cfg: ImitateConfig, size: int
) -> tuple[Any, ...]:
    """A minibatch padded to ``size`` rows (weight 0), so one compiled
    step serves every batch."""
    n = len(idx)
    x = rows.inputs(idx)
    mask = rows.mask[idx].astype(np.float32)
    tgt = policy_targets(
        rows.action[idx],
        None if rows.expert is None else rows.expert[idx],
        cfg.softs(rows.family[idx]),
        cfg.temperature,
    )
    vt = rows.delta[idx] / VALUE_SCALE
    w = rows.weight[idx]
    if n < size:
        pad = size - n
        x = np.concatenate([x, np.zeros((pad, x.shape[1]), np.float32)])
        mask = np.concatenate([mask, np.ones((pad, mask.shape[1]), np.float32)])
        tgt = np.concatenate([tgt, np.zeros((pad, tgt.shape[1]), np.float32)])
        vt = np.concatenate([vt, np.zeros(pad, np.float32)])
        w = np.concatenate([w, np.zeros(pad, np.float32)])
    return x, mask, tgt, vt.astype(np.float32), w.astype(np.float32)


def imitate(
    train: Rows,
    held_out: Rows | None,
    cfg: ImitateConfig,
    start: Params | None = None,
    log: Callable[[dict[str, Any]], None] | None = None,
) -> tuple[Params, list[dict[str, Any]]]:
    """Trains a net on ``train`` (from ``start``'s weights, or fresh from
    ``cfg.seed``) and returns its numpy parameters and the learning curve:
    one entry per epoch (train and held-out loss, policy loss, value loss,
    accuracy against the target's top action, seconds)."""
    import jax
    import optax

    scale = start["input_scale"] if start is not None else input_scale(train, seed=cfg.seed)
    p0 = start if start is not None else init(cfg.seed, cfg.hidden, scale)
    frozen = {"input_scale": jax.numpy.asarray(p0["input_scale"])}
    params = {k: jax.numpy.asarray(v) for k, v in p0.items() if k != "input_scale"}
    steps = max(1, cfg.epochs * ((len(train) + cfg.batch - 1) // cfg.batch))
    sched = optax.cosine_decay_schedule(cfg.lr, steps, alpha=0.05)
    opt = optax.adamw(sched, weight_decay=cfg.weight_decay)
    opt_state = opt.init(params)
    step, evaluate = make_step(opt, cfg.value_coef)
    rng = np.random.default_rng(cfg.seed)
    curve: list[dict[str, Any]] = []

    def held() -> dict[str, float]:
        if held_out is None or len(held_out) == 0:
            return {}
        tot = np.zeros(4)
        wsum = 0.0
        for s in range(0, len(held_out), cfg.batch):
            idx = np.arange(s, min(s + cfg.batch, len(held_out)), dtype=np.int64)
            b = _batch(held_out, idx, cfg, cfg.batch)
            m = evaluate(params, frozen, *b)
            ws = float(b[4].sum())
            tot += np.array([float(v) for v in m]) * ws
            wsum += ws
        t = tot / max(wsum, 1e-9)
        return {"held_loss": t[0], "held_policy": t[1], "held_value": t[2], "held_acc": t[3]}

    entry = {"epoch": 0, **held()}
    curve.append(entry)
    if log:
        log(entry)
    for epoch in range(1, cfg.epochs + 1):
        t0 = time.monotonic()
        order = rng.permutation(len(train)).astype(np.int64)
        tot = np.zeros(4)
        nb = 0
        for s in range(0, len(order), cfg.batch):
            b = _batch(train, np.sort(order[s : s + cfg.batch]), cfg, cfg.batch)
            params, opt_state, m = step(params, frozen, opt_state, *b)
            tot += np.array([float(v) for v in m])
            nb += 1
        t = tot / max(nb, 1)
        entry = {
            "epoch": epoch,
            "loss": t[0],
            "policy": t[1],
            "value": t[2],
            "acc": t[3],
            **held(),
            "seconds": round(time.monotonic() - t0, 1),
        }
        curve.append(entry)
        if log:
            log(entry)
    out = {k: np.asarray(v, np.float32) for k, v in params.items()}
    out["input_scale"] = np.asarray(p0["input_scale"], np.float32)
    return out, curve


def recipe(cfg: ImitateConfig) -> str:
    """The config as the provenance's JSON text."""
    return json.dumps(asdict(cfg), sort_keys=True, allow_nan=False)


def family_values(text: str) -> dict[str, float]:
    """``"sichuan=0"`` -> ``{"sichuan": 0.0}``: a share from 0 to 1 per
    family, by name, comma-separated."""
    from koudian._core import KoudianError

    out: dict[str, float] = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        name, sep, value = (x.strip() for x in part.partition("="))
        family_index(name)  # refuses an unknown family, naming the known ones
        try:
            x = float(value)
        except ValueError:
            x = float("nan")
        if not sep or not 0.0 <= x <= 1.0:
            raise KoudianError(f"{part!r}: FAMILY=SHARE expected, a share from 0 to 1")
        out[name] = x
    return out


def tuple_ints(text: str | Sequence[int]) -> tuple[int, ...]:
    """``"256,128"`` -> ``(256, 128)``."""
    if isinstance(text, str):
        return tuple(int(v) for v in text.split(",") if v.strip())
    return tuple(int(v) for v in text)
