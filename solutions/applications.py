"""Temporary re-exports while the tests and question files move to the subject modules."""

from __future__ import annotations

from solutions.kv_cache import (
    agent_kv_reload_vs_recompute,
    kv_window_sink_saved_bytes,
    sparse_decode_read_ratio,
)
from solutions.multimodal import (
    DIT_LATENT_PATCH,
    VAE_DOWNSAMPLE,
    dit_sampling_time,
    flow_time_shift,
    image_tokens_kv_bytes,
    vit_image_tokens,
)
from solutions.rag import (
    HNSW_NEIGHBOR_ID_BYTES,
    ivf_distance_computations,
    rag_prefill_time,
    vector_index_bytes,
)

__all__ = [
    "DIT_LATENT_PATCH",
    "HNSW_NEIGHBOR_ID_BYTES",
    "VAE_DOWNSAMPLE",
    "agent_kv_reload_vs_recompute",
    "dit_sampling_time",
    "flow_time_shift",
    "image_tokens_kv_bytes",
    "ivf_distance_computations",
    "kv_window_sink_saved_bytes",
    "rag_prefill_time",
    "sparse_decode_read_ratio",
    "vector_index_bytes",
    "vit_image_tokens",
]
