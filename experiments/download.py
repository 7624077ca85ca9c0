"""Download an official corpus into the data directory, verified and extracted.

    python experiments/download.py NAME [--data-dir DIR] [--url MIRROR]
"""
from __future__ import annotations

import argparse
import sys

from experiments.corpora import resolve_data_dir
from experiments.corpora.sources import SOURCES, DownloadError, download


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("name", choices=sorted(SOURCES), metavar="NAME",
                        help=f"one of: {', '.join(sorted(SOURCES))}")
    parser.add_argument("--data-dir", metavar="DIR", help="default: $NLI_DATA_DIR, else ./data")
    parser.add_argument("--url", help="fetch from this address instead of the official one (a mirror)")
    parser.add_argument("--sha256", help="expected sha256 of the archive")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    data_dir = resolve_data_dir(args.data_dir)
    try:
        files = download(args.name, data_dir, url=args.url, sha256=args.sha256, progress=not args.quiet)
    except DownloadError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for path in files:
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
