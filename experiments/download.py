"""Download an official corpus into the data directory, verified and extracted; or set up WordNet 3.0.

    python experiments/download.py NAME [--data-dir DIR] [--url MIRROR] [--sha256 HEX] [--quiet]
    python experiments/download.py wordnet [--nltk-data DIR] [--source auto|nltk|system] [--force]

A corpus prints its files on stdout and, on stderr, the sha256 of the archive and what it was checked
against. MIRROR may be a URL, a file:// URL or a local path; a pinned sha256 still applies to it.
"""
from __future__ import annotations

import argparse
import signal
import sys

from nli_baselines.experiments.commandline.exits import Terminated, terminate_unwinds
from nli_baselines.experiments.corpora import resolve_data_dir
from nli_baselines.experiments.corpora.download import wordnet_setup
from nli_baselines.experiments.corpora.download.sources import DEFAULT_DEADLINE, SOURCES, DownloadError, download

WORDNET = "wordnet"
CORPUS_OPTIONS = ("data_dir", "url", "sha256", "deadline")
WORDNET_OPTIONS = ("nltk_data", "source", "system_dir", "index_url", "force")
EXIT_FAILED = 2  # like every command's user errors: one line saying what to do
EXIT_INTERRUPTED = 130


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The command line: one positional NAME, options grouped by what they apply to."""
    names = [*sorted(SOURCES), WORDNET]
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("name", choices=names, metavar="NAME", help=f"one of: {', '.join(names)}")
    parser.add_argument("--quiet", action="store_true", help="no progress output")
    corpus = parser.add_argument_group("corpora")
    corpus.add_argument("--data-dir", metavar="DIR", help="default: $NLI_DATA_DIR, else ./data")
    corpus.add_argument("--url", metavar="MIRROR",
                        help="fetch from this URL, file:// URL or local path instead of the official address")
    corpus.add_argument("--sha256", metavar="HEX", help="require this sha256 of the archive (replaces a pinned one)")
    corpus.add_argument("--deadline", metavar="SECONDS", type=_seconds, default=DEFAULT_DEADLINE,
                        help=f"give up a download still running after this long (default: {DEFAULT_DEADLINE:.0f})")
    wordnet = parser.add_argument_group("wordnet")
    wordnet.add_argument("--nltk-data", metavar="DIR",
                         help="NLTK data directory to install into (default: first of $NLTK_DATA, else NLTK's default)")
    wordnet.add_argument("--source", choices=wordnet_setup.SETUP_SOURCES, default="auto",
                         help="nltk: NLTK's downloader; system: copy --system-dir; auto (default): nltk, then system")
    system = wordnet_setup.SYSTEM_WORDNET
    wordnet.add_argument("--system-dir", metavar="DIR", default=str(system),
                         help=f"a WordNet 3.0 database folder (default: {system}, Debian's wordnet-base)")
    wordnet.add_argument("--index-url", metavar="URL", help="index for NLTK's downloader (default: NLTK's own)")
    wordnet.add_argument("--force", action="store_true", help="reinstall even if WordNet is already there")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    other = CORPUS_OPTIONS if args.name == WORDNET else WORDNET_OPTIONS
    misplaced = [option for option in other if getattr(args, option) != parser.get_default(option)]
    if misplaced:
        parser.error(f"{', '.join('--' + option.replace('_', '-') for option in misplaced)}: "
                     f"not an option for {args.name}")
    try:
        with terminate_unwinds():
            return install_wordnet(args) if args.name == WORDNET else download_corpus(args)
    except (KeyboardInterrupt, Terminated) as exc:
        print("error: interrupted; temporary files removed, nothing half-installed", file=sys.stderr)
        return EXIT_INTERRUPTED if isinstance(exc, KeyboardInterrupt) else 128 + signal.SIGTERM


def download_corpus(args: argparse.Namespace) -> int:
    """Fetch one corpus; its files on stdout, the hash and notes on stderr."""
    try:
        result = download(args.name, resolve_data_dir(args.data_dir), url=args.url, sha256=args.sha256,
                          progress=not args.quiet, deadline=args.deadline)
    except DownloadError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    for path in result.files:
        print(path)
    for line in result.notes():
        print(line, file=sys.stderr)
    return 0


def install_wordnet(args: argparse.Namespace) -> int:
    """Set up WordNet 3.0 for NLTK; progress on stderr, the report on stdout."""
    log = (lambda line: None) if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    try:
        result = wordnet_setup.install_wordnet(args.nltk_data, source=args.source, system_dir=args.system_dir,
                                               index_url=args.index_url, force=args.force, log=log)
    except wordnet_setup.WordNetSetupError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except OSError as exc:  # a read-only or missing --nltk-data, a full disk
        print(f"error: cannot install WordNet into {exc.filename or args.nltk_data or 'NLTK data'}: "
              f"{exc.strerror or exc}", file=sys.stderr)
        return EXIT_FAILED
    for line in result.lines():
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
