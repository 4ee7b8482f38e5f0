"""The ``gblas`` commands on graph files: run, explain, plot; readers; errors; help text.

Results are checked against SciPy / NetworkX / NumPy oracles on tiny files written to
tmp_path; usage errors must be one line with exit status 2, failures one line with 1.
"""

from __future__ import annotations

import gzip
import io
import re
import subprocess
import sys

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.sparse import csgraph as ref

import gblas as gb
from gblas.cli import main
from gblas.commands import CommandFailed
from gblas.commands.files import read_edge_list, read_graph
from gblas.commands.progress import Stages

EDGES = [(0, 1, 2.0), (1, 2, 1.0), (2, 0, 1.0), (2, 3, 5.0), (4, 3, 1.5)]


def scipy_graph(edges=EDGES, n=5):
    r, c, w = zip(*edges)
    return sp.csr_array((np.array(w), (np.array(r), np.array(c))), shape=(n, n))


def write_formats(tmp_path, edges=EDGES, n=5):
    """The same graph as every file type the commands read."""
    S = scipy_graph(edges, n)
    paths = {}
    lines = "".join(f"{a} {b} {w}\n" for a, b, w in edges)
    paths["txt"] = tmp_path / "g.txt"
    paths["txt"].write_text("# comment\n% other comment\n" + lines)
    paths["csv"] = tmp_path / "g.csv"
    paths["csv"].write_text("source,target,weight\n" + lines.replace(" ", ","))
    paths["tsv"] = tmp_path / "g.tsv"
    paths["tsv"].write_text(lines.replace(" ", "\t"))
    paths["el.gz"] = tmp_path / "g.el.gz"
    with gzip.open(paths["el.gz"], "wt") as f:
        f.write(lines)
    paths["mtx"] = tmp_path / "g.mtx"
    gb.io.write_mm(paths["mtx"], gb.Matrix.from_scipy(S))
    paths["npz"] = tmp_path / "g.npz"
    sp.save_npz(paths["npz"], sp.csr_matrix(S))
    paths["gblas.npz"] = tmp_path / "g_store.npz"
    gb.io.save(paths["gblas.npz"], gb.Matrix.from_scipy(S))
    return S, paths


def read_csv(path):
    rows = path.read_text().splitlines()
    header = rows[0].split(",")
    data = np.array([[float(x) for x in r.split(",")] for r in rows[1:]]).reshape(-1, 2)
    return header, data[:, 0].astype(int), data[:, 1]


# ----------------------------------------------------------------------------- readers


def test_every_file_type_reads_the_same_graph(tmp_path):
    S, paths = write_formats(tmp_path)
    for kind, path in paths.items():
        A = read_graph(path)
        assert A.shape == (5, 5), kind
        np.testing.assert_array_equal(A.to_scipy().toarray(), S.toarray(), err_msg=kind)


def test_edge_list_details(tmp_path):
    p = tmp_path / "p.txt"
    p.write_text("1 2\n2 3\n3 1\n")  # pattern, 1-based
    r, c, w, n = read_edge_list(p, one_based=True)
    assert (r.tolist(), c.tolist(), w, n) == ([0, 1, 2], [1, 2, 0], None, 3)
    A = read_graph(p, one_based=True, undirected=True)
    assert A.dtype == np.bool_ and A.nvals == 6
    W = tmp_path / "w.csv"
    W.write_text("0,1,5\n1,0,2\n")  # undirected keeps the smaller weight
    assert read_graph(W, undirected=True).to_scipy().toarray().tolist() == [[0, 2], [2, 0]]
    extra = tmp_path / "x.tsv"
    extra.write_text("0\t1\t0.5\t1999\n")  # extra columns (timestamps) ignored
    assert read_graph(extra).to_scipy().toarray().tolist() == [[0, 0.5], [0, 0]]
    empty = tmp_path / "e.txt"
    empty.write_text("# nothing\n")
    assert read_graph(empty).shape == (0, 0)


