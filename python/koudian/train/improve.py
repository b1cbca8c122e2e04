"""The improvement stage: PPO on ``koudian.VecEnv`` against the core's
native opponents, with a penalty on the KL divergence from the imitation
policy that keeps the net near it (as MahJax holds its PPO near its
supervised start). The learner plays one seat of every table; rewards
are its settlement at the end of each hand (``/ value_scale``).
Seeded: tables, sampling and minibatches come from ``seed``."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from koudian.train.model import (
    ENCODING,
    INPUTS,
    VALUE_SCALE,
    Params,
    family_index,
    features,
    forward,
)

NEG = -1e9


@dataclass
class ImproveConfig:
    """PPO's knobs (recorded in the model's provenance)."""

    iterations: int = 50
    envs: int = 64
    steps: int = 32
    """Learner decisions per table per iteration."""
    epochs: int = 2
    minibatch: int = 512
    lr: float = 1e-4
    clip: float = 0.2
    kl: float = 0.5
    """Weight of KL(policy || imitation policy)."""
    entropy: float = 0.0
    value_coef: float = 0.5
    lam: float = 0.95
    opponents: str = "greedy"
    seed: int = 0


def _sample(
    logits: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_], rng: np.random.Generator
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
    """Actions sampled from the masked softmax (Gumbel-max) and their log
    probabilities."""
    z = np.where(mask, logits.astype(np.float64), -np.inf)
    z = z - z.max(1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(1, keepdims=True))
    g = rng.gumbel(size=z.shape)
    a = np.argmax(np.where(mask, logp + g, -np.inf), 1).astype(np.int64)
    return a, logp[np.arange(len(a)), a].astype(np.float32)


def improve(
    params: Params,
    rules: Sequence[Any],
    cfg: ImproveConfig,
    log: Callable[[dict[str, Any]], None] | None = None,
) -> tuple[Params, list[dict[str, Any]]]:
    """PPO from ``params`` (also the KL anchor) on ``rules`` (rulesets or
    preset names, one env each, played in turn); returns the numpy
    parameters and the curve (per iteration: mean reward per hand in
    points, hands, KL to the anchor, clip fraction, seconds)."""
    import jax
    import jax.numpy as jnp
    import optax

    from koudian import Ruleset, VecEnv

    rulesets = [Ruleset.preset(r) if isinstance(r, str) else r for r in rules]
    envs = [
        VecEnv(
            r,
            cfg.envs,
            learners=0,
            opponents=cfg.opponents,
            seed=cfg.seed + i,
            threads=1,
            encoding=ENCODING,
        )
        for i, r in enumerate(rulesets)
    ]
    fams = [family_index(str(r.family)) for r in rulesets]
    obs = [e.reset()[0] for e in envs]
    frozen = {"input_scale": jnp.asarray(params["input_scale"])}
    anchor = {k: jnp.asarray(v) for k, v in params.items() if k != "input_scale"}
    theta = dict(anchor)
    opt = optax.chain(optax.clip_by_global_norm(1.0), optax.adam(cfg.lr))
    opt_state = opt.init(theta)
    rng = np.random.default_rng(cfg.seed)

    def act_fn(theta: Params, x: Any) -> Any:
        return forward({**theta, **frozen}, x)

    act = jax.jit(act_fn)

    def loss_fn(theta: Params, x: Any, mask: Any, a: Any, old: Any, adv: Any, ret: Any) -> Any:
        logits, value = forward({**theta, **frozen}, x)
        ref, _ = forward({**anchor, **frozen}, x)
        neg = (1.0 - mask) * NEG
        logp = jax.nn.log_softmax(logits + neg, -1)
        ref_logp = jax.nn.log_softmax(ref + neg, -1)
        p = jnp.exp(logp)
        la = jnp.take_along_axis(logp, a[:, None], 1)[:, 0]
        ratio = jnp.exp(la - old)
        pg = -jnp.minimum(ratio * adv, jnp.clip(ratio, 1 - cfg.clip, 1 + cfg.clip) * adv).mean()
        kl = (p * jnp.where(mask > 0, logp - ref_logp, 0.0)).sum(-1).mean()
        ent = -(p * jnp.where(mask > 0, logp, 0.0)).sum(-1).mean()
        vl = ((value - ret) ** 2).mean()
        clipped = (jnp.abs(ratio - 1) > cfg.clip).mean()
        total = pg + cfg.kl * kl - cfg.entropy * ent + cfg.value_coef * vl
        return total, (kl, clipped, vl)

    def update_fn(theta: Params, opt_state: Any, *b: Any) -> Any:
        (_, aux), g = jax.value_and_grad(loss_fn, has_aux=True)(theta, *b)
        u, opt_state = opt.update(g, opt_state, theta)
        return optax.apply_updates(theta, u), opt_state, aux

    update = jax.jit(update_fn)

    curve: list[dict[str, Any]] = []
    for it in range(1, cfg.iterations + 1):
        t0 = time.monotonic()
        k = (it - 1) % len(envs)
        env, fam = envs[k], fams[k]
        n, steps = cfg.envs, cfg.steps
        xs = np.zeros((steps, n, INPUTS), np.float32)
        masks = np.zeros((steps, n, 141), np.float32)
        acts = np.zeros((steps, n), np.int64)
        logps = np.zeros((steps, n), np.float32)
        vals = np.zeros((steps + 1, n), np.float32)
        rews = np.zeros((steps, n), np.float32)
        dones = np.zeros((steps, n), np.float32)
        famv = np.full(n, fam, np.int64)
        hands, points = 0, 0.0
        for t in range(steps):
            x = features(obs[k], famv)
            m = env.action_masks()
            logits, v = act(theta, x)
            a, lp = _sample(np.asarray(logits), m, rng)
            xs[t], masks[t], acts[t], logps[t], vals[t] = x, m, a, lp, np.asarray(v)
            obs[k], r, term, _, _ = env.step(a)
            rews[t], dones[t] = np.asarray(r, np.float32) / VALUE_SCALE, term
            hands += int(term.sum())
            points += float(np.asarray(r, np.float64)[term].sum())
        vals[steps] = np.asarray(act(theta, features(obs[k], famv))[1])
        adv = np.zeros((steps, n), np.float32)
        last = np.zeros(n, np.float32)
        for t in reversed(range(steps)):
            nonterm = 1.0 - dones[t]
            delta = rews[t] + vals[t + 1] * nonterm - vals[t]
            last = delta + cfg.lam * nonterm * last
            adv[t] = last
        ret = adv + vals[:steps]
        flat = steps * n
        data = [
            xs.reshape(flat, -1),
            masks.reshape(flat, -1),
            acts.reshape(flat),
            logps.reshape(flat),
            ((adv - adv.mean()) / (adv.std() + 1e-6)).reshape(flat),
            ret.reshape(flat),
        ]
        kls, clips = [], []
        for _ in range(cfg.epochs):
            order = rng.permutation(flat)
            for s in range(0, flat - cfg.minibatch + 1, cfg.minibatch):
                idx = order[s : s + cfg.minibatch]
                theta, opt_state, (kl, cl, _) = update(theta, opt_state, *(d[idx] for d in data))
                kls.append(float(kl))
                clips.append(float(cl))
        entry = {
            "iteration": it,
            "rules": str(rulesets[k].family) if len(set(fams)) > 1 else None,
            "hands": hands,
            "reward": points / max(hands, 1),
            "kl": float(np.mean(kls)) if kls else 0.0,
            "clip": float(np.mean(clips)) if clips else 0.0,
            "seconds": round(time.monotonic() - t0, 2),
        }
        curve.append(entry)
        if log:
            log(entry)
    out = {key: np.asarray(v, np.float32) for key, v in theta.items()}
    out["input_scale"] = np.asarray(params["input_scale"], np.float32)
    return out, curve
