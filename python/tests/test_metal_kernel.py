"""enigma.metal_kernel runs the examples of MLX's "Custom Metal Kernels" documentation
(docs/src/dev/custom_metal_kernels.rst) with the import changed, each checked against a NumPy
reference computed here in float64 from fresh random inputs."""

import numpy as np
import pytest

import enigma

EXP_SOURCE = """
    uint elem = thread_position_in_grid.x;
    T tmp = inp[elem];
    out[elem] = metal::exp(tmp);
"""

EXP_STRIDED_SOURCE = """
    uint elem = thread_position_in_grid.x;
    // Utils from `mlx/backend/metal/kernels/utils.h` are automatically included
    uint loc = elem_to_loc(elem, inp_shape, inp_strides, inp_ndim);
    T tmp = inp[loc];
    // Output arrays are always row contiguous
    out[elem] = metal::exp(tmp);
"""

GRID_SAMPLE_SOURCE = """
    uint elem = thread_position_in_grid.x;
    int H = x_shape[1];
    int W = x_shape[2];
    int C = x_shape[3];
    int gH = grid_shape[1];
    int gW = grid_shape[2];

    int w_stride = C;
    int h_stride = W * w_stride;
    int b_stride = H * h_stride;

    uint grid_idx = elem / C * 2;
    float ix = ((grid[grid_idx] + 1) * W - 1) / 2;
    float iy = ((grid[grid_idx + 1] + 1) * H - 1) / 2;

    int ix_nw = floor(ix);
    int iy_nw = floor(iy);

    int ix_ne = ix_nw + 1;
    int iy_ne = iy_nw;

    int ix_sw = ix_nw;
    int iy_sw = iy_nw + 1;

    int ix_se = ix_nw + 1;
    int iy_se = iy_nw + 1;

    T nw = (ix_se - ix)    * (iy_se - iy);
    T ne = (ix    - ix_sw) * (iy_sw - iy);
    T sw = (ix_ne - ix)    * (iy    - iy_ne);
    T se = (ix    - ix_nw) * (iy    - iy_nw);

    int batch_idx = elem / C / gH / gW * b_stride;
    int channel_idx = elem % C;
    int base_idx = batch_idx + channel_idx;

    T I_nw = x[base_idx + iy_nw * h_stride + ix_nw * w_stride];
    T I_ne = x[base_idx + iy_ne * h_stride + ix_ne * w_stride];
    T I_sw = x[base_idx + iy_sw * h_stride + ix_sw * w_stride];
    T I_se = x[base_idx + iy_se * h_stride + ix_se * w_stride];

    I_nw = iy_nw >= 0 && iy_nw <= H - 1 && ix_nw >= 0 && ix_nw <= W - 1 ? I_nw : 0;
    I_ne = iy_ne >= 0 && iy_ne <= H - 1 && ix_ne >= 0 && ix_ne <= W - 1 ? I_ne : 0;
    I_sw = iy_sw >= 0 && iy_sw <= H - 1 && ix_sw >= 0 && ix_sw <= W - 1 ? I_sw : 0;
    I_se = iy_se >= 0 && iy_se <= H - 1 && ix_se >= 0 && ix_se <= W - 1 ? I_se : 0;

    out[elem] = nw * I_nw + ne * I_ne + sw * I_sw + se * I_se;
"""

