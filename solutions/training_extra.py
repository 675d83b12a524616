"""Extra training, communication, floating-point and CUDA arithmetic for the Module 1-3
calculation questions (question_bank/questions/{distributed,cuda}/calc-*.yaml).

Every function returns base units (bytes, seconds, FLOP, FLOP/s, bytes/s, fractions) or a pure
number, like the other solution modules, as {"answer": value, **intermediates}.
"""

from __future__ import annotations

import math
from typing import Any

from solutions import comm, training
from solutions._units import GB, GBPS, MB, TFLOPS, US

WARP = 32
SECTOR_BYTES = 32
"""Global-memory accesses are served in 32-byte sectors."""

FP16_MAX = 65504.0
"""Largest finite FP16 value: (2 - 2^-10) x 2^15."""

FP16_MIN_NORMAL = 2.0**-14
"""Smallest positive normal FP16 value, about 6.1e-5."""

FLOAT_FORMATS = {
    "FP32": (8, 23),
    "BF16": (8, 7),
    "FP16": (5, 10),
    "FP8 E5M2": (5, 2),
}
"""(exponent bits, explicit mantissa bits) of IEEE-style formats that reserve the top exponent
code for Inf/NaN. FP8 E4M3 is left out on purpose: it gives up Inf and its max is 448."""

OPTIMIZER_BYTES = 12
"""FP32 master weights + Adam m + Adam v = 4 + 4 + 4 bytes per parameter."""

MEASURED = "measured"
"""What an observation parameter (a throughput, a kernel time) receives when the question draws
it: the solution then generates a realistic measurement from a hidden true value. Any number
given instead (`--set time_us=4720`, a figure from a paper) is used as the measurement."""


def _observed(value: float | str, generate: Any) -> float:
    """The measurement: generated when the parameter says `measured`, else the number given."""
    return float(generate()) if value == MEASURED else float(value)


def _eps_floor(x: float) -> int:
    """floor(x) tolerant of float noise such as 2.9999999999999996."""
    return math.floor(x + 1e-9)


def _eps_ceil(x: float) -> int:
    """ceil(x) tolerant of float noise such as 3.0000000000000004."""
    return math.ceil(x - 1e-9)


# --- training compute and memory ------------------------------------------------------------


def _sig3(value: float) -> float:
    """Round to 3 significant figures, as a measured number is quoted."""
    if value == 0:
        return 0.0
    return round(value, 2 - math.floor(math.log10(abs(value))))


def measured_tokens_per_s(model: Any, gpus: int, gpu: Any, true_mfu: float) -> float:
    """A realistic cluster throughput for a question: the tokens/s that `true_mfu` of the dense
    BF16 peak would give under 6N FLOPs per token, rounded to 3 significant figures.
    The prompt shows this number; `true_mfu` itself is never shown."""
    return _sig3(true_mfu * gpus * gpu.bf16_tflops * TFLOPS / (6 * model.params))


def mfu_measured(
    model: Any, gpus: int, gpu: Any, true_mfu: float, tokens_per_s: float | str = MEASURED
) -> dict[str, float]:
    """MFU = 6N x tokens/s / (GPUs x dense BF16 peak), for the measured throughput above, or
    for the throughput given (`tokens_per_s`)."""
    tokens_per_s = _observed(
        tokens_per_s, lambda: measured_tokens_per_s(model, gpus, gpu, true_mfu)
    )
    result = training.mfu(model, tokens_per_s, gpus, gpu)
    return {**result, "tokens_per_s": tokens_per_s, "per_gpu": tokens_per_s / gpus}


