"""Check question_bank/self_checks/: every self-check item of every guide article is mapped to
questions that exist and link that article.

    python scripts/check_self_checks.py [ARTICLE_KEY ...]

Each file question_bank/self_checks/<article key>.yaml is a list of
`{item: N, questions: [id, ...]}`, N being the item's position (1-based) in the article's
self-check list (see `python scripts/articles.py KEY`). Exit 1 listing every gap.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def problems(keys: list[str] | None = None) -> list[str]:
    """Every unmapped item, unknown id, or mapped question that does not link the article."""
    import json

    import yaml

    from quizzer.content.bank import load_bank

    reference = ROOT.parent / "shared" / "reference" / "aiinfraguide" / "articles.json"
    articles = json.loads(reference.read_text("utf-8"))
    bank = load_bank(ROOT / "question_bank", use_cache=False)
    found = []
    for article in articles:
        items = article.get("self_check") or []
        if not items or article["module"] == 0 or (keys and article["key"] not in keys):
            continue
        path = ROOT / "question_bank" / "self_checks" / f"{article['key']}.yaml"
        if not path.exists():
            found.append(f"{path.relative_to(ROOT)}: missing ({len(items)} items)")
            continue
        rows = yaml.safe_load(path.read_text("utf-8")) or []
        mapped = {row["item"]: row.get("questions") or [] for row in rows}
        for number in range(1, len(items) + 1):
            ids = mapped.get(number, [])
            if not ids:
                found.append(f"{path.relative_to(ROOT)}: item {number} has no question")
            for qid in ids:
                q = bank.get(qid)
                if q is None:
                    found.append(f"{path.relative_to(ROOT)}: item {number}: no question {qid!r}")
                elif article["key"] not in q.articles:
                    found.append(
                        f"{path.relative_to(ROOT)}: item {number}: {qid} does not link "
                        f"{article['key']}"
                    )
        extra = sorted(set(mapped) - set(range(1, len(items) + 1)))
        if extra:
            found.append(f"{path.relative_to(ROOT)}: items {extra} do not exist")
    return found


if __name__ == "__main__":
    issues = problems(sys.argv[1:] or None)
    print("\n".join(issues) or "ok")
    sys.exit(1 if issues else 0)
