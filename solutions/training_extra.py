"""Temporary re-exports while the tests and question files move to the subject modules."""

from __future__ import annotations

from solutions._measured import MEASURED
from solutions.communication import (
    BUS_FACTORS,
    TP_ALLREDUCES_PER_LAYER,
    fsdp_step_bytes,
    nccl_busbw,
    nccl_busbw_from_test,
    p2p_transfer_time,
    ring_allreduce_alpha_beta,
    tp_train_layer_comm_time,
)
from solutions.floating_point import (
    FLOAT_FORMATS,
    FP16_MAX,
    FP16_MIN_NORMAL,
    dynamic_loss_scale,
    float_max,
    float_spacing,
    max_loss_scale,
    min_loss_scale,
)
from solutions.flops import hfu_measured, measured_tokens_per_s, mfu_measured
from solutions.gpu_hardware import (
    SECTOR_BYTES,
    WARP,
    max_regs_for_occupancy,
    peak_tensor_tflops,
    thread_tile_blocks,
    warp_sectors,
)
from solutions.kernels import (
    block_tile_intensity,
    effective_bandwidth,
    effective_bandwidth_measured,
)
from solutions.moe import moe_training_flops
from solutions.parallelism import microbatches_for_bubble
from solutions.training_memory import (
    OFFLOAD_CPU_BYTES,
    OPTIMIZER_BYTES,
    checkpoint_bytes,
    offload_cpu_bytes_per_node,
    optimizer_state_bytes,
    zero3_min_gpus,
    zero_bytes_per_param,
    zero_max_params,
)

__all__ = [
    "BUS_FACTORS",
    "FLOAT_FORMATS",
    "FP16_MAX",
    "FP16_MIN_NORMAL",
    "MEASURED",
    "OFFLOAD_CPU_BYTES",
    "OPTIMIZER_BYTES",
    "SECTOR_BYTES",
    "TP_ALLREDUCES_PER_LAYER",
    "WARP",
    "block_tile_intensity",
    "checkpoint_bytes",
    "dynamic_loss_scale",
    "effective_bandwidth",
    "effective_bandwidth_measured",
    "float_max",
    "float_spacing",
    "fsdp_step_bytes",
    "hfu_measured",
    "max_loss_scale",
    "max_regs_for_occupancy",
    "measured_tokens_per_s",
    "mfu_measured",
    "microbatches_for_bubble",
    "min_loss_scale",
    "moe_training_flops",
    "nccl_busbw",
    "nccl_busbw_from_test",
    "offload_cpu_bytes_per_node",
    "optimizer_state_bytes",
    "p2p_transfer_time",
    "peak_tensor_tflops",
    "ring_allreduce_alpha_beta",
    "thread_tile_blocks",
    "tp_train_layer_comm_time",
    "warp_sectors",
    "zero3_min_gpus",
    "zero_bytes_per_param",
    "zero_max_params",
]
