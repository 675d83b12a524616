"""Hand-worked tests for solutions/vision.py (each comment writes the arithmetic out) and
the grids of the questions it solves."""

from __future__ import annotations

import math

import pytest

from solutions import vision
from tests.presets import d


def test_conv_bn_folded_bias():
    # s = 1.2 / sqrt(0.25 + 1e-5) = 1.2 / 0.50001 = 2.399952; b' = (0.5 - 0.8) x s + 0.1
    # = -0.7199856 + 0.1 = -0.6199856
    got = vision.conv_bn_folded_bias(0.5, 1.2, 0.1, 0.8, 0.25, 1e-5)
    assert got["s"] == pytest.approx(2.399952, rel=1e-6)
    assert got["answer"] == pytest.approx(-0.6199856, rel=1e-6)


def test_conv_output_size_resnet_stem():
    # 224, k7 s2 p3: (224 + 6 - 7) // 2 + 1 = 223 // 2 + 1 = 111 + 1 = 112
    assert vision.conv_output_size(h=224, k=7, s=2, p=3, d=1)["answer"] == 112


def test_conv_output_size_dilated_keeps_size():
    # k3 d2 spans 2 x 2 + 1 = 5 pixels; p2: (64 + 4 - 5) // 1 + 1 = 64
    got = vision.conv_output_size(h=64, k=3, s=1, p=2, d=2)
    assert got["eff_k"] == 5
    assert got["answer"] == 64


def test_conv_output_size_floors():
    # 32, k3 s2 p0: (32 - 3) // 2 + 1 = 29 // 2 + 1 = 14 + 1 = 15 (the last column is dropped)
    assert vision.conv_output_size(h=32, k=3, s=2, p=0, d=1)["answer"] == 15


def test_conv_flops_baidu_example():
    # Cin 64, H 128, W 64, 3x3, s1 p1 -> Cout 128 x 128 x 64
    # MACs = 128 x 128 x 64 x (64 x 9) = 1,048,576 x 576 = 603,979,776; FLOP = 2x = 1,207,959,552
    got = vision.conv_flops(n=1, cin=64, h=128, w=64, cout=128, k=3, s=1)
    assert (got["ho"], got["wo"]) == (128, 64)
    assert got["macs"] == 603_979_776
    assert got["answer"] == 1_207_959_552


def test_conv_flops_resnet_conv1():
    # 3 -> 64, 7x7 s2 p3 on 224: out 112 x 112; MACs = 64 x 12,544 x 147 = 118,013,952 (the
    # well-known 118M MACs of ResNet's first layer); FLOP = 236,027,904
    got = vision.conv_flops(n=1, cin=3, h=224, w=224, cout=64, k=7, s=2)
    assert got["macs"] == 118_013_952
    assert got["answer"] == 236_027_904


def test_conv_params_dense_and_grouped():
    # dense: 128 x 64 x 9 = 73,728 weights + 128 biases = 73,856
    assert vision.conv_params(cin=64, cout=128, k=3, groups=1)["answer"] == 73_856
    # groups 4: each filter sees 64 / 4 = 16 channels: 128 x 16 x 9 = 18,432 + 128 = 18,560
    got = vision.conv_params(cin=64, cout=128, k=3, groups=4)
    assert got["weights"] == 18_432
    assert got["answer"] == 18_560


def test_im2col_bytes_stride_1():
    # N 32, Cin 64, 56x56, 3x3 s1 p1 -> 56x56; rows 32 x 3136 = 100,352; cols 64 x 9 = 576
    # FP16: 100,352 x 576 x 2 = 115,605,504 B; input 32 x 64 x 3136 x 2 = 12,845,056 B; ratio 9
    got = vision.im2col_bytes(n=32, cin=64, h=56, k=3, s=1, dtype=d("fp16"))
    assert got["rows"] == 100_352
    assert got["answer"] == 115_605_504
    assert got["blowup"] == pytest.approx(9.0)


def test_im2col_bytes_stride_2():
    # 56, k3 s2 p1: (56 + 2 - 3) // 2 + 1 = 28; rows 784, cols 576, FP32 x 4 = 1,806,336 B;
    # input 64 x 3136 x 4 = 802,816 B; ratio 2.25 = 9 / 4
    got = vision.im2col_bytes(n=1, cin=64, h=56, k=3, s=2, dtype=d("fp32"))
    assert got["ho"] == 28
    assert got["answer"] == 1_806_336
    assert got["blowup"] == pytest.approx(2.25)


def test_winograd_saving():
    # F(2x2, 3x3): 4 x 9 = 36 direct vs 4 x 4 = 16 -> 2.25
    assert vision.winograd_mult_saving(m=2, r=3)["answer"] == pytest.approx(2.25)
    # F(4x4, 3x3): 16 x 9 = 144 vs 6 x 6 = 36 -> 4
    assert vision.winograd_mult_saving(m=4, r=3)["answer"] == pytest.approx(4.0)
    # F(6x6, 5x5): 36 x 25 = 900 vs 10 x 10 = 100 -> 9
    assert vision.winograd_mult_saving(m=6, r=5)["answer"] == pytest.approx(9.0)


