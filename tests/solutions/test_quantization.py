"""Hand-worked tests for solutions/quantization.py (each comment writes the arithmetic out) and
the grids of the questions it solves."""

from __future__ import annotations

import math

import pytest

from quizzer.grading.calc import load_solution
from solutions import quantization
from tests.presets import m
from tests.solutions.questions import grid, numeric_questions, params


def test_group_bits_per_weight_int4_g128_fp16_scale_and_zero() -> None:
    # 4 bits + (16-bit scale + 4-bit zero point) / 128 weights = 4 + 20/128 = 4.15625 bits
    assert quantization.group_bits_per_weight(4, 128, 16, 4)["answer"] == pytest.approx(4.15625)


def test_block_fp4_bits_mxfp4_and_nvfp4() -> None:
    # MXFP4: 4 + 8/32 = 4.25 bits; NVFP4: 4 + 8/16 = 4.5 bits
    assert quantization.block_fp4_bits(32, 8)["answer"] == pytest.approx(4.25)
    assert quantization.block_fp4_bits(16, 8)["answer"] == pytest.approx(4.5)


def test_symmetric_quantize_rounds_halves_away_from_zero() -> None:
    # absmax 127 -> scale 1.0; 2.5 rounds to 3 (not to even 2), -2.5 to -3
    assert quantization.symmetric_quantize(2.5, 127.0, 8)["answer"] == 3
    assert quantization.symmetric_quantize(-2.5, 127.0, 8)["answer"] == -3


def test_asymmetric_zero_point_is_clamped_for_an_all_positive_range() -> None:
    # range [2, 10], 8 bits: scale 8/255; -min/scale = -63.75 -> clamped to 0
    assert quantization.asymmetric_zero_point(2.0, 10.0, 8)["answer"] == 0
    # range [-1, 3]: scale 4/255; 1/scale = 63.75 -> 64
    assert quantization.asymmetric_zero_point(-1.0, 3.0, 8)["answer"] == 64


def test_int8_engine_weight_bytes_resnet50_like():
    # 25.6M params, 8% kept in FP16: INT8 part 25.6e6 x 0.92 x 1 = 23.552e6 B;
    # FP16 part 25.6e6 x 0.08 x 2 = 4.096e6 B; total 27.648e6 B vs FP16 engine 51.2e6 B -> 0.54
    got = quantization.int8_engine_weight_bytes(25.6, 0.08)
    assert got["answer"] == pytest.approx(27.648e6)
    assert got["ratio"] == pytest.approx(0.54)
    # nothing kept in FP16: exactly half
    assert quantization.int8_engine_weight_bytes(100, 0.0)["ratio"] == pytest.approx(0.5)


def test_symmetric_scale_int4():
    # qmax = 2^3 - 1 = 7; 10.5 / 7 = 1.5
    assert quantization.symmetric_scale(10.5, 4)["answer"] == 1.5


def test_symmetric_quantize_int8():
    # scale 6.5 / 127 = 0.051181; 0.87 / 0.051181 = 16.998 -> 17
    assert quantization.symmetric_quantize(0.87, 6.5, 8)["answer"] == 17
    # outlier case: scale 40 / 127 = 0.31496; -2.31 / 0.31496 = -7.33 -> -7
    assert quantization.symmetric_quantize(-2.31, 40.0, 8)["answer"] == -7


def test_asymmetric_zero_point():
    # scale (5.8 + 0.9) / 255 = 0.026275; 0.9 / 0.026275 = 34.25 -> 34
    assert quantization.asymmetric_zero_point(-0.9, 5.8, 8)["answer"] == 34


def test_quantize_dequantize_article_example():
    # x = 0.26, s = 0.1, z = 0 in the article: 2.6 -> 3 -> 0.3 (here with z = 128: q = 131)
    r = quantization.quantize_dequantize(0.26, 0.1, 128)
    assert r["q"] == 131
    assert r["answer"] == pytest.approx(0.3)


def test_quantize_dequantize_negative():
    # -0.215 / 0.02 = -10.75 -> -11; q = 117; x_hat = 0.02 x -11 = -0.22
    assert quantization.quantize_dequantize(-0.215, 0.02, 128)["answer"] == pytest.approx(-0.22)


def test_round_half_away_tolerates_float_noise():
    # 0.35 / 0.1 = 3.4999999999999996 in floating point; halves go away from zero -> 4
    assert quantization.round_half_away(0.35 / 0.1) == 4
    assert quantization.round_half_away(-2.5) == -3


def test_group_storage_int4_g128():
    # 4 + 16 / 128 = 4.125 bits = 0.515625 bytes
    r = quantization.group_storage_per_weight(4, 128, 16, 0)
    assert r["bits_total"] == 4.125
    assert r["answer"] == 0.515625