def hfu_measured(
    model: Any, gpus: int, gpu: Any, true_mfu: float, tokens_per_s: float | str = MEASURED
) -> dict[str, float]:
    """Hardware FLOPs utilization with full activation recomputation.

    MFU counts the model's 6N FLOPs per token; with full recomputation the hardware also reruns
    the forward pass (another 2N), so it executes 8N per token: HFU = 8N x tokens/s / peak
    = MFU x 4/3. Attention's sequence-dependent FLOPs are ignored. The throughput is the
    generated measurement, or `tokens_per_s` when given."""
    tokens_per_s = _observed(
        tokens_per_s, lambda: measured_tokens_per_s(model, gpus, gpu, true_mfu)
    )
    peak = gpus * gpu.bf16_tflops * TFLOPS
    model_flops = 6 * model.params * tokens_per_s
    hardware_flops = 8 * model.params * tokens_per_s
    return {
        "answer": hardware_flops / peak,
        "mfu": model_flops / peak,
        "hardware_flops": hardware_flops,
        "model_flops": model_flops,
        "peak": peak,
        "tokens_per_s": tokens_per_s,
    }


def moe_training_flops(model: Any, tokens: float) -> dict[str, float]:
    """Training compute of an MoE model: 6 x ACTIVE parameters x tokens (each token only runs
    its routed experts), against 6 x total parameters for a dense model of the same size.
    Router, attention sequence term and recomputation ignored."""
    active = 6 * model.active_params * tokens
    dense = 6 * model.params * tokens
    return {"answer": active, "dense": dense, "ratio": dense / active}


def optimizer_state_bytes(
    model: Any, accounting: str = training.DEFAULT_ACCOUNTING
) -> dict[str, float]:
    """Optimizer states of Adam/AdamW under one accounting (training.OPTIMIZER_ACCOUNTINGS):
    FP32 master copy + m + v = 12 bytes per parameter by default, 12/16 = 75% of the 16-byte
    static model states; 8 with BF16 moments or without a master copy, 6 with 8-bit moments.
    `static` adds the BF16 weights and gradients (2 + 2 bytes)."""
    optim = training.optimizer_bytes(accounting)
    per_param = optim["per_param"]
    static = per_param + training.WEIGHT_BYTES + training.GRAD_BYTES
    return {
        "answer": per_param * model.params,
        "per_param": per_param,
        "master": optim["master"],
        "m": optim["m"],
        "v": optim["v"],
        "static": static * model.params,
        "static_per_param": static,
        "share": per_param / static,
        "baseline": OPTIMIZER_BYTES * model.params,
    }


def checkpoint_bytes(model: Any, accounting: str = training.DEFAULT_ACCOUNTING) -> dict[str, float]:
    """A resumable training checkpoint: the BF16 model weights (2 bytes per parameter) plus the
    whole optimizer state of the accounting (12 bytes with an FP32 master copy and FP32 moments,
    so 14 in all); gradients are not saved (the next step recomputes them)."""
    optim = training.optimizer_bytes(accounting)
    per_param = training.WEIGHT_BYTES + optim["per_param"]
    return {
        "answer": per_param * model.params,
        "per_param": per_param,
        "optim_per_param": optim["per_param"],
        "master": optim["master"],
        "m": optim["m"],
        "v": optim["v"],
        "weights": training.WEIGHT_BYTES * model.params,
        "optim": optim["per_param"] * model.params,
        "ratio": per_param / training.WEIGHT_BYTES,
    }


OFFLOAD_CPU_BYTES = {"optimizer": 2 + 12, "optimizer-and-params": 2 + 2 + 12}
"""Bytes per parameter that CPU offload moves to host memory (mixed-precision Adam, 16 in all):
ZeRO-Offload (on ZeRO-2) moves the BF16 gradients and the FP32 master + m + v (2 + 12) and
keeps the BF16 weights on every GPU; ZeRO-Infinity offloading to CPU (ZeRO-3) moves all 16."""


