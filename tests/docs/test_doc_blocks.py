"""Every Python code block of the pages in ``docs/`` runs against the current code.

A page's ```` ```python ```` blocks run in order in one namespace (as a reader runs them,
``__name__ == "__main__"``): a block with ``>>>`` prompts as a doctest (``ELLIPSIS``,
``NORMALIZE_WHITESPACE``), any other with ``exec``.  A block that needs what CI does not
have carries an HTML comment on the line before it::

    <!-- doc-test: needs gpu -->       CuPy with a CUDA device
    <!-- doc-test: needs cluster -->   a multi-node Dask cluster (never in CI)

Such a block is compiled (a syntax check) and runs only where its needs are met.
Blocks in other languages are not run, but each ``gblas SUBCOMMAND`` they show is checked
to exist by running it with ``--help``.  One test case per page; a failure names the
page, the block's line and first line, and the error.
"""

from __future__ import annotations

import contextlib
import copy
import doctest
import io
import re
import sys
import traceback
from dataclasses import dataclass

import pytest
from locations import REPO

DOCS = REPO / "docs"
PAGES = sorted(p.name for p in DOCS.glob("*.md"))
PYTHON = {"python", "py", "pycon"}
NEEDS = {"gpu", "cluster"}
#: Optional dependencies: a page whose blocks import one that is missing is skipped.
OPTIONAL = {"dask", "distributed", "networkx", "graphblas", "sparse", "matplotlib", "cupy"}
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
MARKER = re.compile(r"^\s*<!--\s*doc-test:\s*(?P<body>.*?)\s*-->\s*$")
FENCE = re.compile(r"^(?P<indent>\s*)```(?P<lang>[\w+-]*)\s*$")


@dataclass(frozen=True)
class Block:
    """A fenced code block of a page: its language, source, first line's number (1-based,
    the line after the fence) and the needs its marker declares."""

    page: str
    line: int
    lang: str
    source: str
    needs: tuple[str, ...] = ()

    @property
    def python(self) -> bool:
        return self.lang in PYTHON

    @property
    def doctest(self) -> bool:
        return any(s.lstrip().startswith(">>>") for s in self.source.splitlines())

    @property
    def where(self) -> str:
        first = next((s.strip() for s in self.source.splitlines() if s.strip()), "")
        return f"{self.page}, block at line {self.line} ({first!r})"


def parse_blocks(page: str, text: str) -> list[Block]:
    """The fenced blocks of a markdown page, in order, with their doc-test markers.

    A marker must stand on the line before a fence (blank lines between are allowed);
    a marker anywhere else, or one naming an unknown need, is an error.
    """
    lines = text.splitlines()
    blocks: list[Block] = []
    pending: tuple[int, tuple[str, ...]] | None = None
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        if m:
            body = m.group("body")
            if not body.startswith("needs "):
                raise ValueError(f"{page}:{i + 1}: a doc-test marker says {body!r}; expected "
                                 f"'needs gpu' or 'needs cluster'")
            needs = tuple(w for w in re.split(r"[\s,]+", body[len("needs "):]) if w)
            unknown = sorted(set(needs) - NEEDS)
            if unknown or not needs:
                raise ValueError(f"{page}:{i + 1}: a doc-test marker needs {unknown or '?'}; "
                                 f"known needs are {sorted(NEEDS)}")
            pending = (i + 1, needs)
            i += 1
            continue
        f = FENCE.match(lines[i])
        if f:
            indent, lang = f.group("indent"), f.group("lang").lower()
            end = i + 1
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            body_lines = [s[len(indent):] if s.startswith(indent) else s
                          for s in lines[i + 1:end]]
            blocks.append(Block(page, i + 2, lang, "\n".join(body_lines) + "\n",
                                pending[1] if pending else ()))
            pending = None
            i = end + 1
            continue
        if pending is not None and lines[i].strip():
            raise ValueError(f"{page}:{pending[0]}: a doc-test marker is not followed by a "
                             f"code block; put it on the line before the block's fence")
        i += 1
    if pending is not None:
        raise ValueError(f"{page}:{pending[0]}: a doc-test marker at the end of the page")
    return blocks


def _need_met(need: str) -> bool:
    if need == "gpu":
        from gblas._device import gpu_available

        return gpu_available()
    return False  # "cluster": never in CI


