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
# The edges of the range, for validation whose norms must neither underflow nor
# overflow: a double A of magnitude 1e-170 (its squares underflow), a double A of 1e160 (its
# squares overflow) with B of 1e-160, and float operands of 1e-20 whose products (1e-40) are
# subnormal in float.
rng = np.random.default_rng(40)
def scaled(rows, cols, magnitude, dtype):
    return np.asarray(rng.uniform(-1, 1, (rows, cols)) * magnitude, dtype=dtype)
np.save("tiny_f8_9x7.npy", scaled(9, 7, 1e-170, np.float64))
np.save("huge_f8_9x7.npy", scaled(9, 7, 1e160, np.float64))
np.save("small_f8_7x5.npy", scaled(7, 5, 1e-160, np.float64))
np.save("unit_f8_7x5.npy", scaled(7, 5, 1.0, np.float64))
np.save("underflow_f4_9x7.npy", scaled(9, 7, 1e-20, np.float32))
np.save("underflow_f4_7x5.npy", scaled(7, 5, 1e-20, np.float32))
# A C of NaN, which a problem with beta = 0 never reads.
np.save("nan_f8_9x5.npy", np.full((9, 5), np.nan))
# A row of 1 and 2^-300: ozaki's exact splitting would need more moduli than it has, so the data is
# refused by the key 'moduli'.
np.save("wide_rows_f8_2x2.npy", np.array([[1.0, 2.0**-300], [0.5, 0.25]]))
