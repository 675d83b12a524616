"""Extra serving and quantization arithmetic for the Module 4 calculation questions.

Every function returns base units (bytes, seconds, bytes/s, tokens, fractions) or a pure
number, like the other solution modules. Storage "per weight" is returned in bytes so that a
question can show it in bits (unit `bit`).
"""

from __future__ import annotations

import math
from typing import Any

from solutions import inference, quant, speculative
from solutions._units import GB, GBPS, MS, TFLOPS

FP8_MANTISSA_BITS = {"e4m3": 3, "e5m2": 2}
"""Explicit mantissa bits of the two OCP FP8 formats."""

FP8_MIN_NORMAL_EXP = {"e4m3": -6, "e5m2": -14}
"""Exponent of the smallest normal value (bias 7 and 15)."""


def round_half_away(value: float) -> int:
    """Round to nearest, halves away from zero; tolerant of float noise such as
    3.4999999999999996."""
    magnitude = math.floor(abs(value) + 0.5 + 1e-9)
    return int(magnitude if value >= 0 else -magnitude)


def group_storage_per_weight(
    bits: int, group_size: int, scale_bits: int, zero_bits: int
) -> dict[str, float]:
    """Storage per weight in BYTES for group-wise quantization:
    (bits + (scale_bits + zero_bits) / group_size) / 8."""
    result = quant.group_bits_per_weight(bits, group_size, scale_bits, zero_bits)
    return {
        "answer": result["answer"] / 8,
        "bits_total": result["answer"],
        "overhead": result["overhead"],
        "ratio_fp16": 16 / result["answer"],
    }


def block_fp4_storage_per_element(block: int, scale_bits: int) -> dict[str, float]:
    """Storage per element in BYTES of a block-scaled FP4 format: (4 + scale_bits / block) / 8.
    MXFP4: block 32, E8M0 scale; NVFP4: block 16, E4M3 scale (per-tensor FP32 scale ignored)."""
    result = quant.block_fp4_bits(block, scale_bits)
    return {
        "answer": result["answer"] / 8,
        "bits_total": result["answer"],
        "overhead": result["overhead"],
        "ratio_bf16": 16 / result["answer"],
    }


def mla_equivalent_kv_heads(kv_lora_rank: int, rope_dim: int, head_dim: int) -> dict[str, float]:
    """How many GQA KV heads of `head_dim` cache as many elements per token and layer as MLA:
    (kv_lora_rank + rope_dim) / (2 x head_dim), the 2 being one K and one V vector per head."""
    mla_elems = kv_lora_rank + rope_dim
    per_head = 2 * head_dim
    return {"answer": mla_elems / per_head, "mla_elems": mla_elems, "per_head": per_head}


def kv_token_capacity(model: Any, kv_dtype: Any, budget_gb: float) -> dict[str, float]:
    """Tokens of KV cache that fit in `budget_gb` (decimal GB):
    floor(budget / (2 x layers x kv_heads x head_dim x bytes)); BF16 figure for comparison."""
    budget = budget_gb * GB
    per_token = inference.kv_bytes_per_token(model, kv_dtype)["answer"]
    bf16_per_token = 2 * model.layers * model.kv_heads * model.head_dim * 2
    return {
        "answer": math.floor(budget / per_token),
        "budget": budget,
        "per_token": per_token,
        "bf16_per_token": bf16_per_token,
        "bf16_tokens": math.floor(budget / bf16_per_token),
    }


def quantize_dequantize(x: float, scale: float, zero_point: int) -> dict[str, float]:
    """Unsigned 8-bit asymmetric round trip: q = clamp(round(x / scale) + zero_point, 0, 255),
    x_hat = scale x (q - zero_point). Rounding is half away from zero."""
    steps = round_half_away(x / scale)
    q = max(0, min(255, steps + zero_point))
    x_hat = scale * (q - zero_point)
    return {"answer": x_hat, "q": q, "steps": steps, "ratio": x / scale, "error": abs(x - x_hat)}


def fp8_spacing(fmt: str, value: float) -> dict[str, float]:
    """Gap between neighbouring FP8 values around a normal `value`: 2^(floor(log2 value) - m),
    m = 3 mantissa bits for E4M3 and 2 for E5M2."""
    m = FP8_MANTISSA_BITS[fmt]
    exponent = math.floor(math.log2(value))
    if exponent < FP8_MIN_NORMAL_EXP[fmt]:
        raise ValueError(f"{value} is subnormal in {fmt}")
    return {
        "answer": 2.0 ** (exponent - m),
        "name": fmt.upper(),
        "exponent": exponent,
        "mantissa_bits": m,
        "low": 2.0**exponent,
        "high": 2.0 ** (exponent + 1),
        "codes": 2**m,
    }


def e2e_ttft_share(ttft_ms: float, tpot_ms: float, output_tokens: int) -> dict[str, float]:
    """Fraction of end-to-end latency spent before the first token:
    TTFT / (TTFT + TPOT x (output_tokens - 1))."""
    decode = tpot_ms * MS * (output_tokens - 1)
    ttft = ttft_ms * MS
    e2e = ttft + decode
    return {"answer": ttft / e2e, "e2e": e2e, "decode": decode, "ttft": ttft}


def spec_break_even_draft_cost(alpha: float, k: int) -> dict[str, float]:
    """Largest draft-step cost (as a fraction of one target step) at which speculative
    decoding still breaks even: E / (k c + 1) = 1  =>  c = (E - 1) / k,
    E = (1 - alpha^(k+1)) / (1 - alpha)."""
    tokens = speculative.expected_tokens_per_step(alpha, k)["answer"]
    return {"answer": (tokens - 1) / k, "tokens": tokens}


def pd_link_bandwidth(
    model: Any, kv_dtype: Any, gpu: Any, mfu: float, fraction: float
) -> dict[str, float]:
    """PD disaggregation: link bandwidth (bytes/s) at which shipping a prompt's KV cache takes
    `fraction` of the time the prefill GPU needs to compute it. Both grow linearly with the
    prompt, so the prompt length cancels:
    bw = kv_bytes_per_token / (fraction x 2 x params / (bf16 peak x mfu))."""
    per_token = inference.kv_bytes_per_token(model, kv_dtype)["answer"]
    rate = gpu.bf16_tflops * TFLOPS * mfu
    prefill_per_token = 2 * model.params / rate
    bandwidth = per_token / (fraction * prefill_per_token)
    return {
        "answer": bandwidth,
        "per_token": per_token,
        "prefill_per_token": prefill_per_token,
        "rate": rate,
        "gbit_per_s": bandwidth * 8 / GBPS,
    }