def _block_error(block: Block, err: BaseException, filename: str) -> str:
    """The error of an exec'd block, with the block's own line where it happened."""
    at = [fr for fr in traceback.extract_tb(err.__traceback__) if fr.filename == filename]
    line = f" (line {at[-1].lineno} of the block: {at[-1].line!r})" if at else ""
    what = "".join(traceback.format_exception_only(type(err), err)).strip()
    return f"{block.where} failed{line}:\n{what}"


#: NetworkX's error where the package is importable but not installed (no entry point).
NO_BACKEND = "'gblas' backend is not installed"


def _optional_missing(err: BaseException) -> str | None:
    if isinstance(err, ImportError) and NO_BACKEND in str(err):
        return "the gblas NetworkX backend (pip install -e .)"
    name = getattr(err, "name", None) or ""
    return name if isinstance(err, ModuleNotFoundError) and name.split(".")[0] in OPTIONAL \
        else None


def run_block(block: Block, ns: dict) -> str | None:
    """Run (or only compile, where its needs are unmet) one Python block in ``ns``.

    Returns None on success, else the failure's message; raises ``pytest.skip`` when an
    optional dependency is missing.
    """
    filename = f"<docs/{block.page}:{block.line}>"
    unmet = [n for n in block.needs if not _need_met(n)]
    if block.doctest:
        test = doctest.DocTestParser().get_doctest(block.source, ns, block.where,
                                                   filename, block.line - 1)
        if unmet:
            for ex in test.examples:
                try:
                    compile(ex.source, filename, "single")
                except SyntaxError as e:
                    return f"{block.where}: line {block.line + ex.lineno} does not compile: {e}"
            return None
        report: list[str] = []
        runner = doctest.DocTestRunner(verbose=False, optionflags=FLAGS)
        result = runner.run(test, out=report.append, clear_globs=False)
        ns.update(test.globs)  # DocTest ran in a copy of ns: keep the names it made
        if result.failed:
            text = "".join(report)
            missing = re.search(r"ModuleNotFoundError: No module named '([\w.]+)'", text)
            if missing and missing.group(1).split(".")[0] in OPTIONAL:
                pytest.skip(f"{block.page} needs {missing.group(1)} (an optional dependency)")
            if NO_BACKEND in text:
                pytest.skip(f"{block.page} needs the gblas NetworkX backend (pip install -e .)")
            return f"{block.where}: {result.failed} of {result.attempted} examples failed\n{text}"
        return None
    try:
        code = compile(block.source, filename, "exec")
    except SyntaxError as e:
        return f"{block.where} does not compile: {e}"
    if unmet:
        return None
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(code, ns)
    except Exception as e:
        name = _optional_missing(e)
        if name:
            pytest.skip(f"{block.page} needs {name} (an optional dependency)")
        return _block_error(block, e, filename)
    return None


# ------------------------------------------------------------------- the gblas command
def cli_commands(block: Block) -> list[list[str]]:
    """The ``gblas`` subcommands a non-Python block shows, each as the arguments that ask
    for its help (``[subcommand, (picture,) "--help"]``, or ``["--version"]``).
    """
    out: list[list[str]] = []
    for line in block.source.splitlines():
        m = re.match(r"^\s*(?:\$\s+)?gblas\s+(.*)$", line)
        if not m:
            continue
        for alt in re.split(r"\s+\|\s+", m.group(1)):
            words = alt.split()
            if not words:
                continue
            if words[0].startswith("-"):
                args = [[words[0]]]
            elif words[0] == "plot" and len(words) > 1:
                args = [["plot", p, "--help"] for p in words[1].split("|")]
            else:
                args = [[words[0], "--help"]]
            out += [a for a in args if a not in out]
    return out


def run_cli(args: list[str]) -> str | None:
    """Run ``gblas ARGS`` in this process; None when it exits with status 0."""
    from gblas.cli import main

    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            status = main(args)
    except SystemExit as e:
        status = e.code
    return None if status in (0, None) else (
        f"`gblas {' '.join(args)}` exited with {status}:\n{buf.getvalue()[-2000:]}")


# -------------------------------------------------------------------------- isolation
def _nx_state():
    """A snapshot of NetworkX's global configuration, or None (not imported)."""
    nx = sys.modules.get("networkx")
    if nx is None or not hasattr(nx, "config"):
        return None

    def snap(cfg):
        return {k: snap(v) if hasattr(v, "_orig_class") else copy.copy(v)
                for k, v in cfg.items()}

    return snap(nx.config)


