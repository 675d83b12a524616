"""Computer-vision operator exercises: greedy non-maximum suppression with IoU."""

from __future__ import annotations

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mutant, exact, mutate


def nms_reference(boxes: np.ndarray, scores: np.ndarray, iou_threshold: float) -> np.ndarray:
    b = boxes.astype(np.float64)
    area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    order = np.argsort(-scores.astype(np.float64), kind="stable")
    keep: list[int] = []
    suppressed = np.zeros(len(b), dtype=bool)
    for i in order:
        if suppressed[i]:
            continue
        keep.append(int(i))
        w = np.clip(np.minimum(b[i, 2], b[:, 2]) - np.maximum(b[i, 0], b[:, 0]), 0, None)
        h = np.clip(np.minimum(b[i, 3], b[:, 3]) - np.maximum(b[i, 1], b[:, 1]), 0, None)
        inter = w * h
        with np.errstate(invalid="ignore", divide="ignore"):
            iou = inter / (area[i] + area - inter)
        suppressed |= iou > iou_threshold
    return np.array(keep, dtype=np.int64)


def _boxes(rng: np.random.Generator, n: int, clusters: int) -> np.ndarray:
    centres = rng.uniform(0, 100, (clusters, 2))
    c = centres[rng.integers(0, clusters, n)] + rng.normal(0, 4, (n, 2))
    wh = rng.uniform(5, 30, (n, 2))
    return np.concatenate([c - wh / 2, c + wh / 2], axis=1).astype(np.float32)


def _nms_case(rng: np.random.Generator, size: float) -> Case:
    n = int(rng.integers(1, 2 + int(60 * size)))
    return {
        "boxes": _boxes(rng, n, int(rng.integers(1, 6))),
        "scores": rng.random(n).astype(np.float32),
        "iou_threshold": float(rng.choice([0.3, 0.5, 0.7])),
    }


NMS_SOLUTION = '''\
import numpy as np


def nms(boxes: np.ndarray, scores: np.ndarray, iou_threshold: float) -> np.ndarray:
    """boxes: (N, 4) float32 (x1, y1, x2, y2) with x1 < x2, y1 < y2; scores: (N,). Greedy NMS:
    repeatedly keep the highest-scoring box left and remove every remaining box whose IoU with
    it is > iou_threshold. Returns the kept indices, highest score first (ties: lower index)."""
    x1, y1, x2, y2 = (boxes[:, j].astype(np.float64) for j in range(4))
    area = (x2 - x1) * (y2 - y1)  # continuous coordinates: no +1
    order = np.argsort(-scores, kind="stable")  # stable: equal scores keep index order
    keep = []
    while order.size > 0:
        i = order[0]
        keep.append(int(i))
        rest = order[1:]
        w = np.maximum(0.0, np.minimum(x2[i], x2[rest]) - np.maximum(x1[i], x1[rest]))
        h = np.maximum(0.0, np.minimum(y2[i], y2[rest]) - np.maximum(y1[i], y1[rest]))
        inter = w * h
        iou = inter / (area[i] + area[rest] - inter)  # union counts the overlap once
        order = rest[iou <= iou_threshold]  # only survivors can suppress later boxes
    return np.array(keep, dtype=np.int64)
'''


def _fixed(boxes: list[list[float]], scores: list[float], thr: float) -> Case:
    return {
        "boxes": np.array(boxes, dtype=np.float32).reshape(-1, 4),
        "scores": np.array(scores, dtype=np.float32),
        "iou_threshold": thr,
    }


NMS = ExerciseSpec(
    reference=nms_reference,
    make_case=_nms_case,
    solution=NMS_SOLUTION,
    compare=exact,
    examples=(
        _fixed(
            [[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30], [0, 0, 10, 9]],
            [0.9, 0.8, 0.7, 0.95],
            0.5,
        ),
    ),
    edge_cases={
        "IoU exactly at the threshold is kept": lambda rng: _fixed(
            [[0, 0, 3, 1], [1, 0, 4, 1]], [0.9, 0.8], 0.5
        ),
        "a suppressed box does not suppress others": lambda rng: _fixed(
            [[0, 0, 10, 10], [4, 0, 14, 10], [9, 0, 19, 10]], [0.9, 0.8, 0.7], 0.3
        ),
        "equal scores keep index order": lambda rng: _fixed(
            [[0, 0, 2, 2], [50, 50, 52, 52], [0, 0, 2, 2]], [0.5, 0.5, 0.5], 0.5
        ),
        "small boxes (a +1 area would matter)": lambda rng: _fixed(
            [[0, 0, 2, 2], [1, 1, 3, 3]], [0.9, 0.8], 0.2
        ),
        "one box": lambda rng: _fixed([[5, 5, 6, 7]], [0.3], 0.5),
        "dense cluster": lambda rng: {
            "boxes": _boxes(rng, 40, 1),
            "scores": rng.random(40).astype(np.float32),
            "iou_threshold": 0.5,
        },
    },
    mutants=(
        Mutant(
            "suppresses at IoU == threshold",
            mutate(
                NMS_SOLUTION,
                "order = rest[iou <= iou_threshold]",
                "order = rest[iou < iou_threshold]",
            ),
            "boxes are removed only when the IoU exceeds the threshold",
        ),
        Mutant(
            "+1 pixel areas",
            mutate(
                mutate(
                    mutate(
                        NMS_SOLUTION,
                        "area = (x2 - x1) * (y2 - y1)  # continuous coordinates: no +1",
                        "area = (x2 - x1 + 1) * (y2 - y1 + 1)",
                    ),
                    "np.minimum(x2[i], x2[rest]) - np.maximum(x1[i], x1[rest]))",
                    "np.minimum(x2[i], x2[rest]) - np.maximum(x1[i], x1[rest]) + 1)",
                ),
                "np.minimum(y2[i], y2[rest]) - np.maximum(y1[i], y1[rest]))",
                "np.minimum(y2[i], y2[rest]) - np.maximum(y1[i], y1[rest]) + 1)",
            ),
            "the old integer-pixel convention inflates small boxes' overlaps",
        ),
        Mutant(
            "union without subtracting the overlap",
            mutate(
                NMS_SOLUTION,
                "iou = inter / (area[i] + area[rest] - inter)",
                "iou = inter / (area[i] + area[rest])",
            ),
            "the overlap is counted twice, so IoU is underestimated",
        ),
        Mutant(
            "boxes taken in index order",
            mutate(
                NMS_SOLUTION,
                'order = np.argsort(-scores, kind="stable")',
                "order = np.arange(len(scores))",
            ),
            "the greedy pass must visit boxes by decreasing score",
        ),
        Mutant(
            "suppressed boxes still suppress",
            "import numpy as np\n\n\n"
            "def iou(a, b):\n"
            "    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))\n"
            "    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))\n"
            "    inter = w * h\n"
            "    area = lambda r: (r[2] - r[0]) * (r[3] - r[1])\n"
            "    return inter / (area(a) + area(b) - inter)\n\n\n"
            "def nms(boxes, scores, iou_threshold):\n"
            "    b = boxes.astype(np.float64)\n"
            '    order = np.argsort(-scores, kind="stable")\n'
            "    keep = []\n"
            "    for pos, i in enumerate(order):\n"
            "        # compared with every higher-scoring box, kept or not\n"
            "        if all(iou(b[i], b[j]) <= iou_threshold for j in order[:pos]):\n"
            "            keep.append(int(i))\n"
            "    return np.array(keep, dtype=np.int64)\n",
            "only kept boxes suppress: a removed box must not remove its own neighbours",
        ),
    ),
)