@pytest.mark.parametrize("text, match", [
    ("0 1\na b\n", "not an edge list"),
    ("0.5 1\n", "integers"),
    ("0\n", "expected 'src dst"),
    ("1 2\n0 1\n-1 2\n", "below 0"),
])
def test_bad_edge_lists(tmp_path, text, match):
    p = tmp_path / "bad.txt"
    p.write_text(text)
    with pytest.raises(CommandFailed, match=match):
        read_graph(p)


def test_unknown_and_missing_files(tmp_path):
    with pytest.raises(CommandFailed, match="unknown graph file type"):
        read_graph(tmp_path / "g.xyz")
    with pytest.raises(CommandFailed, match="no such file"):
        read_graph(tmp_path / "g.mtx")
    np.savez(tmp_path / "other.npz", a=np.zeros(3))
    with pytest.raises(CommandFailed, match="without a SciPy sparse matrix"):
        read_graph(tmp_path / "other.npz")


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30),
                          st.floats(0.5, 9, allow_nan=False)), min_size=1, max_size=40),
       st.sampled_from([" ", ",", "\t"]))
def test_edge_list_roundtrip(tmp_path, edges, sep):
    p = tmp_path / ("h.csv" if sep == "," else "h.txt")
    p.write_text("".join(f"{a}{sep}{b}{sep}{w!r}\n" for a, b, w in edges))
    r, c, w = (np.array(x) for x in zip(*edges))
    n = int(max(r.max(), c.max())) + 1
    # oracle: SciPy's COO with duplicates resolved by the minimum
    want = np.full((n, n), np.inf)
    np.minimum.at(want, (r, c), w)
    got = read_graph(p).to_scipy().toarray()
    np.testing.assert_array_equal(np.where(np.isinf(want), 0, want), got)


# --------------------------------------------------------------------------------- run


def test_run_results_match_oracles(tmp_path, capsys):
    S, paths = write_formats(tmp_path)
    G = nx.DiGraph()
    G.add_nodes_from(range(5))
    G.add_weighted_edges_from(EDGES)
    out = tmp_path / "pr.csv"
    assert main(["run", "pagerank", str(paths["mtx"]), "--out", str(out), "--tol",
                 "1e-10"]) == 0
    header, v, r = read_csv(out)
    want = nx.pagerank(G, tol=1e-12, weight="weight")
    assert header == ["vertex", "rank"]
    np.testing.assert_allclose(r, [want[i] for i in v], atol=1e-8)
    assert "pagerank on" in capsys.readouterr().out

    lv = tmp_path / "lv.npy"
    assert main(["run", "bfs", str(paths["csv"]), "--source", "0", "--out", str(lv),
                 "--quiet"]) == 0
    order, pred = ref.breadth_first_order(S, 0)
    want = np.full(5, -1)
    want[0] = 0
    for u in order[1:]:
        want[u] = want[pred[u]] + 1
    np.testing.assert_array_equal(np.load(lv), want)  # unreached: -1
    csv = tmp_path / "lv.csv"
    assert main(["run", "bfs", str(paths["txt"]), "--out", str(csv), "--quiet"]) == 0
    _, v, levels = read_csv(csv)
    assert v.tolist() == np.flatnonzero(want >= 0).tolist()  # missing stays missing
    np.testing.assert_array_equal(levels, want[want >= 0])

    d = tmp_path / "d.npy"
    assert main(["run", "sssp", str(paths["npz"]), "--source", "1", "--out", str(d),
                 "--quiet"]) == 0
    np.testing.assert_allclose(np.load(d), ref.dijkstra(S, indices=1))


