"""CuTe's layout algebra from enigma (seed 002): run with
    PYTHONPATH=python python3 examples/layouts.py
(after `make`, or with the package installed by `pip install ./python`).

A layout maps a coordinate to an offset: shape (4,8) with stride (8,1) is a 4x8 row-major
tile. The operations are CuTe's, computed by libenigma (src/layout/), and print in CuTe's
notation."""

import enigma

# a 4x8 row-major matrix, and its element (i, j) = layout(i + 4*j) (colexicographic index)
rows = enigma.make_ordered_layout((4, 8), order=(1, 0))
print("row-major 4x8:       ", rows)                       # (4,8):(8,1)
print("offset of (1, 2):    ", rows(1 + 4 * 2))             # 1*8 + 2 = 10

# split a 16x32 matrix into 4x8 tiles: ((tile), (tiles)) with zipped_divide
matrix = enigma.make_ordered_layout((16, 32), order=(1, 0))
tiles = enigma.zipped_divide(matrix, (4, 8))
print("16x32 in 4x8 tiles:  ", tiles)                       # ((4,8),(4,4)):((32,1),(128,8))
print("tiles:", enigma.size(tiles, mode=[1]), " elements per tile:", enigma.size(tiles, mode=[0]))

# composition: the elements of (6,2):(8,2) in the order (4,3):(3,1) walks them
print("composition:         ", enigma.composition(enigma.Layout((6, 2), (8, 2)),
                                                  enigma.Layout((4, 3), (3, 1))))

# thread-value partitions: 4x32 threads, each holding a 4x4 block of values
thr = enigma.make_ordered_layout((4, 32), order=(1, 0))
val = enigma.make_ordered_layout((4, 4), order=(1, 0))
tiler, tv = enigma.make_layout_tv(thr, val)
print("make_layout_tv:       tile", tiler, "(thread, value) ->", tv)
# thread 5's values are tv(5 + 128 * v) for v in 0..15: offsets into the 16x128 tile
print("thread 5 holds tile elements", [tv(5 + 128 * v) for v in range(4)], "...")

# what a layout reaches, and what it leaves: the complement fills the gaps up to 24
print("complement of 4:1 in 24:", enigma.complement(enigma.Layout(4, 1), 24))   # 6:4
