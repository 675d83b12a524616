"""Collective communication: ring AllReduce and AllGather, the traffic of DDP, FSDP and
tensor parallelism, nccl-tests bus bandwidth, the alpha-beta model, ring against tree and
GPU-to-GPU copies.

`bw_gbps` is the bandwidth each GPU can send at in one direction, in GB/s. Every function
returns base units (bytes, seconds, bytes/s) as {"answer": value, **intermediates}.
"""

from __future__ import annotations

import math
from typing import Any

from solutions._measured import MEASURED, observed, sig3
from solutions._units import GB, GBPS, MB, US

# --- ring collectives -------------------------------------------------------------------------


def ring_share(gpus: int, factor: str = "exact") -> float:
    """The ring's (p-1)/p: each GPU sends p-1 chunks of S/p per phase. `factor` is the
    convention: "exact" keeps (p-1)/p, "large-p" takes its limit 1 (so AllReduce ~ 2S)."""
    return (gpus - 1) / gpus if factor == "exact" else 1.0


def ring_allreduce_time(
    size_gb: float, gpus: int, bw_gbps: float, factor: str = "exact"
) -> dict[str, float]:
    """Ring AllReduce = ReduceScatter + AllGather: each GPU sends 2(p-1)/p x S (exact) or 2S
    (large-p approximation)."""
    size = size_gb * GB
    share = ring_share(gpus, factor)
    sent = 2 * share * size
    exact = 2 * ring_share(gpus) * size
    return {
        "answer": sent / (bw_gbps * GBPS),
        "sent": sent,
        "share": share,
        "coefficient": 2 * share,
        "gap": 1 / ring_share(gpus) - 1,
        "exact_time": exact / (bw_gbps * GBPS),
    }


def ring_allgather_time(
    size_gb: float, gpus: int, bw_gbps: float, factor: str = "exact"
) -> dict[str, float]:
    """Ring AllGather of a result of S bytes: each GPU sends (p-1)/p x S (exact) or S
    (large-p approximation)."""
    size = size_gb * GB
    share = ring_share(gpus, factor)
    sent = share * size
    return {
        "answer": sent / (bw_gbps * GBPS),
        "sent": sent,
        "share": share,
        "gap": 1 / ring_share(gpus) - 1,
    }


def ring_allreduce_alpha_beta(
    size_mb: float, gpus: int, bw_gbps: float, alpha_us: float
) -> dict[str, float]:
    """Ring AllReduce under the alpha-beta model: 2(p-1) sequential steps each paying the
    latency alpha, plus the bandwidth term 2(p-1)/p x S / B:
    T = 2(p-1) alpha + 2(p-1)/p x S / B."""
    size = size_mb * MB
    latency = 2 * (gpus - 1) * alpha_us * US
    bandwidth = 2 * (gpus - 1) / gpus * size / (bw_gbps * GBPS)
    return {
        "answer": latency + bandwidth,
        "latency": latency,
        "bandwidth": bandwidth,
        "latency_share": latency / (latency + bandwidth),
    }


def ring_tree_crossover(gpus: int, alpha_us: float, bw_gbps: float) -> dict[str, float]:
    """Message size below which a (non-pipelined) binary-tree AllReduce beats the ring under the
    alpha-beta model, for p a power of two:
    ring: T = 2(p-1) alpha + 2(p-1)/p x S / B
    tree (reduce up, broadcast down, full message each level): T = 2 log2(p) (alpha + S / B)
    equal when S* = B alpha (p - 1 - log2 p) / (log2 p - (p-1)/p). Returns S* in bytes."""
    p = gpus
    levels = round(math.log2(p))
    alpha = alpha_us * US
    bw = bw_gbps * GBPS
    s_star = bw * alpha * (p - 1 - levels) / (levels - (p - 1) / p)
    return {
        "answer": s_star,
        "levels": levels,
        "frac": (p - 1) / p,
        "ring_steps": 2 * (p - 1),
        "tree_steps": 2 * levels,
        "ring_latency": 2 * (p - 1) * alpha,
        "tree_latency": 2 * levels * alpha,
        "ring_bw_factor": 2 * (p - 1) / p,
        "tree_bw_factor": 2 * levels,
    }


# --- data and tensor parallelism --------------------------------------------------------------


def ddp_allreduce_time(
    model: Any, dtype: Any, gpus: int, bw_gbps: float, factor: str = "exact"
) -> dict[str, float]:
    """One step's gradient AllReduce in DDP (no overlap with backward): 2(p-1)/p x S, or 2S
    under the large-p approximation."""
    size = model.params * dtype.bytes
    share = ring_share(gpus, factor)
    sent = 2 * share * size
    return {
        "answer": sent / (bw_gbps * GBPS),
        "size": size,
        "sent": sent,
        "share": share,
        "coefficient": 2 * share,
        "gap": 1 / ring_share(gpus) - 1,
    }