def test_nhwc_offset():
    # C 64, H 56, W 56, (n, c, h, w) = (1, 2, 3, 5)
    # NHWC: ((1 x 56 + 3) x 56 + 5) x 64 + 2 = (3304 + 5) x 64 + 2 = 211,776 + 2 = 211,778
    # NCHW: ((1 x 64 + 2) x 56 + 3) x 56 + 5 = 3699 x 56 + 5 = 207,149
    got = vision.nhwc_offset(c_dim=64, h_dim=56, w_dim=56, n=1, c=2, h=3, w=5)
    assert got["answer"] == 211_778
    assert got["nchw"] == 207_149


def test_dw_separable_speedup():
    # 32 -> 64, 3x3: standard 32 x 64 x 9 = 18,432; depthwise 288 + pointwise 2048 = 2336
    # 18,432 / 2336 = 7.8904 = 1 / (1/64 + 1/9)
    got = vision.dw_separable_speedup(cin=32, cout=64, k=3)
    assert got["separable"] == 2336
    assert got["answer"] == pytest.approx(18_432 / 2336)
    assert got["answer"] == pytest.approx(1 / (1 / 64 + 1 / 9))


def test_depthwise_intensity():
    # N 1, C 256, 56x56, 3x3, FP16: elements 256 x 3136 = 802,816
    # FLOP 2 x 802,816 x 9 = 14,450,688; bytes (2 x 802,816 + 256 x 9) x 2 = 3,215,872
    # intensity 4.4935 FLOP/byte; 1x1 256 -> 256: 2 x 3136 x 65,536 = 411,041,792 FLOP over
    # (1,605,632 + 65,536) x 2 = 3,342,336 B = 122.98
    got = vision.depthwise_intensity(n=1, c=256, h=56, k=3, dtype=d("fp16"))
    assert got["flops"] == 14_450_688
    assert got["traffic"] == 3_215_872
    assert got["answer"] == pytest.approx(4.4935, abs=1e-4)
    assert got["pw_intensity"] == pytest.approx(122.98, abs=0.01)


def test_receptive_field():
    # ResNet-like: 7x7 s2 -> 7, j = 2; pool 3x3 s2 -> 7 + 2 x 2 = 11, j = 4;
    # two 3x3 convs: 11 + 2 x 4 = 19, 19 + 8 = 27 (= 7 + 2 s1 + 4 n d s1)
    assert vision.receptive_field(s1=2, n=2, d=1)["answer"] == 27
    # s1 = 1: 7; pool +2 -> 9, j = 2; three dilation-2 3x3 convs span 5: +4 x 2 each -> 33
    assert vision.receptive_field(s1=1, n=3, d=2)["answer"] == 33


def test_transposed_conv_output():
    # 16, k4 s2 p1: 15 x 2 - 2 + 3 + 0 + 1 = 32 (exact 2x upsampling)
    assert vision.transposed_conv_output(h=16, k=4, s=2, p=1, op=0)["answer"] == 32
    # 7, k3 s2 p1 op1: 12 - 2 + 2 + 1 + 1 = 14
    assert vision.transposed_conv_output(h=7, k=3, s=2, p=1, op=1)["answer"] == 14


def test_iou_and_giou_overlapping():
    # A (0,0,100,100), B (50,50,150,150): inter 50 x 50 = 2500; union 10,000 + 10,000 - 2500 =
    # 17,500; IoU = 1/7 = 0.142857; hull 150 x 150 = 22,500; GIoU = 1/7 - 5000/22,500 = -0.079365
    box = dict(ax1=0, ay1=0, ax2=100, ay2=100, bx1=50, by1=50, bx2=150, by2=150)
    assert vision.iou(**box)["answer"] == pytest.approx(1 / 7)
    assert vision.giou(**box)["answer"] == pytest.approx(1 / 7 - 5000 / 22_500)


def test_giou_disjoint():
    # A (0,0,20,20), B (40,0,60,20): IoU 0; union 800; hull 60 x 20 = 1200; GIoU = -400/1200
    box = dict(ax1=0, ay1=0, ax2=20, ay2=20, bx1=40, by1=0, bx2=60, by2=20)
    assert vision.iou(**box)["answer"] == 0
    assert vision.giou(**box)["answer"] == pytest.approx(-1 / 3)


def test_yolo_candidates():
    # 640: 80^2 + 40^2 + 20^2 = 6400 + 1600 + 400 = 8400; 3 anchors -> 25,200 (YOLOv5)
    assert vision.yolo_candidates(img=640, anchors=3)["answer"] == 25_200
    assert vision.yolo_candidates(img=640, anchors=1)["answer"] == 8400
    # 416: 52^2 + 26^2 + 13^2 = 2704 + 676 + 169 = 3549; x 3 = 10,647 (YOLOv3's figure)
    assert vision.yolo_candidates(img=416, anchors=3)["answer"] == 10_647


