"""Computer vision and classic ML: convolution shapes, FLOPs and parameters, im2col and
Winograd costs, tensor layouts, depthwise convolution, receptive fields, boxes (IoU, GIoU), YOLO
candidate counts and BatchNorm folding; cross-entropy, label smoothing, dropout, sigmoid gradient
decay and weight initialization.

Every function takes keyword arguments and returns base units (FLOP, bytes, counts, ratios) as
{"answer": value, **intermediates}, like the other solution modules.
"""

from __future__ import annotations

import math
from typing import Any

# --- Convolution shapes, FLOPs and parameters -------------------------------------------------


def _conv_out(size: int, k: int, s: int, p: int, d: int = 1) -> int:
    """PyTorch's Conv2d output length: floor((size + 2p - d(k-1) - 1) / s) + 1."""
    return (size + 2 * p - d * (k - 1) - 1) // s + 1


def conv_output_size(h: int, k: int, s: int, p: int, d: int) -> dict[str, float]:
    """Output height of a Conv2d over height h with kernel k, stride s, padding p, dilation d.
    The dilated kernel spans d(k-1)+1 input pixels."""
    eff_k = d * (k - 1) + 1
    span = h + 2 * p - eff_k
    return {"answer": _conv_out(h, k, s, p, d), "eff_k": eff_k, "padded": h + 2 * p, "span": span}


def conv_flops(n: int, cin: int, h: int, w: int, cout: int, k: int, s: int) -> dict[str, float]:
    """Forward FLOPs of a dense Conv2d (groups=1) with padding floor(k/2):
    2 x N x Cout x Hout x Wout x Cin x K x K, one multiply-accumulate counted as 2 FLOP; bias and
    activation ignored."""
    p = k // 2
    ho = _conv_out(h, k, s, p)
    wo = _conv_out(w, k, s, p)
    macs_per_output = cin * k * k
    outputs = n * cout * ho * wo
    macs = outputs * macs_per_output
    return {
        "answer": 2 * macs,
        "p": p,
        "ho": ho,
        "wo": wo,
        "outputs": outputs,
        "macs_per_output": macs_per_output,
        "macs": macs,
    }


