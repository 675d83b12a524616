"""Search the AIInfraGuide interview pages: which company asked about what.

    python scripts/interviews.py KEYWORD [KEYWORD ...]    # lines containing any keyword
    python scripts/interviews.py --company bytedance      # every question line of a company

Prints `company-key | file | question line`. Use the `file` as a company tag's `source`.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
REF = ROOT.parent / "shared" / "reference" / "aiinfraguide"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("keywords", nargs="*")
    parser.add_argument("--company")
    args = parser.parse_args()
    companies = yaml.safe_load((ROOT / "question_bank" / "companies.yaml").read_text("utf-8"))
    key_of = {page: c["key"] for c in companies["companies"] for page in c["pages"]}
    pages = json.loads((REF / "interviews.json").read_text("utf-8"))
    for page in pages:
        key = key_of.get(page["file"], "?")
        if args.company and key != args.company:
            continue
        for line in page["questions"]:
            low = line.lower()
            if not args.keywords or any(k.lower() in low for k in args.keywords):
                print(f"{key} | {page['file']} | {line}")


if __name__ == "__main__":
    main()