GRID_SAMPLE_GRAD_SOURCE = """
    uint elem = thread_position_in_grid.x;
    int H = x_shape[1];
    int W = x_shape[2];
    int C = x_shape[3];
    // Pad C to the nearest larger simdgroup size multiple
    int C_padded = ceildiv(C, threads_per_simdgroup) * threads_per_simdgroup;

    int gH = grid_shape[1];
    int gW = grid_shape[2];

    int w_stride = C;
    int h_stride = W * w_stride;
    int b_stride = H * h_stride;

    uint grid_idx = elem / C_padded * 2;
    float ix = ((grid[grid_idx] + 1) * W - 1) / 2;
    float iy = ((grid[grid_idx + 1] + 1) * H - 1) / 2;

    int ix_nw = floor(ix);
    int iy_nw = floor(iy);

    int ix_ne = ix_nw + 1;
    int iy_ne = iy_nw;

    int ix_sw = ix_nw;
    int iy_sw = iy_nw + 1;

    int ix_se = ix_nw + 1;
    int iy_se = iy_nw + 1;

    T nw = (ix_se - ix)    * (iy_se - iy);
    T ne = (ix    - ix_sw) * (iy_sw - iy);
    T sw = (ix_ne - ix)    * (iy    - iy_ne);
    T se = (ix    - ix_nw) * (iy    - iy_nw);

    int batch_idx = elem / C_padded / gH / gW * b_stride;
    int channel_idx = elem % C_padded;
    int base_idx = batch_idx + channel_idx;

    T gix = T(0);
    T giy = T(0);
    if (channel_idx < C) {
        int cot_index = elem / C_padded * C + channel_idx;
        T cot = cotangent[cot_index];
        if (iy_nw >= 0 && iy_nw <= H - 1 && ix_nw >= 0 && ix_nw <= W - 1) {
            int offset = base_idx + iy_nw * h_stride + ix_nw * w_stride;
            atomic_fetch_add_explicit(&x_grad[offset], nw * cot, memory_order_relaxed);

            T I_nw = x[offset];
            gix -= I_nw * (iy_se - iy) * cot;
            giy -= I_nw * (ix_se - ix) * cot;
        }
        if (iy_ne >= 0 && iy_ne <= H - 1 && ix_ne >= 0 && ix_ne <= W - 1) {
            int offset = base_idx + iy_ne * h_stride + ix_ne * w_stride;
            atomic_fetch_add_explicit(&x_grad[offset], ne * cot, memory_order_relaxed);

            T I_ne = x[offset];
            gix += I_ne * (iy_sw - iy) * cot;
            giy -= I_ne * (ix - ix_sw) * cot;
        }
        if (iy_sw >= 0 && iy_sw <= H - 1 && ix_sw >= 0 && ix_sw <= W - 1) {
            int offset = base_idx + iy_sw * h_stride + ix_sw * w_stride;
            atomic_fetch_add_explicit(&x_grad[offset], sw * cot, memory_order_relaxed);

            T I_sw = x[offset];
            gix -= I_sw * (iy - iy_ne) * cot;
            giy += I_sw * (ix_ne - ix) * cot;
        }
        if (iy_se >= 0 && iy_se <= H - 1 && ix_se >= 0 && ix_se <= W - 1) {
            int offset = base_idx + iy_se * h_stride + ix_se * w_stride;
            atomic_fetch_add_explicit(&x_grad[offset], se * cot, memory_order_relaxed);

            T I_se = x[offset];
            gix += I_se * (iy - iy_nw) * cot;
            giy += I_se * (ix - ix_nw) * cot;
        }
    }

    T gix_mult = W / 2;
    T giy_mult = H / 2;

    // Reduce across each simdgroup first.
    // This is much faster than relying purely on atomics.
    gix = simd_sum(gix);
    giy = simd_sum(giy);

    if (thread_index_in_simdgroup == 0) {
        atomic_fetch_add_explicit(&grid_grad[grid_idx], gix * gix_mult, memory_order_relaxed);
        atomic_fetch_add_explicit(&grid_grad[grid_idx + 1], giy * giy_mult, memory_order_relaxed);
    }
"""


@pytest.fixture
def rt_kw(rt):
    return {"runtime": rt}


def test_simple_exp(rt_kw, rng):
    kernel = enigma.metal_kernel(name="myexp", input_names=["inp"], output_names=["out"],
                                 source=EXP_SOURCE)
    a = rng.standard_normal((4, 16)).astype(np.float16)
    (b,) = kernel(inputs=[a], template=[("T", np.float32)], grid=(a.size, 1, 1),
                  threadgroup=(256, 1, 1), output_shapes=[a.shape], output_dtypes=[a.dtype],
                  **rt_kw)
    assert b.shape == a.shape and b.dtype == np.float16
    np.testing.assert_allclose(b.astype(np.float64), np.exp(a.astype(np.float64)),
                               rtol=2e-3, atol=2e-3)


