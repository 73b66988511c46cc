"""Compile the GPU engine's kernels to PTX for sm_90 and check their arithmetic.

Run as ``python -m netmcl.engines.gpu._ptx`` (with ``NUMBA_ENABLE_CUDASIM``
unset or 0): it prints one JSON object, ``{"problems": [...]}`` (empty when
the PTX keeps mcl's arithmetic contract) or ``{"unavailable": reason}`` where
NVVM or NVRTC cannot be loaded.  numba-cuda compiles a kernel's device
functions for the compute capability of the current device; without a
device the audit names sm_90 for them (the PTX is the compiler's real
output either way).

What the audit checks (``audit``), on the code outside libdevice's own
functions (``__internal_*``, the body of ``pow``):

* no approximate or flush-to-zero instruction (``.approx``, ``.ftz``,
  ``div.full``);
* every floating-point division is ``div.rn.f64`` (mcl divides in double);
* the only float32 arithmetic is ``mul.f32`` (mcl's dense-path product, and
  the square of a float widened, which is the same rounding), and each
  result goes only to ``cvt.f64.f32`` or a float32 store: never into an
  add, a fused multiply-add or another multiply, where a contraction would
  round once instead of twice;
* no float32 fused multiply-add at all;
* the expansion kernel has both product paths: a float32 product widened
  and added in float64, and a float64 product of two widened floats;
* the interpretation's ``attractor_dag`` has no fused multiply-add at all:
  its bar ``0.999 * diag + 0.001 * max`` is ``mul.rn.f64`` twice and
  ``add.rn.f64``, rounded one by one as on the host.

``dense_product`` and ``exact_product`` are also compiled alone: the first
must be a float32 multiply then a widening, the second a float64 multiply of
two widened floats.
"""

import json
import re
import sys

__all__ = ["audit", "compile_all", "main"]

#: the compute capability the kernels are compiled for (an H200's)
CC = (9, 0)

_FLOAT_OPS = ("add", "sub", "mul", "div", "fma", "mad", "sqrt", "rcp", "rsqrt", "ex2", "lg2", "sin", "cos")


def _signatures():
    from numba import float32, float64, int8, int32, int64, uint8

    def a(t):
        return t[::1]

    return {
        "expand_prune": (
            int64, int64, a(int64), a(int64), a(int32), a(float32), a(int64), int64, int64, a(int64), a(int32),
            a(float32), a(float64), a(uint8), a(float32), a(int64), float64, int64, int64, float64, float64, int64,
            a(int64), a(float64), a(int64), a(int8), a(uint8), a(int8), a(float64),
        ),
        "inflate_columns": (int64, a(int64), a(int64), a(float32), float64, int64, a(float32), a(int8)),
        "survey": (int64, a(int64), a(int64), a(int32), a(int64)),
        "copy_spans": (int64, a(int64), a(int64), a(int64), a(int32), a(float32), a(int32), a(float32)),
        "pow_probe": (a(float32), float64, a(float32), a(uint8)),
        "attractor_dag": (int64, a(int64), a(int64), a(int32), a(float32), a(uint8), a(uint8)),
        "count_arcs": (int64, a(int64), a(int64), a(int32), a(uint8), a(uint8), a(uint8), a(int64)),
        "gather_arcs": (int64, a(int64), a(int64), a(int32), a(uint8), a(uint8), a(uint8), a(int64), a(int32)),
        "spread_clusters": (int64, a(int64), a(int64), a(int32), a(uint8), a(uint8), a(int32), a(int32), a(int32)),
    }


def _without_a_device():
    """Let device functions compile with no device present: numba-cuda asks
    the current device for its compute capability; answer CC."""
    from numba import cuda
    import numba.cuda.dispatcher as dispatcher

    if not cuda.is_available():
        class _Target:
            compute_capability = CC

        dispatcher.get_current_device = _Target


def compile_all():
    """{name: PTX} of every kernel of ``_kernels`` and of its two product functions."""
    from numba import cuda, float32

    from . import _kernels as K

    _without_a_device()
    out = {}
    for name, sig in _signatures().items():
        out[name], _ = cuda.compile_ptx(getattr(K, name), sig, cc=CC)
    for name in ("_dense_product", "_exact_product"):
        out[name], _ = cuda.compile_ptx(getattr(K, name), (float32, float32), device=True, cc=CC)
    return out


def _own_code(ptx):
    """The PTX lines less the bodies of libdevice's internal functions."""
    kept, state, depth = [], "code", 0
    for line in ptx.splitlines():
        text = line.strip()
        if state == "code" and text.startswith(".func") and "__internal_" in text:
            state = "header"
        if state == "header":
            if text == ";":  # a declaration only
                state = "code"
            elif text.startswith("{"):
                state, depth = "body", 0
        if state == "body":
            depth += text.count("{") - text.count("}")
            if depth <= 0 and "}" in text:
                state = "code"
            continue
        if state == "code":
            kept.append(line)
    return kept


