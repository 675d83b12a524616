"""RL post-training and fine-tuning: PPO model-state memory, the rollout/training split of a
step, trainer-to-engine weight sync, GAE, the GRPO group baseline, the DPO loss, and LoRA
parameter counts and memory.

Every function returns base units (bytes, seconds, fractions) or a pure number, as
{"answer": value, **intermediates}, like the other solution modules.
"""

from __future__ import annotations

import math
from typing import Any

from solutions._units import GB, TFLOPS

BILLION = 1e9
BITS_PER_BYTE = 8
FULL_FT_BYTES = 16  # mixed-precision Adam: BF16 weights + grads, FP32 master, m, v


# --- PPO memory -------------------------------------------------------------------------------


def ppo_model_state_bytes(
    policy_b: float, rm_b: float, trained_bytes: float, frozen_bytes: float
) -> dict[str, float]:
    """Model states of the four PPO models, no sharding, no activations or KV cache.

    Actor (trained) and reference (frozen) have the policy's size; critic (trained) and reward
    model (frozen) have the reward model's size, the InstructGPT recipe (critic initialised from
    the RM). Trained models pay trained_bytes per parameter (weights + gradients + Adam states),
    frozen ones frozen_bytes (weights only)."""
    policy = policy_b * BILLION
    rm = rm_b * BILLION
    actor = policy * trained_bytes
    critic = rm * trained_bytes
    reference = policy * frozen_bytes
    reward = rm * frozen_bytes
    total = actor + critic + reference + reward
    grpo = actor + reference  # no critic; rule-based reward needs no RM
    return {
        "answer": total,
        "actor": actor,
        "critic": critic,
        "reference": reference,
        "reward": reward,
        "trained_share": (actor + critic) / total,
        "grpo": grpo,
        "gpus_80gb": total / (80 * GB),
    }


# --- rollout vs training time -----------------------------------------------------------------


def rl_step_rollout_share(
    n_b: float,
    prompts: int,
    samples: int,
    prompt_len: int,
    resp_len: int,
    gpus: int,
    decode_tps_per_gpu: float,
    achieved_tflops: float,
    flops_factor: float,
) -> dict[str, float]:
    """Share of a synchronous, colocated RL step spent generating.

    rollout time = generated tokens / (gpus x decode tokens/s per GPU)
    training time = flops_factor x N x (prompt + response tokens) / (gpus x achieved FLOP/s)
    (flops_factor = 6 for the policy's forward + backward; 8 adds one reference forward)."""
    sequences = prompts * samples
    gen_tokens = sequences * resp_len
    train_tokens = sequences * (prompt_len + resp_len)
    n = n_b * BILLION
    t_rollout = gen_tokens / (gpus * decode_tps_per_gpu)
    train_flops = flops_factor * n * train_tokens
    t_train = train_flops / (gpus * achieved_tflops * TFLOPS)
    step = t_rollout + t_train
    return {
        "answer": t_rollout / step,
        "sequences": sequences,
        "gen_tokens": gen_tokens,
        "train_tokens": train_tokens,
        "t_rollout": t_rollout,
        "train_flops": train_flops,
        "t_train": t_train,
        "step": step,
        "cluster_tps": gpus * decode_tps_per_gpu,
        "cluster_flops": gpus * achieved_tflops * TFLOPS,
    }


# --- weight sync ------------------------------------------------------------------------------


def weight_sync_seconds(
    model: Any, dtype_bytes: float, nics: int, nic_gbit: float, efficiency: float
) -> dict[str, float]:
    """Time to push a full copy of the weights from trainer to rollout engine:
    bytes = params x bytes/param; bandwidth = nics x Gbit/s / 8 x efficiency (bytes/s)."""
    size = model.params * dtype_bytes
    per_nic = nic_gbit * GB / BITS_PER_BYTE  # Gbit/s -> bytes/s
    bandwidth = nics * per_nic * efficiency
    return {
        "answer": size / bandwidth,
        "size": size,
        "per_nic": per_nic,
        "bandwidth": bandwidth,
        "one_nic": size / (per_nic * efficiency),
    }


# --- GAE --------------------------------------------------------------------------------------


def gae_first_advantage(
    r0: float,
    r1: float,
    r2: float,
    v0: float,
    v1: float,
    v2: float,
    gamma: float,
    lam: float,
) -> dict[str, float]:
    """GAE advantage of the first token of a three-token episode; V after the last token is 0.

    delta_t = r_t + gamma V_{t+1} - V_t;  A_t = delta_t + gamma lam A_{t+1}."""
    d2 = r2 + gamma * 0.0 - v2
    d1 = r1 + gamma * v2 - v1
    d0 = r0 + gamma * v1 - v0
    a2 = d2
    a1 = d1 + gamma * lam * a2
    a0 = d0 + gamma * lam * a1
    mc_return = r0 + gamma * r1 + gamma**2 * r2
    return {
        "answer": a0,
        "d0": d0,
        "d1": d1,
        "d2": d2,
        "a1": a1,
        "a2": a2,
        "gl": gamma * lam,
        "mc": mc_return - v0,  # lambda = 1 limit
        "td0": d0,  # lambda = 0 limit
        "ret0": a0 + v0,  # critic target for token 0
    }