def test_generated_signature_as_documented(rt_kw, rng, capsys):
    """verbose=True prints the generated kernel; its signature is the one the docs show."""
    kernel = enigma.metal_kernel(name="myexp", input_names=["inp"], output_names=["out"],
                                 source=EXP_SOURCE)
    a = rng.standard_normal(32).astype(np.float16)
    kernel(inputs=[a], template=[("T", np.float32)], grid=(32, 1, 1), threadgroup=(32, 1, 1),
           output_shapes=[a.shape], output_dtypes=[a.dtype], verbose=True, **rt_kw)
    printed = capsys.readouterr().out
    assert "const device float16_t* inp [[buffer(0)]]" in printed
    assert "device float16_t* out [[buffer(1)]]" in printed
    assert "uint3 thread_position_in_grid [[thread_position_in_grid]]" in printed
    assert "typedef float T;" in printed


def test_strided_exp_without_a_copy(rt_kw, rng):
    kernel = enigma.metal_kernel(name="myexp_strided", input_names=["inp"],
                                 output_names=["out"], source=EXP_STRIDED_SOURCE,
                                 ensure_row_contiguous=False)
    full = rng.standard_normal((4, 16)).astype(np.float32)
    a = full[::2]  # make non-contiguous
    assert not a.flags.c_contiguous
    (b,) = kernel(inputs=[a], template=[("T", np.float32)], grid=(a.size, 1, 1),
                  threadgroup=(256, 1, 1), output_shapes=[a.shape], output_dtypes=[a.dtype],
                  **rt_kw)
    np.testing.assert_allclose(b, np.exp(a.astype(np.float64)), rtol=1e-6, atol=1e-6)


def _grid_sample_ref(x, grid):
    """The documentation's grid_sample_ref, in NumPy float64."""
    x = x.astype(np.float64)
    grid = grid.astype(np.float64)
    N, H_in, W_in, _ = x.shape
    ix = ((grid[..., 0] + 1) * W_in - 1) / 2
    iy = ((grid[..., 1] + 1) * H_in - 1) / 2
    ix_nw = np.floor(ix).astype(np.int64)
    iy_nw = np.floor(iy).astype(np.int64)
    corners = [(iy_nw, ix_nw, (ix_nw + 1 - ix) * (iy_nw + 1 - iy)),
               (iy_nw, ix_nw + 1, (ix - ix_nw) * (iy_nw + 1 - iy)),
               (iy_nw + 1, ix_nw, (ix_nw + 1 - ix) * (iy - iy_nw)),
               (iy_nw + 1, ix_nw + 1, (ix - ix_nw) * (iy - iy_nw))]
    out = np.zeros(grid.shape[:3] + (x.shape[3],))
    b = np.arange(N)[:, None, None]
    for yy, xx, w in corners:
        mask = (yy >= 0) & (yy <= H_in - 1) & (xx >= 0) & (xx <= W_in - 1)
        vals = x[b, np.clip(yy, 0, H_in - 1), np.clip(xx, 0, W_in - 1), :]
        out += (w * mask)[..., None] * vals
    return out


def _grid_inputs(rng, B=2, H=7, W=9, C=5, gN=4, gM=6):
    x = rng.standard_normal((B, H, W, C)).astype(np.float32)
    # sample points inside and slightly outside the image, off the pixel centres
    grid = rng.uniform(-1.1, 1.1, (B, gN, gM, 2)).astype(np.float32)
    return x, grid


def test_grid_sample_forward(rt_kw, rng):
    kernel = enigma.metal_kernel(name="grid_sample", input_names=["x", "grid"],
                                 output_names=["out"], source=GRID_SAMPLE_SOURCE)
    x, grid = _grid_inputs(rng)
    B, _, _, C = x.shape
    _, gN, gM, _ = grid.shape
    out_shape = (B, gN, gM, C)
    (out,) = kernel(inputs=[x, grid], template=[("T", x.dtype)], output_shapes=[out_shape],
                    output_dtypes=[x.dtype], grid=(np.prod(out_shape), 1, 1),
                    threadgroup=(256, 1, 1), **rt_kw)
    np.testing.assert_allclose(out, _grid_sample_ref(x, grid), rtol=1e-4, atol=1e-4)