def test_int4_weight_bytes_405b():
    # 405.85e9 x 4.125 / 8 = 209.2664e9 B
    assert quantization.int4_weight_bytes(m("llama-3.1-405b"), 128)["answer"] == pytest.approx(
        209.2664e9, rel=1e-5
    )


def test_fp8_scale_e4m3_and_e5m2():
    # 896 / 448 = 2; 3140 / 57344 = 0.05476
    assert quantization.fp8_scale(896, "e4m3")["answer"] == 2
    assert quantization.fp8_scale(3140, "e5m2")["answer"] == pytest.approx(0.054757, rel=1e-4)


def test_block_fp4_bits():
    # MXFP4: 4 + 8/32 = 4.25 bits; NVFP4: 4 + 8/16 = 4.5 bits
    assert quantization.block_fp4_storage_per_element(32, 8)["bits_total"] == 4.25
    assert quantization.block_fp4_storage_per_element(16, 8)["bits_total"] == 4.5
    assert quantization.block_fp4_storage_per_element(16, 8)["answer"] == 4.5 / 8


def test_smoothquant_factor():
    # alpha 0.5: s = sqrt(40) / sqrt(0.5) = sqrt(80) = 8.9443;
    # both maxima -> sqrt(40 x 0.5) = 4.4721
    r = quantization.smoothquant_factor(40, 0.5, 0.5)
    assert r["answer"] == pytest.approx(80**0.5)
    assert r["x_new"] == pytest.approx(20**0.5)
    assert r["w_new"] == pytest.approx(20**0.5)
    # alpha 0.75: s = 16^0.75 / 1^0.25 = 8
    assert quantization.smoothquant_factor(16, 1.0, 0.75)["answer"] == pytest.approx(8)


def test_kivi_compression():
    # 2-bit, group 32: 2 + 32/32 = 3 bits;
    # avg = (3968 x 3 + 128 x 16) / 4096 = 13952 / 4096 = 3.40625
    # ratio = 16 / 3.40625 = 4.6972
    r = quantization.kivi_compression(2, 32, 4096, 128)
    assert r["quant_bits"] == pytest.approx(3.0)
    assert r["avg_bits"] == pytest.approx(3.40625)
    assert r["answer"] == pytest.approx(16 / 3.40625)
    assert r["no_residual"] == pytest.approx(16 / 3)


def test_w4a16_weight_bytes_llama3_8b():
    # embed + head = 2 x 128256 x 4096 = 1,050,673,152 params x 2 B = 2,101,346,304 B
    # quantized = 8.03e9 - 1,050,673,152 = 6,979,326,848 params
    # bits = 4 + (16 + 4) / 128 = 4.15625 -> 6,979,326,848 x 4.15625 / 8 = 3,625,978,401.5 B
    # total = 5,727,324,705.5 B
    r = quantization.w4a16_weight_bytes(m("llama-3-8b"), 128, 16, 4)
    assert r["head_bytes"] == 2_101_346_304
    assert r["bits"] == pytest.approx(4.15625)
    assert r["answer"] == pytest.approx(5_727_324_705.5)
    assert r["ratio"] == pytest.approx(16.06e9 / 5_727_324_705.5)


# --- the grids of the questions ----------------------------------------------------------------


def _distance_from_half(v: float) -> float:
    return abs(abs(v) % 1 - 0.5)


def test_symmetric_quantize_params_have_no_near_ties():
    p = params("calc-symmetric-quantize-value")
    for x in p["x"]["choose"]:
        for absmax in p["absmax"]["choose"]:
            assert _distance_from_half(x * 127 / absmax) >= 0.15, (x, absmax)


def test_zero_point_params_have_no_near_ties():
    p = params("calc-asymmetric-zero-point")
    for lo in p["x_min"]["choose"]:
        for hi in p["x_max"]["choose"]:
            assert _distance_from_half(-lo * 255 / (hi - lo)) >= 0.1, (lo, hi)


def test_roundtrip_params_have_no_ties_and_no_clamping():
    p = params("calc-quant-dequant-roundtrip")
    for x in p["x"]["choose"]:
        for s in p["scale"]["choose"]:
            assert _distance_from_half(x / s) >= 0.2, (x, s)
            for z in p["zero_point"]["choose"]:
                steps = quantization.round_half_away(x / s)
                assert 0 <= steps + z <= 255


def test_every_question_solves_on_its_whole_grid():
    seen = 0
    for q in numeric_questions("quantization"):
        func = load_solution(q["solution"])
        for combo in grid(q["params"]):
            answer = func(**combo)["answer"]
            assert math.isfinite(answer), (q["id"], combo)
            assert answer > 0 or q.get("allow_negative"), (q["id"], combo)
        seen += 1
    assert seen >= 1
