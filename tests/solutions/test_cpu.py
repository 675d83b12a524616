"""Hand-worked tests for solutions/cpu.py (each comment writes the arithmetic out) and
the grids of the questions it solves."""

from __future__ import annotations

import math

import pytest

from solutions import cpu
from tests.solutions.questions import grid, numeric_questions


def test_sizeof_char_int_char():
    # a at 0; b needs a multiple of 4 -> pad 1..3, b at 4..7; c at 8; size 9 -> round up to the
    # struct alignment 4 -> 12. Reordered (int, char, char): 4 + 1 + 1 = 6 -> 8.
    got = cpu.struct_sizeof("char a; int b; char c;")
    assert got["answer"] == 12
    assert got["padding"] == 6
    assert got["sorted_size"] == 8


def test_sizeof_char_double_int():
    # a at 0, pad 7, b at 8..15, c at 16..19, size 20 -> round up to 8 -> 24.
    # Sorted (double, int, char): 8 + 4 + 1 = 13 -> 16.
    got = cpu.struct_sizeof("char a; double b; int c;")
    assert got["answer"] == 24
    assert got["struct_align"] == 8
    assert got["sorted_size"] == 16


def test_sizeof_array_member_aligns_by_element():
    # a 0..3, b[5] 4..8 (char array, alignment 1), c (short) at 10..11 after 1 pad, size 12,
    # a multiple of 4 already.
    got = cpu.struct_sizeof("int a; char b[5]; short c;")
    assert got["answer"] == 12
    assert got["placement"] == "a@0 (4 B), b@4 (5 B), pad 1, c@10 (2 B)"


def test_sizeof_pointer_first():
    # p 0..7, c 8, pad 3, i 12..15, s 16..17, size 18 -> round up to 8 -> 24
    got = cpu.struct_sizeof("char* p; char c; int i; short s;")
    assert got["answer"] == 24
    assert got["padding"] == 3 + 6


def test_sizeof_bool_double_bool():
    # f 0, pad 7, x 8..15, g 16, size 17 -> 24; sorted: x, f, g = 10 -> 16
    got = cpu.struct_sizeof("bool f; double x; bool g;")
    assert got["answer"] == 24
    assert got["sorted_size"] == 16


def test_vector_doubling_1000():
    # capacities 1, 2, 4, ..., 1024 (11 allocations); each growth copies the full old buffer:
    # 1 + 2 + ... + 512 = 1023 copies (the first allocation copies nothing)
    got = cpu.vector_push_back_copies(1000, 2)
    assert got["answer"] == 1023
    assert got["allocations"] == 11
    assert got["final_capacity"] == 1024


def test_vector_doubling_just_past_a_power_of_two():
    # n = 5000: capacities up to 8192; copies 1 + 2 + ... + 4096 = 8191, 1.64 per element
    got = cpu.vector_push_back_copies(5000, 2)
    assert got["answer"] == 8191
    assert got["per_element"] == pytest.approx(8191 / 5000)


def test_vector_one_and_a_half_100():
    # MSVC-style: 1, 2, 3, 4 (floor 4.5), 6, 9, 13, 19, 28, 42, 63, 94, 141
    # growths copy 1+2+3+4+6+9+13+19+28+42+63+94 = 284
    got = cpu.vector_push_back_copies(100, 1.5)
    assert got["answer"] == 284
    assert got["final_capacity"] == 141
    assert got["allocations"] == 13


def test_vector_one_and_a_half_1000():
    # continue: 141, 211, 316, 474, 711, 1066; copies 284 + 141 + 211 + 316 + 474 + 711 = 2137
    got = cpu.vector_push_back_copies(1000, 1.5)
    assert got["answer"] == 2137
    assert got["final_capacity"] == 1066


def test_vector_copies_stay_under_the_bound():
    # amortised: copies per element < g / (g - 1) (+ a little for the floor at small sizes)
    for n in (100, 1000, 5000, 100_000, 1_000_000):
        assert cpu.vector_push_back_copies(n, 2)["per_element"] < 2
        assert cpu.vector_push_back_copies(n, 1.5)["per_element"] < 3.05


def test_avx512_fp32_two_fma_units():
    # 512 / 32 = 16 lanes; 2 units x 2 FLOP x 16 = 64 FLOP/cycle/core
    # 32 cores x 2.0e9 x 64 = 4.096e12 FLOP/s
    got = cpu.avx512_peak_flops(32, 2.0, 2, "fp32")
    assert got["lanes"] == 16
    assert got["per_cycle_core"] == 64
    assert got["answer"] == pytest.approx(4.096e12)


def test_avx512_fp64_one_fma_unit():
    # 8 lanes; 1 x 2 x 8 = 16 FLOP/cycle; 16 cores x 3.0e9 x 16 = 7.68e11
    got = cpu.avx512_peak_flops(16, 3.0, 1, "fp64")
    assert got["per_cycle_core"] == 16
    assert got["answer"] == pytest.approx(7.68e11)