def offload_cpu_bytes_per_node(
    model: Any, nodes: int, gpus_per_node: int, offload: str
) -> dict[str, float]:
    """Host memory per node for CPU-offloaded model states. The offloaded states are
    partitioned across all data-parallel ranks, so each node holds its GPUs' share:
    bytes x N x gpus_per_node / (nodes x gpus_per_node) = bytes x N / nodes.
    GPU side: ZeRO-Offload keeps the full BF16 weights (2N per GPU); ZeRO-Infinity keeps only
    the layers being computed (not counted). Pinned buffers and fragmentation are ignored
    (DeepSpeed's own estimator adds a 1.5x buffer factor). `gpu_without_offload` is what the
    same ZeRO stage would keep on each GPU: 2 + 14/Nd bytes per parameter (stage 2) or 16/Nd
    (stage 3)."""
    per_param = OFFLOAD_CPU_BYTES[offload]
    stage = 2 if offload == "optimizer" else 3
    ranks = nodes * gpus_per_node
    per_rank = per_param * model.params / ranks
    gpu_weights = training.WEIGHT_BYTES * model.params if offload == "optimizer" else 0.0
    return {
        "answer": per_rank * gpus_per_node,
        "per_param": per_param,
        "total": per_param * model.params,
        "ranks": ranks,
        "per_rank": per_rank,
        "gpu_weights": gpu_weights,
        "gpu_without_offload": zero_bytes_per_param(ranks, stage) * model.params,
        "stage": stage,
    }


def zero_bytes_per_param(dp: int, stage: int) -> float:
    """Per-GPU bytes per parameter of mixed-precision Adam model states under ZeRO:
    stage 0: 2 + 2 + 12; stage 1: 2 + 2 + 12/dp; stage 2: 2 + (2 + 12)/dp; stage 3: 16/dp."""
    return sum(training.zero_state_bytes_per_param(dp, stage))


def zero3_min_gpus(model: Any, gpu: Any, usable: float) -> dict[str, float]:
    """Smallest data-parallel degree for which ZeRO-3 model states (16 bytes/param sharded over
    all GPUs) fit in `usable` of each GPU's memory: ceil(16N / (memory x usable)).
    Activations, buffers and the gathered layer are covered by the reserved share."""
    states = 16 * model.params
    per_gpu = gpu.memory_gb * GB * usable
    exact = states / per_gpu
    return {
        "answer": max(1, _eps_ceil(exact)),
        "states": states,
        "per_gpu": per_gpu,
        "exact": exact,
    }


def zero_max_params(memory_gb: float, dp: int, stage: int, usable: float) -> dict[str, float]:
    """Largest parameter count whose ZeRO model states fit in `usable` of `memory_gb` per GPU:
    N = memory x usable / bytes_per_param(stage, dp). Returns a pure count of parameters."""
    budget = memory_gb * GB * usable
    per_param = zero_bytes_per_param(dp, stage)
    return {
        "answer": budget / per_param,
        "budget": budget,
        "per_param": per_param,
        "ddp_params": budget / 16,
    }


def microbatches_for_bubble(
    stages: int, target: float, measure: str = "step-share"
) -> dict[str, float]:
    """Fewest micro-batches m for which the GPipe/1F1B bubble is at most `target`:
    share of the step (p-1)/(m+p-1) <= f gives m >= (p-1)(1-f)/f; over the ideal compute time
    (Megatron's convention) (p-1)/m <= f gives m >= (p-1)/f. Rounded up."""
    if measure == "step-share":
        exact = (stages - 1) * (1 - target) / target
    else:
        exact = (stages - 1) / target
    m = max(1, _eps_ceil(exact))
    return {
        "answer": m,
        "exact": exact,
        "achieved": training.bubble_fraction(stages - 1, m, measure),
    }


# --- floating point and loss scaling --------------------------------------------------------


def float_max(fmt: str) -> dict[str, float]:
    """Largest finite value of an IEEE-style binary format with e exponent and m mantissa bits
    (top exponent code reserved for Inf/NaN): bias = 2^(e-1) - 1, emax = bias,
    max = (2 - 2^-m) x 2^emax. FP16: 65504; BF16: about 3.39e38."""
    exp_bits, man_bits = FLOAT_FORMATS[fmt]
    emax = 2 ** (exp_bits - 1) - 1
    return {
        "answer": (2 - 2.0**-man_bits) * 2.0**emax,
        "exp_bits": exp_bits,
        "man_bits": man_bits,
        "emax": emax,
    }


