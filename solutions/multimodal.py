"""Multimodal models and diffusion: the image tokens a ViT hands to the LLM and their KV
cache, the sampling time of a DiT and the flow-matching time shift.

Every function returns base units (tokens, bytes, seconds) or a pure number as
{"answer": value, **intermediates}.
"""

from __future__ import annotations

from typing import Any

from solutions._units import TFLOPS
from solutions.kv_cache import kv_bytes_per_token

VAE_DOWNSAMPLE = 8
"""Spatial downsampling of the latent-diffusion VAE (SD, SD3, Flux): 1024 px -> 128 latent."""

DIT_LATENT_PATCH = 2
"""DiT patchifies the latent in 2 x 2 patches, so one token covers 16 x 16 pixels."""


# --- ViT tokens -------------------------------------------------------------------------------


def vit_image_tokens(image_h: int, image_w: int, patch: int, merge: int) -> dict[str, float]:
    """Visual tokens handed to the LLM: (H/p) x (W/p) patches, then a merge x merge
    pixel-shuffle (patch-merger) folds neighbouring patches into one token. merge = 1: none."""
    grid_h = image_h // patch
    grid_w = image_w // patch
    patches = grid_h * grid_w
    tokens = patches // (merge * merge)
    return {
        "answer": tokens,
        "grid_h": grid_h,
        "grid_w": grid_w,
        "patches": patches,
        "pixels_per_token": patch * merge,
    }


def image_tokens_kv_bytes(
    model: Any, dtype: Any, images: int, image_side: int, patch: int, merge: int
) -> dict[str, float]:
    """KV cache taken by the image tokens of one request: images x tokens per image x KV bytes
    per token, with tokens per image = (side/p)^2 / merge^2."""
    per_image = vit_image_tokens(image_side, image_side, patch, merge)["answer"]
    tokens = images * per_image
    per_token = kv_bytes_per_token(model, dtype)["answer"]
    return {
        "answer": tokens * per_token,
        "per_image": per_image,
        "tokens": tokens,
        "per_token": per_token,
        "grid": image_side // patch,
    }


# --- diffusion --------------------------------------------------------------------------------


def dit_sampling_time(
    layers: int,
    hidden: int,
    image_px: int,
    steps: int,
    cfg_passes: int,
    achieved_tflops: float,
) -> dict[str, float]:
    """Time to sample one square image with a DiT, counting only transformer-block FLOPs.

    Tokens N = (image_px / 8 / 2)^2 (VAE downsample 8, latent patch 2). Block weights 12 d^2 per
    layer (attention 4 d^2 + MLP 8 d^2 with a 4x MLP), so linear FLOPs per pass = 2 x 12 L d^2 x N.
    Attention is bidirectional (no causal mask): QK^T and PV each 2 N^2 d per layer, 4 L N^2 d.
    Total = steps x cfg_passes x per-pass FLOPs; time = total / achieved FLOP/s."""
    tokens = (image_px // (VAE_DOWNSAMPLE * DIT_LATENT_PATCH)) ** 2
    params = 12 * layers * hidden**2
    linear = 2 * params * tokens
    attn = 4 * layers * tokens**2 * hidden
    per_pass = linear + attn
    total = steps * cfg_passes * per_pass
    return {
        "answer": total / (achieved_tflops * TFLOPS),
        "tokens": tokens,
        "params": params,
        "linear": linear,
        "attn": attn,
        "per_pass": per_pass,
        "passes": steps * cfg_passes,
        "total": total,
        "attn_share": attn / per_pass,
    }


def flow_time_shift(shift: float, t: float) -> dict[str, float]:
    """SD3-style timestep shift for rectified flow (t = 1 is pure noise):
    t' = s t / (1 + (s - 1) t). s > 1 moves every step toward the noisy end."""
    shifted = shift * t / (1 + (shift - 1) * t)
    return {"answer": shifted, "numerator": shift * t, "denominator": 1 + (shift - 1) * t}
