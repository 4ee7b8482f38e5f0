"""The light panels' build on the GPU in a few passes over the entries
(:mod:`gblas.formats.light_panels` holds the layout and its definition).

A stable counting sort of the CSR's entries by column panel writes every entry straight
into its padded slot (its row, its column id and its value): one pass counts each tile of
consecutive entries by panel, a scan gives every (panel, tile) its first slot, a second
pass scatters the tile in entry order.  The slots then hold each panel's entries by row,
and within a row by column, the order the layout needs (a CSR's own order, kept by the
stable sort), with no comparison sort.  Further passes mark the first entry of every
(panel, row) pair, move the pairs into the bank interleave, and number the partial
results of every group.  The kernels are in ``cuda/panel_build.cu``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import cupy as cp
import numpy as np

from .codegen import get_function, source
from .launch import allow_dynamic_smem, blocks, max_block_smem

__all__ = ["Slots", "interleave_banks", "partials", "scatter", "supported"]

#: Warps of a tile's block (the scatter keeps a counter per warp and panel).
WARPS = 8
THREADS = 32 * WARPS
#: Entries of a tile (see :func:`_tile`).
TILE = 8192
HEAD = 0x8000
_INT32_MAX = int(np.iinfo(np.int32).max)
_WORDS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64, 16: np.uint64}


class Slots(NamedTuple):
    """The entries in their padded slots (``tot`` of them; padding: row -1, ent 0, value
    0): rows, column ids, values as words (``vw`` per value; None when iso), ``ent``,
    and each panel's entries (``pc``) and first slot (``p0``), int64; ``npair`` the
    (panel, row) pairs."""

    srow: Any
    scol: Any
    sval: Any
    vw: int
    ent: Any
    pc: Any
    p0: Any
    tot: int
    npair: int
    #: int32 per slot, 1 where a pair starts (for the bank interleave; else None)
    flag: Any = None
    #: (row, column panel) pairs with the columns' own ids (counted when relabelled)
    plain_pairs: int = -1


def supported(nnz: int, npn: int, group: int, itemsize: int | None) -> bool:
    """Whether :func:`scatter` takes ``nnz`` entries in ``npn`` panels of groups of
    ``group`` slots: slots counted in 32 bits, one block's counters per warp and panel
    in shared memory, values of 1, 2, 4, 8 or 16 bytes (``itemsize``; None: iso)."""
    slots = nnz + group * (npn + 1)
    return (slots < _INT32_MAX and 1 <= npn < 65536 and
            WARPS * npn * 4 <= max_block_smem() and
            (itemsize is None or itemsize in _WORDS))


def _fn(name: str, word: Any = np.uint32) -> Any:
    return get_function(source("panel_build.cu", names={"V_t": word}), name)


def _i32(v: int) -> np.int32:
    return np.int32(v)


def _tile(nnz: int, npn: int) -> int:
    """Entries of a tile: :data:`TILE`, more where the (panel, tile) table would pass an
    eighth of the entries (half a byte per entry).  A warp walks its share of a tile in
    order, so longer tiles run longer chains: at Kronecker 24 on an H200 (1,024 panels)
    the scatter took 13.0 ms in tiles of 8,192 entries, 17.5 in tiles of 32,768 and 18.2
    in tiles of 262,144."""
    T = TILE
    while -(-nnz // T) * npn > max(nnz // 8, 1 << 16) and T < (1 << 22):
        T *= 2
    return T


def _grid1(n: int) -> int:
    """Blocks of 256 threads for a pass over ``n`` items, one per thread."""
    return min(blocks(n, 256), 1 << 16)


def _grid(n: int) -> int:
    """Blocks of 256 threads for a pass over ``n`` slots, each thread loading
    ``PB_AHEAD`` (4) at a time."""
    return min(blocks(-(-n // 4), 256), 1 << 16)


def _sort_pass(ids: Any, payload: Any, values: Any, rank: Any, W: int, nb: int, group: int,
               fill: int, plain: Any = None) -> tuple:
    """One stable counting sort of the entries (``ids``, int32; ``payload``, int32;
    ``values`` or None) by bucket ``(rank[id] or id) / W`` (of ``nb``),
    each bucket's slots padded to a multiple of ``group`` (payload ``fill`` there):
    ``(payload, ids, values as words, words per value, count per bucket, first slot per
    bucket, slots)`` in slot order.  ``plain`` (a one-element uint64 array): the count
    pass adds the (payload, id / W) pairs of the entries in their order there."""
    nnz = int(ids.size)
    T = _tile(nnz, nb)
    ntiles = max(1, -(-nnz // T))
    has_rank = rank is not None
    rk = rank if has_rank else ids
    key = cp.empty(max(nnz, 1), dtype=np.uint16)
    hist = cp.empty(nb * ntiles, dtype=np.int32)
    count = _fn("pb_count")
    allow_dynamic_smem(count, nb * 4)
    bits = _i32(max(1, (nb - 1).bit_length()))
    fixed = (rk, _i32(has_rank), _i32(W), _i32(nnz), _i32(T), _i32(nb), _i32(ntiles), bits)
    counter = plain if plain is not None else cp.zeros(1, dtype=np.uint64)
    count((ntiles,), (THREADS,), (ids,) + fixed + (key, hist, payload,
                                                   _i32(W if plain is not None else 0), counter),
          shared_mem=nb * 4)
    # bucket-major running counts: a bucket's tiles one after another
    upto = cp.cumsum(hist, dtype=np.int64)
    first = upto[::ntiles] - hist[::ntiles]
    pc = upto[ntiles - 1::ntiles] - first
    padded = -(-pc // group) * group
    ends = cp.cumsum(padded)
    p0 = ends - padded
    tot = int(ends[-1])
    base = ((upto - hist).reshape(nb, ntiles) + (p0 - first)[:, None]).astype(np.int32)
    del upto, hist, first
    if values is None:
        word, vw, vin = np.uint32, 0, cp.zeros(1, dtype=np.uint32)
    else:
        word = _WORDS[values.dtype.itemsize]
        vin = cp.ascontiguousarray(values).view(word)
        vw = values.dtype.itemsize // np.dtype(word).itemsize
    out = cp.full(tot, fill, dtype=np.int32) if tot > nnz else cp.empty(tot, dtype=np.int32)
    oid = cp.empty(tot, dtype=np.int32)
    oval = cp.zeros(max(tot * vw, 1), dtype=word)
    fn = _fn("pb_scatter", word)
    smem = WARPS * nb * 4
    allow_dynamic_smem(fn, smem)
    fn((ntiles,), (THREADS,), (key, ids, rk, _i32(has_rank), payload, vin, _i32(vw), _i32(nnz),
                               _i32(T), _i32(nb), _i32(ntiles), bits, base.ravel(), out, oid,
                               oval),
       shared_mem=smem)
    return out, oid, oval if vw else None, vw, pc, p0, tot


def scatter(indices: Any, rows: Any, values: Any, rank: Any, W: int, npn: int,
            group: int, flags: bool = False) -> Slots:
    """The entries (``indices``, their ``rows``, ``values`` or None: int32 arrays in CSR
    order) in the padded slots of panels of ``W`` column ids, the ids ``rank[c]``
    (int32; None: the columns' own), each panel's slots a multiple of ``group``; the
    pairs' first entries marked in ``ent`` (and ``flag``, with ``flags``).  Relabelled,
    the pairs of the columns' own panels are counted too (``plain_pairs``)."""
    plain = None if rank is None else cp.zeros(1, dtype=np.uint64)
    srow, scol, sval, vw, pc, p0, tot = _sort_pass(indices, rows, values, rank, W, npn,
                                                   group, -1, plain)
    ent = cp.empty(tot, dtype=np.uint16)
    npair = cp.zeros(1, dtype=np.uint64)
    flag = cp.empty(tot, dtype=np.int32) if flags else None
    _fn("pb_heads")((_grid(tot),), (256,), (srow, scol, _i32(tot), _i32(W), ent, npair,
                                            flag if flags else npair, _i32(flags)))
    return Slots(srow, scol, sval, vw, ent, pc, p0, tot, int(npair[0]), flag,
                 -1 if plain is None else int(plain[0]))


def interleave_banks(sl: Slots, nnz: int, W: int, RR: int, nq: int) -> Slots:
    """``sl`` (scattered with ``flags``) with the pairs of every (panel, row panel)
    reordered by (rank within their bank, bank), each pair's entries moved together (see
    :func:`gblas.formats.light_panels._bank_interleave`, the definition)."""
    npair, tot, vw = sl.npair, sl.tot, sl.vw
    if npair < 2:
        return sl
    pair = cp.cumsum(sl.flag, dtype=np.int32)               # inclusive: pair id + 1
    hp = cp.empty(npair, dtype=np.int32)
    bank = cp.empty(npair, dtype=np.uint8)
    segstart = cp.empty(npair, dtype=np.uint8)
    _fn("pb_pair_list")((_grid1(tot),), (256,), (sl.srow, sl.scol, sl.ent, pair, _i32(tot),
                                                _i32(W), _i32(RR), hp, bank, segstart))
    segptr = cp.concatenate([cp.flatnonzero(segstart).astype(np.int32),
                             cp.full(1, npair, dtype=np.int32)])
    del segstart
    nseg = int(segptr.size) - 1
    shift = (sl.p0 - (cp.cumsum(sl.pc) - sl.pc)).astype(np.int32)   # slot - compact index
    plen = cp.empty(npair, dtype=np.int32)
    _fn("pb_pair_len")((_grid1(npair),), (256,), (hp, sl.scol, shift, _i32(npair), _i32(nnz),
                                                 _i32(W), plen))
    newidx = cp.empty(npair, dtype=np.int32)
    moved = cp.empty(npair, dtype=np.int32)
    _fn("pb_bank_order")((-(-nseg // WARPS),), (THREADS,), (segptr, _i32(nseg), bank, plen,
                                                           newidx, moved))
    del plen, bank, segptr
    cnew = cp.cumsum(moved, dtype=np.int32)
    cnew -= moved
    delta = moved                                           # reused
    _fn("pb_pair_delta")((_grid1(npair),), (256,), (hp, sl.scol, shift, newidx, cnew,
                                                   _i32(npair), _i32(W), delta))
    del cnew, newidx, hp
    orow = cp.empty(tot, dtype=np.int32)
    ocol = cp.empty(tot, dtype=np.int32)
    oent = cp.empty(tot, dtype=np.uint16)
    word = np.uint32 if sl.sval is None else sl.sval.dtype
    vin = sl.sval if vw else cp.zeros(1, dtype=np.uint32)
    oval = cp.empty(max(tot * vw, 1), dtype=word)
    _fn("pb_move", word)((_grid(tot),), (256,), (sl.srow, sl.scol, sl.ent, vin, _i32(vw), pair,
                                                 delta, _i32(tot), orow, ocol, oent, oval))
    return sl._replace(srow=orow, scol=ocol, ent=oent, sval=oval if vw else None, flag=None)


def partials(sl: Slots, W: int, RR: int, nq: int, group: int) -> tuple[Any, Any, Any, int]:
    """``(gbase, prow, pkey, npart)``: every group's first partial (int64), every
    partial's row offset in its row panel (uint16) and (panel, row panel) key (int64),
    and the partials' count.  A partial is a run: a pair's entries within one group."""
    ngroups = sl.tot // group
    gcount = cp.empty(ngroups, dtype=np.int64)
    if ngroups == 0:
        e = cp.zeros(0, dtype=np.int64)
        return e, cp.zeros(0, dtype=np.uint16), e, 0
    _fn("pb_group_runs")((ngroups,), (group,), (sl.srow, sl.ent, gcount))
    ends = cp.cumsum(gcount)
    gbase = ends - gcount
    npart = int(ends[-1])
    prow = cp.empty(npart, dtype=np.uint16)
    pkey = cp.empty(npart, dtype=np.int64)
    _fn("pb_partials")((ngroups,), (group,), (sl.srow, sl.scol, sl.ent, gbase, _i32(W),
                                              _i32(RR), _i32(max(nq, 1)), prow, pkey))
    return gbase, prow, pkey, npart
