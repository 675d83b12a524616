"""Networking: the bandwidth-delay product and the latency + size / bandwidth cost model
of a message.

Every function returns base units (bytes, seconds) as {"answer": value, **intermediates}.
"""

from __future__ import annotations

from solutions._units import GBPS, MS, US, KiB

GBIT = 1e9 / 8
"""Bytes/s in one Gbit/s."""


def bdp_window_bytes(link_gbit: float, rtt_ms: float) -> dict[str, float]:
    """Bandwidth-delay product: bytes in flight needed to keep the link full, bandwidth x RTT.
    Also the throughput a classic 64 KiB window (no window scaling) would reach on this RTT."""
    bandwidth = link_gbit * GBIT
    rtt = rtt_ms * MS
    bdp = bandwidth * rtt
    small_window = 64 * KiB
    return {
        "answer": bdp,
        "bandwidth": bandwidth,
        "small_window_bw": small_window / rtt,
        "small_window_share": (small_window / rtt) / bandwidth,
    }


def message_time(size_kib: float, latency_us: float, bw_gbs: float) -> dict[str, float]:
    """Alpha-beta model of one message: T = alpha + n / B, and the effective bandwidth n / T."""
    n = size_kib * KiB
    alpha = latency_us * US
    bandwidth = bw_gbs * GBPS
    wire = n / bandwidth
    t = alpha + wire
    return {
        "answer": t,
        "bytes": n,
        "wire": wire,
        "eff_bw": n / t,
        "eff_share": (n / t) / bandwidth,
    }


def half_bandwidth_size(latency_us: float, bw_gbs: float) -> dict[str, float]:
    """n_1/2: the message size at which the effective bandwidth n / (alpha + n / B) reaches
    half of B. Setting n / B = alpha gives n_1/2 = alpha x B."""
    alpha = latency_us * US
    bandwidth = bw_gbs * GBPS
    n_half = alpha * bandwidth
    return {"answer": n_half, "check_time": 2 * alpha, "n90": 9 * n_half}
