"""``gblas plot locality GRAPH``: per-format bytes per edge and the miss curve of a graph.

The first thing to open to see why a format was chosen: the simulated main-memory
traffic of one pull SpMV (PageRank's product) in every gblas CPU format and vertex
order, and the main-memory accesses of CSR as the last-level cache grows (where the
vertex data stops fitting, CSR's gathers start to miss; the cache-aware formats keep
them in the cache).  Prints a table; with matplotlib (``pip install 'gblas[plot]'``)
also writes a PNG.

Examples
--------
>>> import argparse
>>> p = argparse.ArgumentParser(); sub = p.add_subparsers(dest="picture")
>>> add_parser(sub)
>>> a = p.parse_args(["locality", "kron:8", "--no-png"])
>>> a.graph, a.png
('kron:8', False)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

__all__ = ["add_parser", "run", "load_graph", "locality_table"]


def add_parser(subparsers: Any) -> None:
    """Add ``locality`` to the subparsers of the ``gblas plot`` group (its plug-in hook:
    :data:`gblas.commands.plot.PLUGINS`)."""
    q = subparsers.add_parser("locality", help="simulated bytes per edge per format and the "
                                               "miss curve of a graph's pull SpMV")
    q.add_argument("graph", help="a Matrix Market file (.mtx or .mtx.gz), or kron:SCALE "
                                 "for a Graph500 Kronecker graph")
    q.add_argument("--llc", type=_size, default=None, metavar="BYTES",
                   help="last-level cache to simulate, e.g. 256K or 8M (default: the "
                        "machine's, as `gblas info` shows)")
    q.add_argument("--ratio", type=float, default=None, metavar="K",
                   help="size the last level to the vertex data / K instead (the "
                        "regime of graphs K times larger than the cache)")
    q.add_argument("--x-bytes", type=int, default=8, help="bytes per vertex value (8)")
    q.add_argument("--no-transpose", dest="transposed", action="store_false",
                   help="pull over A itself (default: over A^T, PageRank's product, for a "
                        "directed graph)")
    q.add_argument("--cgs", action="store_true",
                   help="also the idealized cache-guided schedules (slower)")
    q.add_argument("--out", default=None, help="PNG file (default locality-NAME.png)")
    q.add_argument("--no-png", dest="png", action="store_false", help="table only")
    q.set_defaults(func=run)


def _size(text: str) -> int:
    t = text.strip().upper().rstrip("B").rstrip("I")
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(t[-1:], 1)
    try:
        v = int(float(t.rstrip("KMG")) * mult)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a size such as 256K or 8M, got {text!r}") from None
    if v < 64:
        raise argparse.ArgumentTypeError(f"expected at least 64 bytes, got {text!r}")
    return v


def load_graph(spec: str):
    """A gblas Matrix from a Matrix Market path or ``kron:SCALE``.

    Examples
    --------
    >>> load_graph("kron:6").shape
    (64, 64)
    """
    from ..exceptions import InvalidValue, bad_arg

    if spec.startswith("kron:"):
        from ..io import generators

        try:
            scale = int(spec[5:])
        except ValueError:
            raise bad_arg(InvalidValue, "plot locality", "GRAPH", "kron:SCALE with an "
                          "integer scale", repr(spec), "Try kron:16.") from None
        return generators.kronecker(scale, symmetric=True)
    from ..io import read_mm

    if not Path(spec).exists():
        raise bad_arg(InvalidValue, "plot locality", "GRAPH", "an existing Matrix Market "
                      "file or kron:SCALE", repr(spec), "Check the path.")
    return read_mm(spec)


def locality_table(A: Any, cache: Any, *, x_bytes: int = 8, transposed: bool = False,
                   cgs: bool = False) -> list[dict]:
    """Rows of simulated traffic: every CPU format (natural order), CSR in the other
    orders, and with ``cgs`` the two idealized schedules.

    Examples
    --------
    >>> from gblas.analysis import CacheConfig
    >>> rows = locality_table(load_graph("kron:7"), CacheConfig.scaled(1024))
    >>> [r["variant"] for r in rows][:2]
    ['csr', 'shards']
    """
    from .simulate import FORMATS, pull_csr, simulate

    csr = pull_csr(A, transposed)
    runs = [(f, "natural", "vertex") for f in FORMATS]
    runs += [("csr", o, "vertex") for o in ("degree", "frequency")]
    if cgs:
        runs += [("csr", "natural", s) for s in ("cgs_vertex", "cgs_edge")]
    rows = []
    base = None
    for f, o, s in runs:
        r = simulate(csr, f, o, cache, schedule=s, x_bytes=x_bytes)
        base = base or r.memory_accesses
        name = f if (o, s) == ("natural", "vertex") else \
            (f"csr {o} order" if s == "vertex" else s)
        rows.append({"variant": name, "accesses": r.memory_accesses,
                     "bytes_per_edge": r.bytes_per_edge,
                     "relative": r.memory_accesses / max(base, 1),
                     "hit_rates": r.hit_rates, "note": r.note})
    return rows


def run(args: argparse.Namespace) -> int:
    """Run ``gblas plot locality``."""
    from .curve import miss_curve
    from .simulate import CacheConfig, pull_csr

    A = load_graph(args.graph)
    directed = True
    try:
        S = A.to_scipy()
        directed = (S != S.T).nnz > 0
    except Exception:  # pragma: no cover - a matrix SciPy cannot compare
        pass
    transposed = bool(args.transposed and directed)
    csr = pull_csr(A, transposed)
    m, n = csr.shape
    vertex = (m + n) * args.x_bytes
    if args.ratio:
        cache = CacheConfig.scaled(max(1024, int(vertex / args.ratio)))
    elif args.llc:
        cache = CacheConfig.scaled(args.llc)
    else:
        cache = CacheConfig.machine()
    print(f"{args.graph}: {m:,} x {n:,}, {csr.nnz:,} entries, pull over "
          f"{'A^T' if transposed else 'A'}; vertex data {vertex / 2**20:.3g} MiB; "
          f"cache {cache.describe()}")
    if vertex <= cache.llc:
        print("the vertex data fits the last level: every format moves its compulsory "
              "traffic only (try --ratio 16 for a graph 16x the cache)")
    rows = locality_table(csr, cache, x_bytes=args.x_bytes, cgs=args.cgs)
    print("| variant | main-memory accesses | bytes/edge | vs csr | hit rates |")
    print("|---|---:|---:|---:|---|")
    for r in rows:
        hr = " / ".join(f"{100 * h:.0f}%" for h in r["hit_rates"])
        print(f"| {r['variant']} | {r['accesses']:,} | {r['bytes_per_edge']:.2f} | "
              f"{r['relative']:.2f} | {hr} |")
    curves = [miss_curve(csr, None, "csr", o, x_bytes=args.x_bytes)
              for o in ("natural", "frequency")]
    print("\nmiss curve (one fully associative LRU level), bytes/edge:")
    print("| cache | " + " | ".join(f"csr {c.order}" for c in curves) + " |")
    print("|---:|" + "---:|" * len(curves))
    for k, size in enumerate(curves[0].sizes):
        print(f"| {_human(size)} | " + " | ".join(f"{c.bytes_per_edge[k]:.2f}"
                                                  for c in curves) + " |")
    if not args.png:
        return 0
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("\nno picture: matplotlib is not installed; `pip install 'gblas[plot]'` "
              "adds it (the table above has the same numbers)", file=sys.stderr)
        return 0
    name = Path(args.graph).name.split(".")[0].replace(":", "")
    out = Path(args.out or f"locality-{name}.png")
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    ax1.barh([r["variant"] for r in rows][::-1], [r["bytes_per_edge"] for r in rows][::-1])
    ax1.set_xlabel("simulated main-memory bytes per edge")
    ax1.set_title(f"one pull SpMV, {cache.describe().split(',')[-2].strip()} last level")
    for c in curves:
        ax2.plot(c.sizes, c.bytes_per_edge, marker="o", label=f"csr, {c.order} order")
    ax2.axvline(vertex, color="grey", linestyle=":", label="vertex data")
    ax2.axvline(cache.llc, color="red", linestyle="--", label="simulated last level")
    ax2.set_xscale("log", base=2)
    ax2.set_xlabel("cache bytes (fully associative LRU)")
    ax2.set_ylabel("bytes per edge")
    ax2.set_title("miss curve")
    ax2.legend()
    fig.suptitle(f"{args.graph}: {m:,} vertices, {csr.nnz:,} entries")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"\nwrote {out}")
    return 0


def _human(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return f"{n / (1 << shift):.3g} {unit}"
    return f"{n} B"
