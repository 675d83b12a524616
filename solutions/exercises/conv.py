"""Convolution and layout exercises: 2-D convolution by im2col + GEMM (NCHW, stride, padding,
dilation), and the NCHW <-> NHWC layout change written as index arithmetic on flat buffers."""

from __future__ import annotations

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mutant, exact, mutate
from solutions.exercises.compare import normal

# --- im2col convolution ---------------------------------------------------------------------


def conv2d_reference(
    x: np.ndarray, w: np.ndarray, bias: np.ndarray, stride: int, padding: int, dilation: int
) -> np.ndarray:
    """Direct cross-correlation in float64, one kernel tap at a time."""
    n, _, h, wd = x.shape
    o, _, kh, kw = w.shape
    oh = (h + 2 * padding - dilation * (kh - 1) - 1) // stride + 1
    ow = (wd + 2 * padding - dilation * (kw - 1) - 1) // stride + 1
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    out = np.zeros((n, o, oh, ow))
    for i in range(kh):
        for j in range(kw):
            r0, c0 = i * dilation, j * dilation
            patch = xp[
                :,
                :,
                r0 : r0 + stride * (oh - 1) + 1 : stride,
                c0 : c0 + stride * (ow - 1) + 1 : stride,
            ]
            out += np.einsum("nchw,oc->nohw", patch, w[:, :, i, j].astype(np.float64))
    out += bias.astype(np.float64)[None, :, None, None]
    return out.astype(np.float32)


def _conv_fixed(
    rng: np.random.Generator,
    n: int,
    c: int,
    h: int,
    wd: int,
    o: int,
    k: tuple[int, int],
    stride: int,
    padding: int,
    dilation: int,
) -> Case:
    return {
        "x": normal(rng, (n, c, h, wd)),
        "w": normal(rng, (o, c, *k), 0.5),
        "bias": normal(rng, (o,)),
        "stride": stride,
        "padding": padding,
        "dilation": dilation,
    }


def _conv_case(rng: np.random.Generator, size: float) -> Case:
    while True:
        kh, kw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        stride, padding, dilation = (
            int(rng.integers(1, 3)),
            int(rng.integers(0, 3)),
            int(rng.integers(1, 3)),
        )
        h, wd = (int(rng.integers(1, 4 + int(10 * size))) for _ in range(2))
        if min(h + 2 * padding - dilation * (kh - 1), wd + 2 * padding - dilation * (kw - 1)) >= 1:
            break
    return _conv_fixed(
        rng,
        int(rng.integers(1, 3)),
        int(rng.integers(1, 2 + int(3 * size))),
        h,
        wd,
        int(rng.integers(1, 2 + int(4 * size))),
        (kh, kw),
        stride,
        padding,
        dilation,
    )


CONV_SOLUTION = '''\
import numpy as np


def conv2d_im2col(
    x: np.ndarray, w: np.ndarray, bias: np.ndarray, stride: int, padding: int, dilation: int
) -> np.ndarray:
    """x: (N, C, H, W); w: (O, C, KH, KW); bias: (O,). Cross-correlation (no kernel flip), the
    same stride, zero padding and dilation in both spatial dims. Returns (N, O, OH, OW) float32."""
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    # A dilated kernel spans dilation * (K - 1) + 1 input pixels.
    oh = (h + 2 * padding - dilation * (kh - 1) - 1) // stride + 1
    ow = (wd + 2 * padding - dilation * (kw - 1) - 1) // stride + 1
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    # im2col: one row per output pixel, one column per (c, i, j) tap, ordered like w's (C, KH, KW).
    cols = np.empty((n, oh, ow, c, kh, kw), dtype=x.dtype)
    for i in range(kh):
        for j in range(kw):
            r0, c0 = i * dilation, j * dilation
            rows = slice(r0, r0 + stride * (oh - 1) + 1, stride)  # OH input rows for tap i
            cols_ = slice(c0, c0 + stride * (ow - 1) + 1, stride)
            cols[:, :, :, :, i, j] = xp[:, :, rows, cols_].transpose(0, 2, 3, 1)
    cols = cols.reshape(n * oh * ow, c * kh * kw)
    out = cols @ w.reshape(o, c * kh * kw).T + bias  # the GEMM: (N*OH*OW, CKK) @ (CKK, O)
    return out.reshape(n, oh, ow, o).transpose(0, 3, 1, 2).astype(np.float32)
'''