def test_strided_floats_one_line_per_access():
    # 2^20 floats, stride 16 -> 65,536 accesses 64 B apart -> 65,536 lines, 4 of 64 bytes used
    got = cpu.strided_cache_lines(1_048_576, 4, 16)
    assert got["answer"] == 65_536
    assert got["efficiency"] == pytest.approx(4 / 64)


def test_strided_floats_dense():
    # stride 1: 4 MiB / 64 B = 65,536 lines, every byte used
    got = cpu.strided_cache_lines(1_048_576, 4, 1)
    assert got["answer"] == 65_536
    assert got["efficiency"] == 1


def test_strided_doubles_small_step():
    # 4096 doubles, stride 2 (16 B): last access index 4094 -> byte 32,752 -> line 511 -> 512
    # lines, the same as a dense sweep (32 KiB / 64 B); half the bytes used
    got = cpu.strided_cache_lines(4096, 8, 2)
    assert got["answer"] == 512
    assert got["efficiency"] == 0.5


def test_strided_doubles_large_step():
    # stride 32 doubles = 256 B: 4096 / 32 = 128 accesses, each in its own line
    got = cpu.strided_cache_lines(4096, 8, 32)
    assert got["answer"] == 128
    assert got["efficiency"] == pytest.approx(8 / 64)


def test_cache_tag_bits_l1():
    # 32 KiB / (8 x 64 B) = 64 sets -> 6 index bits; 64 B -> 6 offset bits; tag 48 - 12 = 36
    got = cpu.cache_tag_bits(32, 8, 48)
    assert got["sets"] == 64
    assert got["answer"] == 36


def test_cache_tag_bits_l2():
    # 2 MiB / (16 x 64) = 2048 sets -> 11 index bits; tag 48 - 11 - 6 = 31
    got = cpu.cache_tag_bits(2048, 16, 48)
    assert got["sets"] == 2048
    assert got["answer"] == 31


def test_amdahl_five_percent_on_64():
    # 1 / (0.05 + 0.95 / 64) = 1 / (0.05 + 0.01484375) = 1 / 0.06484375 = 15.42
    got = cpu.amdahl_speedup(0.05, 64)
    assert got["answer"] == pytest.approx(15.4217, rel=1e-4)
    assert got["limit"] == pytest.approx(20)


def test_amdahl_one_percent_on_1024():
    # 1 / (0.01 + 0.99 / 1024) = 1 / 0.0109668 = 91.18; the ceiling is 100
    got = cpu.amdahl_speedup(0.01, 1024)
    assert got["answer"] == pytest.approx(91.18, rel=1e-3)


def test_false_sharing_eight_byte_counters():
    # 64 / 8 = 8 counters per line; 16 threads -> 128 B = 2 lines, 8 writers each;
    # padded: 16 x 64 = 1024 B
    got = cpu.false_sharing_counters(8, 16)
    assert got["answer"] == 8
    assert got["lines"] == 2
    assert got["padded_bytes"] == 1024


def test_false_sharing_fewer_threads_than_slots():
    # 4-byte counters: 16 per line, but only 4 threads -> all 4 share one line
    got = cpu.false_sharing_counters(4, 4)
    assert got["answer"] == 4
    assert got["lines"] == 1


def test_cfs_throttled_time_two_cores_sixteen_threads():
    # quota = 2 cores x 100 ms = 200 ms of CPU time per period
    # 16 threads burn it in 200 / 16 = 12.5 ms of wall time -> throttled 100 - 12.5 = 87.5 ms
    got = cpu.cfs_throttled_time(limit_cores=2, threads=16, period_ms=100)
    assert got["quota"] == pytest.approx(0.2)
    assert got["run"] == pytest.approx(0.0125)
    assert got["answer"] == pytest.approx(0.0875)


def test_cfs_throttled_time_half_core():
    # quota = 0.5 x 100 ms = 50 ms; 4 threads -> 12.5 ms running, 87.5 ms throttled
    got = cpu.cfs_throttled_time(limit_cores=0.5, threads=4, period_ms=100)
    assert got["answer"] == pytest.approx(0.0875)


def test_cfs_not_throttled_when_threads_fit():
    # 2 threads under a 4-core limit use 2 x 100 ms = 200 ms < 400 ms quota: never throttled
    got = cpu.cfs_throttled_time(limit_cores=4, threads=2, period_ms=100)
    assert got["answer"] == 0


# --- the grids of the questions ----------------------------------------------------------------


def test_cache_geometry_gives_whole_sets():
    # every cache size / (ways x 64 B) is a power of two, so index bits are whole
    for q in numeric_questions("cpu"):
        if q["solution"].endswith("cache_tag_bits"):
            for c in grid(q["params"]):
                sets = c["cache_kib"] * 1024 // (c["ways"] * 64)
                assert sets >= 1 and sets & (sets - 1) == 0, c


def test_every_question_solves_on_its_whole_grid():
    from quizzer.grading.calc import load_solution

    seen = 0
    for q in numeric_questions("cpu"):
        func = load_solution(q["solution"])
        for combo in grid(q["params"]):
            answer = func(**combo)["answer"]
            assert math.isfinite(answer) and answer > 0, (q["id"], combo)
            seen += 1
    assert seen > 0