def float_spacing(x: float, fmt: str) -> dict[str, float]:
    """Gap between a positive normal number x and the next larger representable value:
    ulp = 2^(floor(log2 x) - m) for a format with m explicit mantissa bits."""
    _, man_bits = FLOAT_FORMATS[fmt]
    exponent = _eps_floor(math.log2(x))
    return {
        "answer": 2.0 ** (exponent - man_bits),
        "exponent": exponent,
        "man_bits": man_bits,
        "relative": 2.0**-man_bits,
    }


def max_loss_scale(max_grad: float) -> dict[str, float]:
    """Largest power-of-two loss scale S that keeps the largest scaled FP16 gradient finite:
    max_grad x S <= 65504, so S = 2^floor(log2(65504 / max_grad))."""
    power = _eps_floor(math.log2(FP16_MAX / max_grad))
    scale = 2.0**power
    return {
        "answer": scale,
        "power": power,
        "scaled": max_grad * scale,
        "headroom": FP16_MAX / max_grad,
    }


def min_loss_scale(grad: float) -> dict[str, float]:
    """Smallest power-of-two loss scale S that lifts a gradient of magnitude `grad` to FP16's
    smallest normal value 2^-14: S = 2^ceil(log2(2^-14 / grad)) (at least 1)."""
    power = max(0, _eps_ceil(math.log2(FP16_MIN_NORMAL / grad)))
    scale = 2.0**power
    return {"answer": scale, "power": power, "scaled": grad * scale}


def dynamic_loss_scale(
    init_scale: float, overflows: int, clean_steps: int, growth_interval: int
) -> dict[str, float]:
    """Dynamic loss scaling as in PyTorch's GradScaler (backoff 0.5, growth 2.0): `overflows`
    consecutive overflow steps each halve the scale (and skip the optimizer step), then every
    `growth_interval` consecutive clean steps double it:
    S = init x 0.5^overflows x 2^floor(clean_steps / growth_interval)."""
    after_overflows = init_scale * 0.5**overflows
    growths = clean_steps // growth_interval
    return {
        "answer": after_overflows * 2.0**growths,
        "after_overflows": after_overflows,
        "growths": growths,
        "skipped": overflows,
    }


# --- communication --------------------------------------------------------------------------


def fsdp_step_bytes(model: Any, dtype: Any, gpus: int, factor: str = "exact") -> dict[str, float]:
    """Bytes each GPU sends per step under FSDP FULL_SHARD / ZeRO-3 with a ring: forward
    AllGather + backward AllGather + gradient ReduceScatter, each (p-1)/p x S with
    S = params x bytes: 3(p-1)/p x S, against 2(p-1)/p x S for DDP's AllReduce. Under the
    large-p convention (p-1)/p is taken as 1: 3S against 2S."""
    size = model.params * dtype.bytes
    share = comm.ring_share(gpus, factor)
    one = share * size
    return {"answer": 3 * one, "size": size, "one": one, "ddp": 2 * one, "share": share}


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
    time_us = _observed(
        time_us, lambda: _sig3(size_mb * MB * factor / (true_busbw_gbps * GBPS) / US)
    )
    return {**nccl_busbw(size_mb, time_us, gpus, op), "time_us": time_us}


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


# --- CUDA kernels ---------------------------------------------------------------------------