CONV_IM2COL = ExerciseSpec(
    reference=conv2d_reference,
    make_case=_conv_case,
    solution=CONV_SOLUTION,
    examples=(
        {
            "x": np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4),
            "w": np.array([[[[1.0, 0.0], [0.0, -1.0]]]], dtype=np.float32),
            "bias": np.array([0.5], dtype=np.float32),
            "stride": 1,
            "padding": 0,
            "dilation": 1,
        },
    ),
    edge_cases={
        "1x1 kernel (a plain GEMM over channels)": lambda rng: _conv_fixed(
            rng, 2, 3, 4, 5, 4, (1, 1), 1, 0, 1
        ),
        "3x3, stride 2, padding 1": lambda rng: _conv_fixed(rng, 1, 2, 7, 6, 3, (3, 3), 2, 1, 1),
        "dilation 2 (receptive field 5x5)": lambda rng: _conv_fixed(
            rng, 1, 2, 8, 9, 2, (3, 3), 1, 0, 2
        ),
        "non-square kernel 1x3, padding 2": lambda rng: _conv_fixed(
            rng, 2, 3, 5, 4, 2, (1, 3), 1, 2, 1
        ),
        "asymmetric kernel 3x2 (catches a flipped kernel)": lambda rng: _conv_fixed(
            rng, 1, 1, 5, 5, 1, (3, 2), 1, 0, 1
        ),
        "kernel as large as the padded input": lambda rng: _conv_fixed(
            rng, 1, 2, 3, 3, 2, (3, 3), 1, 0, 1
        ),
    },
    mutants=(
        Mutant(
            "kernel flipped (true convolution)",
            mutate(
                CONV_SOLUTION,
                "w.reshape(o, c * kh * kw)",
                "w[:, :, ::-1, ::-1].reshape(o, c * kh * kw)",
            ),
            "deep-learning 'convolution' is cross-correlation: the kernel is not flipped",
        ),
        Mutant(
            "output size ignores dilation",
            mutate(
                mutate(
                    CONV_SOLUTION,
                    "oh = (h + 2 * padding - dilation * (kh - 1) - 1) // stride + 1",
                    "oh = (h + 2 * padding - kh) // stride + 1",
                ),
                "ow = (wd + 2 * padding - dilation * (kw - 1) - 1) // stride + 1",
                "ow = (wd + 2 * padding - kw) // stride + 1",
            ),
            "a dilated kernel spans d(K-1)+1 pixels",
        ),
        Mutant(
            "columns ordered (KH, KW, C) against weights ordered (C, KH, KW)",
            mutate(
                CONV_SOLUTION,
                "cols = cols.reshape(n * oh * ow, c * kh * kw)",
                "cols = cols.transpose(0, 1, 2, 4, 5, 3).reshape(n * oh * ow, c * kh * kw)",
            ),
            "the im2col column order must match the weight reshape",
        ),
        Mutant(
            "padding on one side only",
            mutate(
                CONV_SOLUTION,
                "((0, 0), (0, 0), (padding, padding), (padding, padding))",
                "((0, 0), (0, 0), (0, 2 * padding), (0, 2 * padding))",
            ),
            "zero padding is symmetric",
        ),
        Mutant(
            "bias left out",
            mutate(
                CONV_SOLUTION, "w.reshape(o, c * kh * kw).T + bias", "w.reshape(o, c * kh * kw).T"
            ),
            "every output channel adds its bias",
        ),
    ),
)


# --- NCHW <-> NHWC on flat buffers ----------------------------------------------------------