def test_run_labels_scores_scalars(tmp_path):
    S, paths = write_formats(tmp_path)
    f = str(paths["tsv"])
    for conn in ("weak", "strong"):
        out = tmp_path / f"cc-{conn}.npy"
        assert main(["run", "connected_components", f, "--connection", conn, "--out",
                     str(out), "--quiet"]) == 0
        got = np.load(out)
        _, want = ref.connected_components(S, connection=conn)
        # labels are the smallest vertex of each component: the same partition
        assert len(set(zip(got.tolist(), want.tolist()))) == len(set(want.tolist()))
        assert all(got[got] == got)
    U = nx.Graph([(a, b) for a, b, _ in EDGES])
    t = tmp_path / "t.csv"
    assert main(["run", "triangle_count", f, "--out", str(t), "--quiet"]) == 0
    assert t.read_text().split() == ["triangles", str(sum(nx.triangles(U).values()) // 3)]
    core = tmp_path / "core.npy"
    assert main(["run", "core_number", f, "--out", str(core), "--quiet"]) == 0
    want = nx.core_number(U)
    assert np.load(core).tolist() == [want[i] for i in range(5)]
    bc = tmp_path / "bc.npy"
    assert main(["run", "betweenness_centrality", f, "--out", str(bc), "--quiet"]) == 0
    want = nx.betweenness_centrality(nx.DiGraph([(a, b) for a, b, _ in EDGES]))
    np.testing.assert_allclose(np.load(bc), [want[i] for i in range(5)])
    lp = tmp_path / "lp.npy"
    assert main(["run", "label_propagation", f, "--out", str(lp), "--quiet"]) == 0
    assert np.load(lp).shape == (5,)
    assert main(["run", "betweenness_centrality", f, "--samples", "2", "--quiet"]) == 0


def test_explain_prints_the_plan(tmp_path, capsys):
    _, paths = write_formats(tmp_path)
    A = read_graph(paths["mtx"])
    for op, want in [("mxv", str(gb.explain(gb.mxv, A.T,
                                            gb.Vector.from_dense(np.full(5, 0.2)),
                                            "plus_times"))),
                     ("bfs", str(gb.explain(gb.algorithms.bfs, A, 0)))]:
        assert main(["explain", str(paths["mtx"]), op, "--no-progress"]) == 0
        out = capsys.readouterr().out
        assert out.splitlines()[0] == want
        assert re.search(r"^\s+format\s+csr$", out, re.MULTILINE)
    for op in ("vxm", "mxm", "sssp", "connected_components", "core_number",
               "label_propagation"):
        assert main(["explain", str(paths["txt"]), op, "--no-progress"]) == 0
        assert "kernel" in capsys.readouterr().out


# ------------------------------------------------------------------- errors and help


@pytest.mark.parametrize("argv, status, match", [
    (["run", "nope", "g.txt"], 2, "invalid choice: 'nope'"),
    (["run", "bfs", "g.txt", "--source", "-1"], 2, "--source"),
    (["run", "bfs", "g.txt", "--source", "99"], 2, "expected a vertex in \\[0, 5\\), got 99"),
    (["run", "bfs", "g.txt", "--out", "x.json"], 2, "ending in .csv or .npy"),
    (["run", "pagerank", "g.txt", "--damping", "2"], 2, "from 0 to 1"),
    (["run", "bfs", "missing.txt"], 1, "no such file"),
    (["run", "bfs", "bad.txt"], 1, "not an edge list"),
    (["run", "bfs", "g.txt", "--device", "gpu"], 1, "no GPU found"),
    (["explain", "g.txt", "nope"], 2, "invalid choice"),
    (["plot", "nope", "g.txt"], 2, "invalid choice"),
])
def test_errors_are_one_line(tmp_path, monkeypatch, capsys, argv, status, match):
    from gblas import _device

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(_device, "gpu_available", lambda: False)
    (tmp_path / "g.txt").write_text("".join(f"{a} {b} {w}\n" for a, b, w in EDGES))
    (tmp_path / "bad.txt").write_text("0 1\nx y\n")
    try:
        code = main(argv + ["--no-progress"] if argv[0] != "plot" else argv)
    except SystemExit as e:  # the argument parser's own errors
        code = e.code
    err = capsys.readouterr().err
    assert code == status
    assert re.search(match, err), err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_unexpected_errors_are_one_line(tmp_path, monkeypatch, capsys):
    from gblas.commands import run as run_cmd

    def boom(A, args):
        raise RuntimeError("disk on fire\nsecond line")

    algo = run_cmd.ALGORITHMS["core_number"]
    monkeypatch.setitem(run_cmd.ALGORITHMS, "core_number",
                        run_cmd.Algorithm(algo.name, algo.help, boom, algo.value, algo.kind))
    (tmp_path / "g.txt").write_text("0 1\n")
    assert main(["run", "core_number", str(tmp_path / "g.txt"), "--no-progress"]) == 1
    err = capsys.readouterr().err.strip()
    assert err == ("gblas run: failed: RuntimeError: disk on fire second line "
                   "(GBLAS_TRACEBACK=1 shows the traceback)")


def test_help_is_plain_text(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    for argv in (["--help"], ["run", "--help"], ["explain", "--help"], ["plot", "--help"],
                 ["plot", "degree", "--help"]):
        with pytest.raises(SystemExit) as done:
            main(argv)
        assert done.value.code == 0
        text = capsys.readouterr().out
        assert "usage: gblas" in text
        assert "``" not in text and ":func:" not in text and ":mod:" not in text
        assert all(len(line) <= 100 for line in text.splitlines()), text


def test_version():
    proc = subprocess.run([sys.executable, "-m", "gblas.cli", "--version"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.startswith("gblas ")


# ---------------------------------------------------------------------------- progress


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_on_a_terminal_and_lines_elsewhere():
    tty = _Tty()
    with Stages("gblas run bfs", ["read", "bfs"], stream=tty) as st:
        with st.stage("read"):
            pass
        with st.stage("bfs"):
            pass
    text = tty.getvalue()
    assert "gblas run bfs" in text and "2/2" in text and "\r" in text  # tqdm's bar
    plain = io.StringIO()
    with Stages("gblas run bfs", ["read", "bfs"], stream=plain) as st:
        with st.stage("read"):
            pass
        with pytest.raises(ValueError):
            with st.stage("bfs"):
                raise ValueError("x")
    lines = plain.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gblas run bfs: read: ")
    quiet = io.StringIO()
    with Stages("x", ["a"], stream=quiet, enabled=False) as st:
        with st.stage("a"):
            pass
    assert quiet.getvalue() == "" and "a" in st.times


# -------------------------------------------------------------------------------- plot


def test_plot_pictures(tmp_path, capsys):
    pytest.importorskip("matplotlib", reason="matplotlib is the plot extra")
    _, paths = write_formats(tmp_path)
    for pic in ("degree", "levels", "ranks"):
        out = tmp_path / f"{pic}.png"
        assert main(["plot", pic, str(paths["txt"]), "--out", str(out), "--no-progress"]) == 0
        assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"wrote {out}" in capsys.readouterr().out


def test_plot_without_matplotlib_is_one_line(tmp_path, monkeypatch, capsys):
    import builtins

    real = builtins.__import__

    def no_mpl(name, *a, **k):
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_mpl)
    (tmp_path / "g.txt").write_text("0 1\n")
    assert main(["plot", "degree", str(tmp_path / "g.txt"), "--no-progress"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("gblas plot degree: error: gblas plot needs matplotlib")


def test_plot_group_takes_plugins(monkeypatch, tmp_path, capsys):
    import argparse
    import types

    from gblas.commands import plot

    mod = types.ModuleType("fake_plot_plugin")
    seen = {}

    def add_parser(subparsers):
        q = subparsers.add_parser("locality", help="a plugin picture")
        q.add_argument("file")
        return q

    def run(args):
        seen["file"] = args.file
        return 0

    mod.add_parser, mod.run = add_parser, run
    monkeypatch.setitem(sys.modules, "fake_plot_plugin", mod)
    monkeypatch.setattr(plot, "PLUGINS", ("fake_plot_plugin", "no_such_module_here"))
    assert main(["plot", "locality", "g.mtx"]) == 0 and seen["file"] == "g.mtx"
    p = argparse.ArgumentParser()
    plot.add_parser(p.add_subparsers())


def test_degree_counts_against_numpy():
    from gblas.commands.plot import degree_counts

    deg = np.random.default_rng(3).integers(0, 9, size=200)
    d, c = degree_counts(deg)
    want = np.bincount(deg)
    assert d.tolist() == [k for k in range(1, want.size) if want[k]]
    assert c.tolist() == [int(want[k]) for k in d]