def test_bn_fold_bias():
    # gamma 2, var 4, eps 0: std 2, scale 1; b' = 0.5 + 1 x (0.2 - 1) = -0.3
    got = vision.bn_fold_bias(gamma=2, beta=0.5, mean=1, var=4, eps=0, bias=0.2)
    assert got["scale"] == pytest.approx(1.0)
    assert got["answer"] == pytest.approx(-0.3)
    # gamma 1.5, var 0.25 (std 0.5): scale 3; b' = -1 + 3 x (0 - (-0.4)) = 0.2
    assert vision.bn_fold_bias(gamma=1.5, beta=-1, mean=-0.4, var=0.25, eps=0, bias=0)[
        "answer"
    ] == pytest.approx(0.2)


def test_cross_entropy():
    # z = [2, 1, 0, -1]: sum of e^(z - 2) = 1 + 0.367879 + 0.135335 + 0.049787 = 1.553001
    # LSE = 2 + ln 1.553001 = 2.440190; label 0 -> 0.440190; label 3 -> 3.440190
    z = dict(z0=2, z1=1, z2=0, z3=-1)
    assert vision.cross_entropy(**z, label=0)["answer"] == pytest.approx(0.440190, abs=1e-6)
    assert vision.cross_entropy(**z, label=3)["answer"] == pytest.approx(3.440190, abs=1e-6)
    # equal logits: ln 4 = 1.386294 whatever the label
    assert vision.cross_entropy(z0=1, z1=1, z2=1, z3=1, label=2)["answer"] == pytest.approx(
        math.log(4)
    )


def test_label_smoothing_grad():
    # z = [2, 1, 0, -1], label 0: p0 = 1 / 1.553001 = 0.643914
    # eps 0.1, K 4: q_true = 0.9 + 0.025 = 0.925; grad = 0.643914 - 0.925 = -0.281086
    got = vision.label_smoothing_grad(z0=2, z1=1, z2=0, z3=-1, label=0, eps=0.1)
    assert got["q_true"] == pytest.approx(0.925)
    assert got["answer"] == pytest.approx(-0.281086, abs=1e-6)
    assert got["hard"] == pytest.approx(-0.356086, abs=1e-6)


def test_dropout_kept_value():
    # p 0.2: kept value 1.2 / 0.8 = 1.5; expectation 0.8 x 1.5 = 1.2
    got = vision.dropout_kept_value(a=1.2, p=0.2)
    assert got["answer"] == pytest.approx(1.5)
    assert got["expected"] == pytest.approx(1.2)


def test_sigmoid_chain_bound():
    # w 1: 0.25 per layer; 10 layers: 0.25^10 = 9.5367e-7
    assert vision.sigmoid_chain_bound(n=10, w=1)["answer"] == pytest.approx(9.5367e-7, rel=1e-4)
    # w 2: 0.5^20 = 9.5367e-7 as well
    assert vision.sigmoid_chain_bound(n=20, w=2)["answer"] == pytest.approx(9.5367e-7, rel=1e-4)


def test_kaiming_std():
    # 3x3, 64 -> 128: fan_in 576; std sqrt(2/576) = 0.058926; Xavier sqrt(2/(576 + 1152)) = 0.034021
    got = vision.kaiming_std(cin=64, cout=128, k=3)
    assert got["answer"] == pytest.approx(0.058926, abs=1e-6)
    assert got["xavier"] == pytest.approx(0.034021, abs=1e-6)


def test_drawn_problems_are_sensible():
    """Many seeded draws per numeric question: finite answers, shapes >= 1, IoU in [0, 1]."""
    from quizzer.grading.calc import prepare
    from tests.conftest import shipped_bank

    bank = shipped_bank()
    ids = [
        q.id
        for q in bank.questions
        if q.kind == "numeric" and q.solution.startswith("solutions.vision.")
    ]
    assert len(ids) >= 19
    for qid in ids:
        q = (
            bank.by_id[qid]
            if hasattr(bank, "by_id")
            else next(x for x in bank.questions if x.id == qid)
        )
        for seed in range(60):
            attempt = prepare(q, seed=seed)
            assert math.isfinite(attempt.answer), (qid, seed)
            inter = attempt.intermediates
            for key in ("ho", "wo"):
                if key in inter:
                    assert inter[key] >= 1, (qid, seed, attempt.params)
            if q.solution.endswith(".iou"):
                assert 0 <= attempt.answer <= 1, (qid, seed)
            if q.solution.endswith(".giou"):
                assert -1 < attempt.answer <= 1, (qid, seed)
            if q.solution.endswith(".conv_output_size"):
                assert attempt.answer >= 1, (qid, seed, attempt.params)
