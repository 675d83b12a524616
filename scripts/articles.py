"""Show AIInfraGuide articles as data: key, title, URL, headings and self-check items.

python scripts/articles.py m4-c2-2.1 [KEY ...]    # one or more articles in full
python scripts/articles.py --module 4             # every article of a module
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

REF = Path(__file__).resolve().parent.parent.parent / "shared" / "reference" / "aiinfraguide"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("keys", nargs="*")
    parser.add_argument("--module", type=int)
    args = parser.parse_args()
    for article in json.loads((REF / "articles.json").read_text("utf-8")):
        if args.keys and article["key"] not in args.keys:
            continue
        if args.module is not None and article["module"] != args.module:
            continue
        print(f"== {article['key']}: {article['title_en']} / {article['title_zh']}")
        print(f"   {article['url']}")
        for heading in article["headings"] or []:
            print(f"   # {heading}")
        for number, item in enumerate(article["self_check"] or [], 1):
            print(f"   ?{number:>3}. {item}")
        for entry in article.get("update_log") or []:
            if entry.get("summary_en"):
                print(f"   log: {entry['summary_en']}")


if __name__ == "__main__":
    main()