def _instructions(lines):
    """(opcode, operands) of each instruction line."""
    out = []
    for line in lines:
        m = re.match(r"\s*(?:@!?%p\d+\s+)?([a-z][\w.]*)\s+([^;]*);", line)
        if m:
            out.append((m.group(1), [x.strip() for x in m.group(2).split(",")]))
    return out


def audit(name, ptx):
    """The contract's violations found in kernel `name`'s PTX (a list of sentences)."""
    problems = []
    ins = _instructions(_own_code(ptx))
    for op, args in ins:
        parts = op.split(".")
        if "approx" in parts or "ftz" in parts or op.startswith("div.full"):
            problems.append(f"{name}: approximate or flush-to-zero instruction {op}")
        if parts[0] == "div" and parts[-1] in ("f32", "f64") and op != "div.rn.f64":
            problems.append(f"{name}: division {op}, not div.rn.f64")
        if parts[0] in ("fma", "mad") and parts[-1] == "f32":
            problems.append(f"{name}: float32 fused multiply-add {op} (a float32 product contracted into a sum)")
        if parts[-1] == "f32" and parts[0] in _FLOAT_OPS and parts[0] != "mul" and parts[0] not in ("fma", "mad"):
            problems.append(f"{name}: float32 arithmetic {op} (mcl adds, divides and powers in float64)")
    # each float32 product goes to a widening or a float32 store only
    products = {args[0] for op, args in ins if op.split(".")[0] == "mul" and op.endswith(".f32")}
    for op, args in ins:
        used = [a for a in args[1:] if a in products] if not op.startswith("st.") else []
        if used and not op.startswith("cvt.f64.f32") and not op.startswith("mov.f32"):
            problems.append(f"{name}: the float32 product {used[0]} is used by {op} before it is widened")
    return problems


def _widened_products(ptx):
    """How the expansion's products are formed: (float32 products widened then
    added in float64, float64 products of two widened floats)."""
    ins = _instructions(_own_code(ptx))
    f32_products = {args[0] for op, args in ins if op in ("mul.f32", "mul.rn.f32")}
    widened_products = {args[0] for op, args in ins if op == "cvt.f64.f32" and args[1] in f32_products}
    dense = any(op.startswith("add") and op.endswith("f64") and set(args[1:]) & widened_products for op, args in ins)
    widened = {args[0] for op, args in ins if op == "cvt.f64.f32"}
    exact = any(
        (op in ("mul.f64", "mul.rn.f64") or op.startswith("fma.rn.f64")) and set(args[1:3]) <= widened
        for op, args in ins
    )
    return dense, exact


def check(ptxes):
    """Every problem of the compiled kernels (``compile_all``)."""
    problems = []
    for name in _signatures():
        problems += audit(name, ptxes[name])
    # the interpretation's bar, 0.999 * diag + 0.001 * max: two products and a sum, each rounded
    ops = [op for op, _ in _instructions(_own_code(ptxes["attractor_dag"]))]
    if any(op.split(".")[0] in ("fma", "mad") for op in ops):
        problems.append("attractor_dag: a fused multiply-add (NumPy rounds the bar's products and sum one by one)")
    if not {"mul.rn.f64", "add.rn.f64"} <= set(ops):
        problems.append("attractor_dag: the bar is not mul.rn.f64 and add.rn.f64")
    dense, exact = _widened_products(ptxes["expand_prune"])
    if not dense:
        problems.append("expand_prune: no float32 product widened and added in float64 (mcl's dense path)")
    if not exact:
        problems.append("expand_prune: no float64 product of two widened floats (mcl's sparse path)")
    ops = [op for op, _ in _instructions(_own_code(ptxes["_dense_product"]))]
    if not any(op in ("mul.f32", "mul.rn.f32") for op in ops) or "cvt.f64.f32" not in ops or any(
        op.startswith(("mul.f64", "mul.rn.f64", "fma")) for op in ops
    ):
        problems.append(f"_dense_product is not a float32 multiply then a widening: {ops}")
    ops = [op for op, _ in _instructions(_own_code(ptxes["_exact_product"]))]
    if not any(op in ("mul.f64", "mul.rn.f64") for op in ops) or any(op.endswith(".f32") and op.startswith("mul")
                                                                        for op in ops):
        problems.append(f"_exact_product is not a float64 multiply of widened floats: {ops}")
    return problems


def main():
    try:
        ptxes = compile_all()
    except Exception as exc:  # no NVVM, NVRTC or libdevice here: say which
        print(json.dumps({"unavailable": f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"}))
        return 0
    print(json.dumps({"problems": check(ptxes), "sizes": {k: len(v) for k, v in ptxes.items()}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