def fsdp_step_bytes(model: Any, dtype: Any, gpus: int, factor: str = "exact") -> dict[str, float]:
    """Bytes each GPU sends per step under FSDP FULL_SHARD / ZeRO-3 with a ring: forward
    AllGather + backward AllGather + gradient ReduceScatter, each (p-1)/p x S with
    S = params x bytes: 3(p-1)/p x S, against 2(p-1)/p x S for DDP's AllReduce. Under the
    large-p convention (p-1)/p is taken as 1: 3S against 2S."""
    size = model.params * dtype.bytes
    share = ring_share(gpus, factor)
    one = share * size
    return {"answer": 3 * one, "size": size, "one": one, "ddp": 2 * one, "share": share}


def tp_layer_allreduce_time(
    model: Any, dtype: Any, tokens: int, tp: int, bw_gbps: float
) -> dict[str, float]:
    """Forward TP traffic of one layer: two ring AllReduces of a tokens x hidden activation."""
    size = tokens * model.hidden * dtype.bytes
    sent = 2 * 2 * (tp - 1) / tp * size
    return {"answer": sent / (bw_gbps * GBPS), "size": size, "sent": sent}


def tp_allreduce_bytes_per_token(model: Any, dtype: Any) -> dict[str, float]:
    """Megatron-style TP: one AllReduce after attention and one after the MLP per layer,
    each over the token's hidden vector."""
    per_layer = 2 * model.hidden * dtype.bytes
    return {"answer": per_layer * model.layers, "per_layer": per_layer}


TP_ALLREDUCES_PER_LAYER = {"none": 4, "selective": 4, "full": 6}
"""Megatron TP AllReduces of one transformer layer per micro-batch in training: forward 2 (after
attention, after the MLP: the g operators) + backward 2 (input gradients: the f operators).
Full activation recomputation reruns the layer's forward before its backward, and its two
AllReduces with it: 6. Selective recomputation reruns only the attention core (QK^T, softmax,
PV), which sits inside the tensor-parallel region and needs no communication: still 4."""


def tp_train_layer_comm_time(
    model: Any,
    dtype: Any,
    micro_batch: int,
    seq: int,
    tp: int,
    bw_gbps: float,
    recompute: str = "none",
) -> dict[str, float]:
    """Megatron TP traffic of one transformer layer in TRAINING (no sequence parallelism):
    TP_ALLREDUCES_PER_LAYER[recompute] ring AllReduces of a b x s x h activation, each
    2(p-1)/p x S per GPU."""
    size = micro_batch * seq * model.hidden * dtype.bytes
    one = 2 * (tp - 1) / tp * size
    count = TP_ALLREDUCES_PER_LAYER[recompute]
    sent = count * one
    return {
        "answer": sent / (bw_gbps * GBPS),
        "size": size,
        "one": one,
        "sent": sent,
        "allreduces": count,
        "recomputed": count - 4,
    }


# --- measured bandwidth and links -------------------------------------------------------------


BUS_FACTORS = {
    "AllReduce": lambda n: 2 * (n - 1) / n,
    "AllGather": lambda n: (n - 1) / n,
    "ReduceScatter": lambda n: (n - 1) / n,
}
"""nccl-tests busbw = algbw x factor; the factor is what each rank must move per byte of S."""


def nccl_busbw(size_mb: float, time_us: float, gpus: int, op: str) -> dict[str, float]:
    """nccl-tests: algbw = S / t; busbw = algbw x 2(n-1)/n for AllReduce and x (n-1)/n for
    AllGather / ReduceScatter (S is the full buffer size). Returns busbw in bytes/s."""
    size = size_mb * MB
    algbw = size / (time_us * US)
    factor = BUS_FACTORS[op](gpus)
    return {"answer": algbw * factor, "algbw": algbw, "factor": factor}


def nccl_busbw_from_test(
    size_mb: float,
    gpus: int,
    op: str,
    true_busbw_gbps: float,
    time_us: float | str = MEASURED,
) -> dict[str, float]:
    """A realistic nccl-tests line for a question: the time a collective of `size_mb` takes at
    `true_busbw_gbps` bus bandwidth, rounded to 3 significant figures (shown in the prompt), or
    the time given (`time_us`, a line from a real log); then busbw from that time with
    nccl_busbw."""
    factor = BUS_FACTORS[op](gpus)
    time_us = observed(time_us, lambda: sig3(size_mb * MB * factor / (true_busbw_gbps * GBPS) / US))
    return {**nccl_busbw(size_mb, time_us, gpus, op), "time_us": time_us}


def p2p_transfer_time(size_gb: float, gpu: Any, link: str) -> dict[str, float]:
    """One-way copy of S bytes between two GPUs: over NVLink at half the datasheet's
    bidirectional figure, over PCIe at the x16 one-direction rate."""
    nvlink = gpu.nvlink_gbps / 2 * GBPS
    pcie = gpu.pcie_gbps * GBPS
    rate = nvlink if link == "NVLink" else pcie
    size = size_gb * GB
    return {
        "answer": size / rate,
        "rate": rate,
        "nvlink_time": size / nvlink,
        "pcie_time": size / pcie,
        "ratio": nvlink / pcie,
    }