def layout_reference(buf: np.ndarray, n: int, c: int, h: int, w: int, to_nhwc: bool) -> np.ndarray:
    if to_nhwc:
        return buf.reshape(n, c, h, w).transpose(0, 2, 3, 1).reshape(-1).copy()
    return buf.reshape(n, h, w, c).transpose(0, 3, 1, 2).reshape(-1).copy()


def _layout_fixed(rng: np.random.Generator, n: int, c: int, h: int, w: int, to_nhwc: bool) -> Case:
    return {
        "buf": rng.integers(-1000, 1000, n * c * h * w).astype(np.int32),
        "n": n,
        "c": c,
        "h": h,
        "w": w,
        "to_nhwc": to_nhwc,
    }


def _layout_case(rng: np.random.Generator, size: float) -> Case:
    n, c, h, w = (int(rng.integers(1, 2 + int(k * size))) for k in (3, 8, 9, 9))
    return _layout_fixed(rng, n, c, h, w, bool(rng.random() < 0.5))


LAYOUT_SOLUTION = '''\
import numpy as np


def convert_layout(buf: np.ndarray, n: int, c: int, h: int, w: int, to_nhwc: bool) -> np.ndarray:
    """buf: flat int32 tensor of N*C*H*W elements, NCHW-contiguous if to_nhwc else
    NHWC-contiguous. Returns the flat tensor in the other layout. Written like a kernel: one
    "thread" per output element computes its coordinates and reads one input element."""
    out = np.empty_like(buf)
    idx = np.arange(buf.size)  # every output index at once, as a grid of threads would
    if to_nhwc:
        # Output NHWC: idx = ((nn * H + y) * W + x) * C + ch
        ch = idx % c
        x = (idx // c) % w
        y = (idx // (c * w)) % h
        nn = idx // (c * w * h)
        src = ((nn * c + ch) * h + y) * w + x  # the same element in NCHW
    else:
        # Output NCHW: idx = ((nn * C + ch) * H + y) * W + x
        x = idx % w
        y = (idx // w) % h
        ch = (idx // (w * h)) % c
        nn = idx // (w * h * c)
        src = ((nn * h + y) * w + x) * c + ch  # the same element in NHWC
    out[idx] = buf[src]  # writes are contiguous; reads are strided
    return out
'''

LAYOUT = ExerciseSpec(
    reference=layout_reference,
    make_case=_layout_case,
    solution=LAYOUT_SOLUTION,
    compare=exact,
    examples=(
        {
            "buf": np.arange(12, dtype=np.int32),
            "n": 1,
            "c": 3,
            "h": 2,
            "w": 2,
            "to_nhwc": True,
        },
    ),
    edge_cases={
        "H != W, to NHWC": lambda rng: _layout_fixed(rng, 2, 3, 4, 5, True),
        "H != W, to NCHW": lambda rng: _layout_fixed(rng, 2, 3, 5, 4, False),
        "one channel (layouts coincide)": lambda rng: _layout_fixed(rng, 2, 1, 3, 4, True),
        "1x1 spatial (layouts coincide)": lambda rng: _layout_fixed(rng, 3, 5, 1, 1, False),
        "batch of 1, many channels": lambda rng: _layout_fixed(rng, 1, 16, 3, 2, True),
    },
    mutants=(
        Mutant(
            "H and W swapped in the source offset",
            mutate(
                LAYOUT_SOLUTION,
                "src = ((nn * c + ch) * h + y) * w + x",
                "src = ((nn * c + ch) * w + x) * h + y",
            ),
            "only square images survive this",
        ),
        Mutant(
            "NCHW formula used in both directions",
            mutate(
                LAYOUT_SOLUTION,
                "src = ((nn * h + y) * w + x) * c + ch",
                "src = ((nn * c + ch) * h + y) * w + x",
            ),
            "the inverse conversion reads the input as NHWC",
        ),
        Mutant(
            "channel index taken from the wrong stride",
            mutate(LAYOUT_SOLUTION, "ch = (idx // (w * h)) % c", "ch = (idx // w) % c"),
            "the channel stride in NCHW is H*W",
        ),
    ),
)