def test_grid_sample_vjp_with_atomic_outputs(rt_kw, rng):
    kernel = enigma.metal_kernel(name="grid_sample_grad", input_names=["x", "grid", "cotangent"],
                                 output_names=["x_grad", "grid_grad"],
                                 source=GRID_SAMPLE_GRAD_SOURCE, atomic_outputs=True)
    x, grid = _grid_inputs(rng)
    B, H, W, C = x.shape
    _, gN, gM, _ = grid.shape
    cot = rng.standard_normal((B, gN, gM, C)).astype(np.float32)
    C_padded = (C + 31) // 32 * 32
    x_grad, grid_grad = kernel(inputs=[x, grid, cot], template=[("T", x.dtype)],
                               output_shapes=[x.shape, grid.shape],
                               output_dtypes=[x.dtype, x.dtype],
                               grid=(B * gN * gM * C_padded, 1, 1), threadgroup=(256, 1, 1),
                               init_value=0, **rt_kw)
    # reference: the gradient of sum(cot * grid_sample(x, grid)), by the chain rule the
    # kernel implements (x: scatter of the bilinear weights; grid: the weights' slopes times
    # W/2 and H/2, integer-divided as in the kernel)
    xd, gd = x.astype(np.float64), grid.astype(np.float64)
    ix = ((gd[..., 0] + 1) * W - 1) / 2
    iy = ((gd[..., 1] + 1) * H - 1) / 2
    x0, y0 = np.floor(ix).astype(np.int64), np.floor(iy).astype(np.int64)
    want_x = np.zeros_like(xd)
    gix = np.zeros(ix.shape)
    giy = np.zeros(iy.shape)
    c = cot.astype(np.float64)
    b = np.broadcast_to(np.arange(B)[:, None, None], ix.shape)
    for yy, xx, w, dwx, dwy in [
            (y0, x0, (x0 + 1 - ix) * (y0 + 1 - iy), -(y0 + 1 - iy), -(x0 + 1 - ix)),
            (y0, x0 + 1, (ix - x0) * (y0 + 1 - iy), (y0 + 1 - iy), -(ix - x0)),
            (y0 + 1, x0, (x0 + 1 - ix) * (iy - y0), -(iy - y0), (x0 + 1 - ix)),
            (y0 + 1, x0 + 1, (ix - x0) * (iy - y0), (iy - y0), (ix - x0))]:
        m = (yy >= 0) & (yy <= H - 1) & (xx >= 0) & (xx <= W - 1)
        yc, xc = np.clip(yy, 0, H - 1), np.clip(xx, 0, W - 1)
        np.add.at(want_x, (b[m], yc[m], xc[m]), (w[m])[:, None] * c[m])
        vals = xd[b, yc, xc, :]
        gix += m * (vals * c).sum(-1) * dwx
        giy += m * (vals * c).sum(-1) * dwy
    want_grid = np.stack([gix * (W // 2), giy * (H // 2)], axis=-1)
    np.testing.assert_allclose(x_grad, want_x, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(grid_grad, want_grid, rtol=1e-4, atol=1e-3)


def test_errors_name_what_is_wrong(rt_kw, rng):
    k = enigma.metal_kernel(name="myexp", input_names=["inp"], output_names=["out"],
                            source=EXP_SOURCE)
    a = rng.standard_normal(8).astype(np.float32)
    with pytest.raises(enigma.InvalidArgumentError, match="takes 1 inputs"):
        k(inputs=[a, a], template=[("T", np.float32)], grid=(8, 1, 1), threadgroup=(8, 1, 1),
          output_shapes=[(8,)], output_dtypes=[np.float32], **rt_kw)
    with pytest.raises(enigma.InvalidArgumentError, match="output out: .*complex64"):
        k(inputs=[a], template=[("T", np.float32)], grid=(8, 1, 1), threadgroup=(8, 1, 1),
          output_shapes=[(8,)], output_dtypes=[np.complex64], **rt_kw)
    bad = enigma.metal_kernel(name="bad", input_names=["inp"], output_names=["out"],
                              source="out[0] = undeclared_name;")
    with pytest.raises(enigma.CompileError, match="undeclared_name"):
        bad(inputs=[a], grid=(1, 1, 1), threadgroup=(1, 1, 1), output_shapes=[(1,)],
            output_dtypes=[np.float32], **rt_kw)
