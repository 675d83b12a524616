"""Temporary re-exports while the tests and question files move to the subject modules."""

from __future__ import annotations

from solutions.attention import (
    KEYS_PER_QUERY,
    SOFTMAX_READS,
    attention_flops_share,
    attention_score_bytes,
    flash_v1_q_passes,
    softmax_kernel_time,
)
from solutions.communication import ring_tree_crossover
from solutions.kernels import reduction_launches
from solutions.memory import (
    decoder_layer_params,
    layer_ffn_share,
    model_total_params,
    tied_embedding_saving,
)
from solutions.parallelism import (
    fsdp_overlap_tokens,
    microbatches_per_step,
    ring_attention_bytes,
    ulysses_alltoall_bytes,
)
from solutions.training_memory import (
    ACTIVATION_RECOMPUTE,
    ADAM_STEP_BYTES,
    activation_bytes_recompute,
    adam_step_time,
    megatron_activation_bytes,
    three_d_states_per_gpu,
)

__all__ = [
    "ACTIVATION_RECOMPUTE",
    "ADAM_STEP_BYTES",
    "KEYS_PER_QUERY",
    "SOFTMAX_READS",
    "activation_bytes_recompute",
    "adam_step_time",
    "attention_flops_share",
    "attention_score_bytes",
    "decoder_layer_params",
    "flash_v1_q_passes",
    "fsdp_overlap_tokens",
    "layer_ffn_share",
    "megatron_activation_bytes",
    "microbatches_per_step",
    "model_total_params",
    "reduction_launches",
    "ring_attention_bytes",
    "ring_tree_crossover",
    "softmax_kernel_time",
    "three_d_states_per_gpu",
    "tied_embedding_saving",
    "ulysses_alltoall_bytes",
]
