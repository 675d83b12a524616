"""Collective communication volumes and times (bandwidth term only, latency ignored).

`bw_gbps` is the bandwidth each GPU can send at in one direction, in GB/s."""

from __future__ import annotations

from typing import Any

from solutions._units import GB, GBPS


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


def moe_dispatch_bytes(
    tokens: int, hidden: int, dtype: Any, top_k: int, ep: int
) -> dict[str, float]:
    """Bytes one GPU sends in the All-to-All dispatch of expert parallelism, assuming
    uniform routing: each of its tokens goes to top_k experts, (ep-1)/ep of them remote."""
    per_copy = hidden * dtype.bytes
    copies = tokens * top_k
    return {"answer": copies * per_copy * (ep - 1) / ep, "per_copy": per_copy, "copies": copies}


def tp_layer_allreduce_time(
    model: Any, dtype: Any, tokens: int, tp: int, bw_gbps: float
) -> dict[str, float]:
    """Forward TP traffic of one layer: two ring AllReduces of a tokens x hidden activation."""
    size = tokens * model.hidden * dtype.bytes
    sent = 2 * 2 * (tp - 1) / tp * size
    return {"answer": sent / (bw_gbps * GBPS), "size": size, "sent": sent}