# --- GRPO -------------------------------------------------------------------------------------

MEAN_AND_STD = "mean and std"
MEAN_ONLY = "mean only"
POPULATION = "population"
SAMPLE = "sample"


def grpo_advantage(rewards: list[float], index: int, norm: str, std: str) -> dict[str, float]:
    """Group-relative advantage of sample `index` (1-based) in a group of G rewards."""
    g = len(rewards)
    mean = sum(rewards) / g
    ss = sum((r - mean) ** 2 for r in rewards)
    if std == POPULATION:
        sigma = math.sqrt(ss / g)
    elif std == SAMPLE:
        sigma = math.sqrt(ss / (g - 1))
    else:
        raise ValueError(f"unknown std convention {std!r}")
    r = rewards[index - 1]
    centred = r - mean
    if norm == MEAN_AND_STD:
        adv = centred / sigma
    elif norm == MEAN_ONLY:
        adv = centred
    else:
        raise ValueError(f"unknown normalisation {norm!r}")
    return {
        "answer": adv,
        "g": g,
        "mean": mean,
        "sigma": sigma,
        "r": r,
        "centred": centred,
        "scaled": centred / sigma,
    }


# --- DPO --------------------------------------------------------------------------------------


def dpo_loss(
    beta: float, pol_w: float, ref_w: float, pol_l: float, ref_l: float
) -> dict[str, float]:
    """DPO loss of one pair: -log sigmoid(beta x [(log pi(y_w) - log ref(y_w))
    - (log pi(y_l) - log ref(y_l))]), in nats. log-probs are sums over the response tokens."""
    chosen = pol_w - ref_w
    rejected = pol_l - ref_l
    margin = chosen - rejected
    z = beta * margin
    loss = math.log1p(math.exp(-z))  # -log sigmoid(z)
    return {
        "answer": loss,
        "chosen": chosen,
        "rejected": rejected,
        "margin": margin,
        "z": z,
        "reward_w": beta * chosen,
        "reward_l": beta * rejected,
        "p_pref": 1 / (1 + math.exp(-z)),
        "grad_weight": 1 / (1 + math.exp(z)),  # sigmoid(-z), scales the gradient
    }


# --- LoRA -------------------------------------------------------------------------------------

TARGETS = {
    "q_proj and v_proj": ("q", "v"),
    "all four attention projections (q, k, v, o)": ("q", "k", "v", "o"),
    "all linear layers (q, k, v, o, gate, up, down)": ("q", "k", "v", "o", "gate", "up", "down"),
}


def _shapes(model: Any) -> dict[str, tuple[int, int]]:
    """(d_in, d_out) of every linear layer of a GQA + SwiGLU decoder layer."""
    d = model.hidden
    q = model.heads * model.head_dim
    kv = model.kv_heads * model.head_dim
    return {
        "q": (d, q),
        "k": (d, kv),
        "v": (d, kv),
        "o": (q, d),
        "gate": (d, model.ffn),
        "up": (d, model.ffn),
        "down": (model.ffn, d),
    }


def lora_params(model: Any, rank: int, targets: str) -> dict[str, float]:
    """Trainable LoRA parameters: each adapted d_in x d_out matrix gets A (r x d_in) and
    B (d_out x r), r (d_in + d_out) parameters; times the number of layers."""
    shapes = _shapes(model)
    per_matrix = {name: rank * (din + dout) for name, (din, dout) in shapes.items()}
    per_layer = sum(per_matrix[name] for name in TARGETS[targets])
    total = per_layer * model.layers
    return {
        "answer": total,
        "per_layer": per_layer,
        **{f"m_{name}": value for name, value in per_matrix.items()},
        "fraction": total / model.params,
    }


def lora_finetune_memory(
    model: Any, rank: int, base_bits: float, adapter_bytes: float
) -> dict[str, float]:
    """Model-state memory of LoRA on all linear layers: frozen base at base_bits per parameter
    + adapter parameters at adapter_bytes each (weights, gradients and Adam m, v)."""
    adapter = lora_params(model, rank, "all linear layers (q, k, v, o, gate, up, down)")["answer"]
    base = model.params * base_bits / BITS_PER_BYTE
    states = adapter * adapter_bytes
    full = model.params * FULL_FT_BYTES
    return {
        "answer": base + states,
        "adapter": adapter,
        "base": base,
        "states": states,
        "full": full,
        "ratio": full / (base + states),
    }
