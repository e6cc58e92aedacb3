#!/usr/bin/python3
"""Writes the .npy files the tests read, with numpy itself (Debian's python3-numpy).

Values are i * 10 + j (+ 0.5), so a test can check every element without numpy at test time.
Run from this folder: /usr/bin/python3 make_npy.py
"""
import numpy as np

def grid(rows, cols, dtype, order):
    i, j = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    return np.asarray(i * 10 + j + 0.5, dtype=dtype, order=order)

np.save("c_order_f4_3x4.npy", grid(3, 4, np.float32, "C"))
np.save("fortran_order_f8_3x4.npy", grid(3, 4, np.float64, "F"))
np.save("int32_3x4.npy", grid(3, 4, np.int32, "C"))
np.save("big_endian_f8_3x4.npy", grid(3, 4, ">f8", "C"))
np.save("f8_1d_5.npy", np.arange(5, dtype=np.float64))
# Float32 values near the top of the range: every product overflows in float but not in double, so
# each float kernel's result holds Inf and fails validation (the CLI's exit status 1).
np.save("overflow_f4_4x4.npy", np.full((4, 4), 3e38, dtype=np.float32))