def max_regs_for_occupancy(
    gpu: Any, threads_per_block: int, target_occupancy: float
) -> dict[str, float]:
    """Most registers per thread that still allow `target_occupancy` of the SM's thread slots:
    resident threads = target x max_threads_per_sm (whole blocks), regs <= regs_per_sm / threads.
    Allocation granularity ignored; capped at the 255-register hardware limit."""
    threads = round(target_occupancy * gpu.max_threads_per_sm)
    blocks = threads // threads_per_block
    resident = blocks * threads_per_block
    regs = min(255, gpu.regs_per_sm // resident)
    return {"answer": regs, "threads": resident, "blocks": blocks}


def warp_sectors(stride_elems: int, elem_bytes: int) -> dict[str, float]:
    """32-byte sectors touched when lane i of a warp loads element i x stride (base aligned to
    the sector), and the fraction of fetched bytes that were requested."""
    sectors = {(lane * stride_elems * elem_bytes) // SECTOR_BYTES for lane in range(WARP)}
    count = len(sectors)
    useful = WARP * elem_bytes
    return {
        "answer": count,
        "useful": useful,
        "fetched": count * SECTOR_BYTES,
        "efficiency": useful / (count * SECTOR_BYTES),
    }


def effective_bandwidth(
    elements: float, bytes_per_element: float, time_us: float, gpu: Any
) -> dict[str, float]:
    """Effective bandwidth of a kernel = bytes read + written / kernel time; the answer is its
    share of the HBM peak, with the bandwidth itself as `achieved` (bytes/s)."""
    moved = elements * bytes_per_element
    achieved = moved / (time_us * US)
    return {"answer": achieved / (gpu.hbm_gbps * GBPS), "moved": moved, "achieved": achieved}


def effective_bandwidth_measured(
    elements: float,
    bytes_per_element: float,
    gpu: Any,
    true_fraction: float,
    time_us: float | str = MEASURED,
) -> dict[str, float]:
    """A realistic measured kernel time for a question: the time at `true_fraction` of the HBM
    peak, rounded to 3 significant figures in microseconds (shown in the prompt), or the time
    given (`time_us`); then the effective bandwidth recomputed from it."""
    moved = elements * bytes_per_element
    time_us = _observed(time_us, lambda: _sig3(moved / (true_fraction * gpu.hbm_gbps * GBPS) / US))
    return {**effective_bandwidth(elements, bytes_per_element, time_us, gpu), "time_us": time_us}


def block_tile_intensity(bm: int, bn: int, dtype: Any) -> dict[str, float]:
    """Global-memory arithmetic intensity of a GEMM thread block computing a BM x BN tile of C:
    per K step it loads (BM + BN) x BK elements and does 2 x BM x BN x BK FLOPs, so
    intensity = 2 BM BN / ((BM + BN) x bytes), independent of BK. (C's write is ignored.)"""
    return {"answer": 2 * bm * bn / ((bm + bn) * dtype.bytes), "naive": 2 / (2 * dtype.bytes)}


def thread_tile_blocks(
    bm: int, bn: int, tm: int, tn: int, extra_regs: int, gpu: Any
) -> dict[str, float]:
    """Register-limited resident blocks of a thread-tiled SGEMM: BM x BN tile, each thread owns a
    TM x TN accumulator, so threads = BM BN / (TM TN); registers per thread = TM TN accumulators
    + TM + TN fragment values + `extra_regs` for addresses/indices; blocks = floor(regs_per_sm /
    (threads x regs)). Allocation granularity ignored."""
    threads = bm * bn // (tm * tn)
    regs = tm * tn + tm + tn + extra_regs
    blocks = gpu.regs_per_sm // (threads * regs)
    warps = blocks * threads // WARP
    return {
        "answer": blocks,
        "threads": threads,
        "regs": regs,
        "per_block": threads * regs,
        "occupancy": warps / (gpu.max_threads_per_sm // WARP),
    }


def peak_tensor_tflops(
    sms: int, tensor_cores_per_sm: int, fma_per_clock: int, clock_ghz: float
) -> dict[str, float]:
    """Datasheet dense peak = SMs x Tensor Cores per SM x FMA per clock per Tensor Core x 2 FLOP
    x clock."""
    per_clock = sms * tensor_cores_per_sm * fma_per_clock * 2
    return {"answer": per_clock * clock_ghz * 1e9, "per_clock": per_clock}