def _nx_restore(state) -> None:
    nx = sys.modules.get("networkx")
    if nx is None or not hasattr(nx, "config"):
        return

    def put(cfg, saved):
        for k, v in saved.items():
            if isinstance(v, dict) and hasattr(cfg[k], "_orig_class"):
                put(cfg[k], v)
            elif cfg[k] != v:
                setattr(cfg, k, v)

    if state is None:  # imported by the page: NetworkX's defaults are what it set
        nx.config.backend_priority.algos = []
        if "gblas" in nx.config.backends:
            nx.config.backends.gblas.device = "cpu"
    else:
        put(nx.config, state)


def _close_clients(ns: dict) -> None:
    """Close the Dask clients (and their local clusters) a page left open."""
    dist = sys.modules.get("distributed")
    if dist is None:
        return
    for value in list(ns.values()):
        if isinstance(value, dist.Client):
            cluster = getattr(value, "cluster", None)
            value.close()
            if cluster is not None:
                cluster.close()
        elif isinstance(value, dist.LocalCluster):
            value.close()


def _param(page: str):
    text = (DOCS / page).read_text()
    marks = [pytest.mark.distributed] if "LocalCluster(" in text else []
    return pytest.param(page, marks=marks, id=page)


# ------------------------------------------------------------------------------ tests
def test_pages_found():
    assert "guide.md" in PAGES and len(PAGES) >= 5, PAGES


@pytest.mark.parametrize("page", [_param(p) for p in PAGES])
def test_page_blocks_run(page):
    blocks = parse_blocks(page, (DOCS / page).read_text())
    python = [b for b in blocks if b.python]
    commands = [a for b in blocks if not b.python for a in cli_commands(b)]
    if not python and not commands:
        pytest.skip(f"{page} has no Python blocks and no gblas commands")
    ns: dict = {"__name__": "__main__"}
    saved = _nx_state()
    try:
        for block in python:
            error = run_block(block, ns)
            assert error is None, error
    finally:
        _close_clients(ns)
        _nx_restore(saved)
    for args in commands:
        error = run_cli(args)
        assert error is None, f"{page}: {error}"


def test_blocks_markers_and_commands_are_parsed():
    text = "Intro\n<!-- doc-test: needs gpu -->\n```python\nx = 1\n```\n\n```sh\n" \
        "$ gblas run bfs g.mtx\ngblas plot degree|levels FILE\ngblas demo | info | --version\n```\n"
    py, sh = parse_blocks("p.md", text)
    assert (py.lang, py.line, py.source, py.needs) == ("python", 4, "x = 1\n", ("gpu",))
    assert (sh.lang, sh.needs, sh.python) == ("sh", (), False)
    assert cli_commands(sh) == [["run", "--help"], ["plot", "degree", "--help"],
                                ["plot", "levels", "--help"], ["demo", "--help"],
                                ["info", "--help"], ["--version"]]


def test_markers_are_checked():
    bad = "<!-- doc-test: needs teleporter -->\n```python\nx = 1\n```\n"
    with pytest.raises(ValueError, match="teleporter"):
        parse_blocks("p.md", bad)
    with pytest.raises(ValueError, match="not followed by a code block"):
        parse_blocks("p.md", "<!-- doc-test: needs gpu -->\ntext\n```python\nx\n```\n")


def test_failures_name_the_page_block_and_error():
    ns: dict = {}
    ok = Block("p.md", 3, "python", "y = 2\n")
    assert run_block(ok, ns) is None and ns["y"] == 2
    bad = Block("p.md", 7, "python", "z = y + 1\nw = undefined_name\n")
    msg = run_block(bad, ns)
    assert "p.md, block at line 7 ('z = y + 1')" in msg
    assert "line 2 of the block" in msg and "NameError" in msg
    wrong = Block("p.md", 9, "python", ">>> y * 2\n5\n")
    msg = run_block(wrong, ns)
    assert "p.md, block at line 9" in msg and "Expected" in msg and "4" in msg
    # a block whose need is unmet is compiled, not run: a syntax error still fails
    assert run_block(Block("p.md", 1, "python", "raise SystemExit\n", ("cluster",)), ns) \
        is None
    assert "does not compile" in run_block(Block("p.md", 1, "python", "x = (\n",
                                                 ("cluster",)), ns)