def conv_params(cin: int, cout: int, k: int, groups: int) -> dict[str, float]:
    """Parameters of Conv2d(cin, cout, k, groups=groups, bias=True):
    Cout x (Cin / groups) x K x K weights + Cout biases."""
    weights = cout * (cin // groups) * k * k
    dense = cout * cin * k * k
    return {
        "answer": weights + cout,
        "weights": weights,
        "bias": cout,
        "cin_per_group": cin // groups,
        "dense_weights": dense,
    }


def im2col_bytes(n: int, cin: int, h: int, k: int, s: int, dtype: Any) -> dict[str, float]:
    """Bytes of the explicit im2col buffer for a square input h x h, kernel k, stride s and padding
    floor(k/2): a (N x Hout x Wout) x (Cin x K x K) matrix in dtype. Also the input's bytes and
    the blow-up ratio (about K^2 / s^2)."""
    p = k // 2
    ho = _conv_out(h, k, s, p)
    rows = n * ho * ho
    cols = cin * k * k
    buffer = rows * cols * dtype.bytes
    source = n * cin * h * h * dtype.bytes
    return {
        "answer": buffer,
        "p": p,
        "ho": ho,
        "rows": rows,
        "cols": cols,
        "source": source,
        "blowup": buffer / source,
    }


def winograd_mult_saving(m: int, r: int) -> dict[str, float]:
    """Multiplication saving of 2D Winograd F(m x m, r x r): direct convolution needs m^2 r^2
    multiplies per m x m output tile, Winograd (m + r - 1)^2 element-wise multiplies."""
    direct = m * m * r * r
    tile = m + r - 1
    wino = tile * tile
    return {"answer": direct / wino, "direct": direct, "tile": tile, "wino": wino}


# --- Layouts ----------------------------------------------------------------------------------


def nhwc_offset(
    c_dim: int, h_dim: int, w_dim: int, n: int, c: int, h: int, w: int
) -> dict[str, float]:
    """Linear element offset of (n, c, h, w) in a contiguous NHWC tensor:
    ((n x H + h) x W + w) x C + c. Also the NCHW offset ((n x C + c) x H + h) x W + w."""
    pixel = (n * h_dim + h) * w_dim + w
    nchw = ((n * c_dim + c) * h_dim + h) * w_dim + w
    return {"answer": pixel * c_dim + c, "pixel": pixel, "nchw": nchw, "nh": n * h_dim + h}


# --- Depthwise-separable convolution ----------------------------------------------------------


def dw_separable_speedup(cin: int, cout: int, k: int) -> dict[str, float]:
    """Standard K x K conv MACs over depthwise K x K + pointwise 1 x 1 MACs, per output pixel
    (stride 1, same spatial size): Cin Cout K^2 / (Cin K^2 + Cin Cout) = 1 / (1/Cout + 1/K^2)."""
    standard = cin * cout * k * k
    depthwise = cin * k * k
    pointwise = cin * cout
    separable = depthwise + pointwise
    return {
        "answer": standard / separable,
        "standard": standard,
        "depthwise": depthwise,
        "pointwise": pointwise,
        "separable": separable,
        "fraction": separable / standard,
    }


def depthwise_intensity(n: int, c: int, h: int, k: int, dtype: Any) -> dict[str, float]:
    """Arithmetic intensity of a depthwise K x K conv (stride 1, same padding, square h x h) if
    input, output and weights each move through DRAM once: FLOP = 2 N C H^2 K^2,
    bytes = (2 N C H^2 + C K^2) x bytes. Also a 1 x 1 conv C -> C on the same tensor."""
    elems = n * c * h * h
    flops = 2 * elems * k * k
    traffic = (2 * elems + c * k * k) * dtype.bytes
    pw_flops = 2 * n * h * h * c * c
    pw_traffic = (2 * elems + c * c) * dtype.bytes
    return {
        "answer": flops / traffic,
        "elems": elems,
        "flops": flops,
        "traffic": traffic,
        "pw_intensity": pw_flops / pw_traffic,
    }


# --- Receptive field and transposed convolution -----------------------------------------------


def receptive_field(s1: int, n: int, d: int) -> dict[str, float]:
    """Receptive field of: 7x7 conv stride s1, 3x3 max-pool stride 2, then n 3x3 stride-1 convs
    with dilation d. Recurrence r += (k_eff - 1) x j, j *= s, starting at r = 1, j = 1."""
    layers = [(7, s1, 1), (3, 2, 1)] + [(3, 1, d)] * n
    r, j = 1, 1
    steps = []
    for k, s, dil in layers:
        r += (dil * (k - 1) + 1 - 1) * j
        steps.append(r)
        j *= s
    return {"answer": r, "after_stem": steps[0], "after_pool": steps[1], "jump": 2 * s1}


def transposed_conv_output(h: int, k: int, s: int, p: int, op: int) -> dict[str, float]:
    """Output length of ConvTranspose2d (dilation 1):
    (H - 1) s - 2p + (k - 1) + output_padding + 1."""
    stretched = (h - 1) * s
    return {"answer": stretched - 2 * p + (k - 1) + op + 1, "stretched": stretched}


# --- Boxes ------------------------------------------------------------------------------------


def _boxes(
    ax1: float, ay1: float, ax2: float, ay2: float, bx1: float, by1: float, bx2: float, by2: float
) -> dict[str, float]:
    area_a = (ax2 - ax1) * (ay2 - ay1)
    area_b = (bx2 - bx1) * (by2 - by1)
    iw = max(0, min(ax2, bx2) - max(ax1, bx1))
    ih = max(0, min(ay2, by2) - max(ay1, by1))
    inter = iw * ih
    union = area_a + area_b - inter
    cw = max(ax2, bx2) - min(ax1, bx1)
    ch = max(ay2, by2) - min(ay1, by1)
    hull = cw * ch
    return {
        "area_a": area_a,
        "area_b": area_b,
        "iw": iw,
        "ih": ih,
        "inter": inter,
        "union": union,
        "iou": inter / union,
        "cw": cw,
        "ch": ch,
        "hull": hull,
        "giou": inter / union - (hull - union) / hull,
    }


def iou(
    ax1: int, ay1: int, ax2: int, ay2: int, bx1: int, by1: int, bx2: int, by2: int
) -> dict[str, float]:
    """IoU of two axis-aligned boxes in (x1, y1, x2, y2) corner form, continuous coordinates
    (width = x2 - x1, no +1): intersection / (area A + area B - intersection)."""
    parts = _boxes(ax1, ay1, ax2, ay2, bx1, by1, bx2, by2)
    return {**parts, "answer": parts["iou"]}


def giou(
    ax1: int, ay1: int, ax2: int, ay2: int, bx1: int, by1: int, bx2: int, by2: int
) -> dict[str, float]:
    """Generalized IoU: IoU - (|C| - |A u B|) / |C| with C the smallest box enclosing both."""
    parts = _boxes(ax1, ay1, ax2, ay2, bx1, by1, bx2, by2)
    return {**parts, "answer": parts["giou"], "empty": parts["hull"] - parts["union"]}


def yolo_candidates(img: int, anchors: int) -> dict[str, float]:
    """Candidate boxes a YOLO head emits before NMS for an img x img input with three detection
    levels at strides 8, 16 and 32 and `anchors` predictions per grid cell."""
    cells = [(img // s) ** 2 for s in (8, 16, 32)]
    return {
        "answer": anchors * sum(cells),
        "g8": img // 8,
        "g16": img // 16,
        "g32": img // 32,
        "c8": cells[0],
        "c16": cells[1],
        "c32": cells[2],
        "cells": sum(cells),
    }


# --- BatchNorm folding ------------------------------------------------------------------------


def bn_fold_bias(
    gamma: float, beta: float, mean: float, var: float, eps: float, bias: float
) -> dict[str, float]:
    """Fold inference BatchNorm y = gamma (x - mean) / sqrt(var + eps) + beta into the preceding
    conv: per output channel, scale = gamma / sqrt(var + eps), W' = scale W,
    b' = beta + scale (b - mean)."""
    std = math.sqrt(var + eps)
    scale = gamma / std
    return {
        "answer": beta + scale * (bias - mean),
        "std": std,
        "scale": scale,
        "shift": bias - mean,
    }


# --- Classic ML -------------------------------------------------------------------------------


def _softmax(logits: list[float]) -> tuple[list[float], float, float]:
    top = max(logits)
    exps = [math.exp(z - top) for z in logits]
    total = sum(exps)
    return [e / total for e in exps], top, top + math.log(total)


def cross_entropy(z0: float, z1: float, z2: float, z3: float, label: int) -> dict[str, float]:
    """Cross-entropy (natural log) of softmax(z) against class `label`:
    logsumexp(z) - z[label] = -log p[label]."""
    z = [z0, z1, z2, z3]
    probs, top, lse = _softmax(z)
    return {
        "answer": lse - z[label],
        "top": top,
        "sum_exp": sum(math.exp(v - top) for v in z),
        "lse": lse,
        "zy": z[label],
        "py": probs[label],
    }


def label_smoothing_grad(
    z0: float, z1: float, z2: float, z3: float, label: int, eps: float
) -> dict[str, float]:
    """dL/dz for the true class under label smoothing with K = 4 classes: the target is
    q = (1 - eps) onehot + eps / K, and dL/dz_j = p_j - q_j."""
    z = [z0, z1, z2, z3]
    k = len(z)
    probs, _, _ = _softmax(z)
    q_true = 1 - eps + eps / k
    q_other = eps / k
    return {
        "answer": probs[label] - q_true,
        "py": probs[label],
        "q_true": q_true,
        "q_other": q_other,
        "hard": probs[label] - 1,
        "sum_exp": sum(math.exp(v - max(z)) for v in z),
    }


def dropout_kept_value(a: float, p: float) -> dict[str, float]:
    """Inverted dropout with drop probability p: a kept unit outputs a / (1 - p) in training so
    E[output] = (1 - p) x a / (1 - p) = a; inference is the identity."""
    keep = 1 - p
    return {"answer": a / keep, "keep": keep, "scale": 1 / keep, "expected": keep * (a / keep)}


def sigmoid_chain_bound(n: int, w: float) -> dict[str, float]:
    """Upper bound on |d out / d in| through n scalar layers x <- sigmoid(w x): each contributes
    |w| sigma'(.) <= |w| / 4, so the product is at most (|w| / 4)^n."""
    per_layer = abs(w) / 4
    return {"answer": per_layer**n, "per_layer": per_layer, "log10": n * math.log10(per_layer)}


def kaiming_std(cin: int, cout: int, k: int) -> dict[str, float]:
    """He (Kaiming) normal init, fan_in mode, ReLU gain sqrt(2), for a k x k conv:
    std = sqrt(2 / fan_in), fan_in = Cin k^2. Also Xavier's sqrt(2 / (fan_in + fan_out))."""
    fan_in = cin * k * k
    fan_out = cout * k * k
    return {
        "answer": math.sqrt(2 / fan_in),
        "fan_in": fan_in,
        "fan_out": fan_out,
        "var": 2 / fan_in,
        "xavier": math.sqrt(2 / (fan_in + fan_out)),
    }


# --- BatchNorm folding at deployment ----------------------------------------------------------


def conv_bn_folded_bias(
    bias: float, gamma: float, beta: float, mean: float, var: float, eps: float
) -> dict[str, float]:
    """Bias of one output channel after folding BatchNorm into the preceding conv, as
    bn_fold_bias computes it, with its scale named s (the deployment questions' notation).

    BN(y) = gamma * (y - mean) / sqrt(var + eps) + beta with y = w*x + b, so
    w' = w * s and b' = (b - mean) * s + beta, where s = gamma / sqrt(var + eps)."""
    folded = bn_fold_bias(gamma=gamma, beta=beta, mean=mean, var=var, eps=eps, bias=bias)
    return {"answer": folded["answer"], "s": folded["scale"], "std": folded["std"]}
