#!/usr/bin/python3
"""Builds the ONNX models that tst_onnx_import reads, with their inputs and numpy's outputs.

Run with Debian's Python (python3-onnx, python3-numpy): /usr/bin/python3 gen_onnx_models.py
It writes data/<case>.onnx, data/<case>/<graph input>.npy (so `workbench --batch
data/<case>.onnx --run --inputs data/<case>` reads them) and data/<case>/expected/<output>.npy.
The files are committed, so the tests need neither onnx nor numpy.
"""
import math
import os
import shutil

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
rng = np.random.default_rng(19)

F32 = TensorProto.FLOAT
I64 = TensorProto.INT64


def rand(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def const_node(name, array):
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.asarray(array), name + "_v"))


def save(case, nodes, inputs, outputs, feeds, expected, initializers=(), opset=17, check=True, domains=()):
    """inputs: [(name, elem_type, shape)], outputs likewise; feeds / expected: name -> array.
    check=False for ops newer than Debian's onnx (1.12) knows, as GroupNormalization (1.14), and
    for ops of other domains; domains: [(domain, version)] imported besides the default one."""
    graph = helper.make_graph(
        nodes, case,
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
        initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)] +
                              [helper.make_opsetid(d, v) for d, v in domains],
                              producer_name="gen_onnx_models")
    model.ir_version = 8
    if check:
        onnx.checker.check_model(model)
    onnx.save(model, os.path.join(DATA, case + ".onnx"))
    folder = os.path.join(DATA, case)
    os.makedirs(os.path.join(folder, "expected"), exist_ok=True)
    for name, array in feeds.items():
        np.save(os.path.join(folder, name + ".npy"), array)
    for name, array in expected.items():
        np.save(os.path.join(folder, "expected", name + ".npy"), array)


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


erf = np.vectorize(math.erf, otypes=[np.float32])


# --- whole models -----------------------------------------------------------------------------

def mlp(case="mlp", batch=2, symbolic=False):
    x = rand(batch, 16)
    w1, b1 = rand(32, 16), rand(32)
    w2, b2 = rand(32, 10), rand(10)
    nodes = [
        helper.make_node("Gemm", ["x", "w1", "b1"], ["h"], transB=1, name="fc1"),
        helper.make_node("Relu", ["h"], ["a"], name="relu"),
        helper.make_node("MatMul", ["a", "w2"], ["m"], name="fc2"),
        helper.make_node("Add", ["m", "b2"], ["y"], name="bias2"),
    ]
    y = np.maximum(x @ w1.T + b1, 0) @ w2 + b2
    dim = "batch" if symbolic else batch
    save(case, nodes, [("x", F32, [dim, 16])], [("y", F32, [dim, 10])], {"x": x}, {"y": y},
         [init("w1", w1), init("b1", b1), init("w2", w2), init("b2", b2)], opset=13)


def cnn():
    x = rand(1, 3, 8, 8)
    w1, b1 = rand(4, 3, 3, 3), rand(4)
    scale, bias = rand(4), rand(4)
    mean, var = rand(4), np.abs(rand(4)) + 0.5
    w2 = rand(6, 4, 3, 3)
    fc, fcb = rand(6, 5), rand(5)
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
        helper.make_node("BatchNormalization", ["c1", "scale", "bias", "mean", "var"], ["bn"], epsilon=1e-5),
        helper.make_node("Relu", ["bn"], ["r1"]),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "w2"], ["c2"], auto_pad="SAME_UPPER", strides=[2, 2]),
        helper.make_node("GlobalAveragePool", ["c2"], ["g"]),
        helper.make_node("Flatten", ["g"], ["f"]),
        helper.make_node("Gemm", ["f", "fc", "fcb"], ["logits"]),
        helper.make_node("Softmax", ["logits"], ["y"], axis=-1),
    ]
    c1 = conv2d(x, w1, pads=(1, 1, 1, 1)) + b1.reshape(1, -1, 1, 1)
    bn = (c1 - mean.reshape(1, -1, 1, 1)) / np.sqrt(var.reshape(1, -1, 1, 1) + 1e-5)
    bn = bn * scale.reshape(1, -1, 1, 1) + bias.reshape(1, -1, 1, 1)
    r1 = np.maximum(bn, 0)
    p1 = r1.reshape(1, 4, 4, 2, 4, 2).max(axis=(3, 5))
    c2 = conv2d(p1, w2, pads=(1, 1, 1, 1), stride=2)  # SAME_UPPER on 4x4, stride 2, k 3: 1 each side
    g = c2.mean(axis=(2, 3))
    y = softmax(g @ fc + fcb)
    save("cnn", nodes, [("x", F32, [1, 3, 8, 8])], [("y", F32, [1, 5])], {"x": x}, {"y": y},
         [init("w1", w1), init("b1", b1), init("scale", scale), init("bias", bias),
          init("mean", mean), init("var", var), init("w2", w2), init("fc", fc), init("fcb", fcb)], opset=13)


def conv2d(x, w, pads=(0, 0, 0, 0), stride=1, groups=1):
    n, c, h, wd = x.shape
    o, ci, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    oh = (h + pads[0] + pads[2] - kh) // stride + 1
    ow = (wd + pads[1] + pads[3] - kw) // stride + 1
    out = np.zeros((n, o, oh, ow), np.float32)
    per = o // groups
    for oc in range(o):
        g = oc // per
        for i in range(oh):
            for j in range(ow):
                patch = xp[:, g * ci:(g + 1) * ci, i * stride:i * stride + kh, j * stride:j * stride + kw]
                out[:, oc, i, j] = (patch * w[oc]).sum(axis=(1, 2, 3))
    return out


def layer_norm(x, gamma, beta, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * gamma + beta


def transformer():
    """One encoder block as torch exports it: the attention's head split through Shape / Gather /
    Concat / Reshape on a symbolic sequence length, the first layer norm decomposed, the second
    LayerNormalization, GELU through Erf."""
    s, d, h = 4, 8, 2
    dh = d // h
    x = rand(1, s, d)
    wq, wk, wv, wo = rand(d, d), rand(d, d), rand(d, d), rand(d, d)
    bq, bk, bv, bo = rand(d), rand(d), rand(d), rand(d)
    g1, be1, g2, be2 = rand(d), rand(d), rand(d), rand(d)
    w1, b1, w2, b2 = rand(d, 16), rand(16), rand(16, d), rand(d)
    nodes = []

    def n(op, ins, outs, **kw):
        nodes.append(helper.make_node(op, ins, outs, **kw))

    # Decomposed layer norm.
    n("ReduceMean", ["x"], ["mu"], axes=[-1])
    n("Sub", ["x", "mu"], ["xc"])
    nodes.append(const_node("two", np.float32(2.0)))
    n("Pow", ["xc", "two"], ["sq"])
    n("ReduceMean", ["sq"], ["var"], axes=[-1])
    nodes.append(const_node("eps", np.float32(1e-5)))
    n("Add", ["var", "eps"], ["ve"])
    n("Sqrt", ["ve"], ["sd"])
    n("Div", ["xc", "sd"], ["xn"])
    n("Mul", ["xn", "g1"], ["xg"])
    n("Add", ["xg", "be1"], ["ln1"])
    # Q, K, V and the head split: (1, s, d) -> (1, s, h, dh) -> (1, h, s, dh).
    n("Shape", ["ln1"], ["shp"])
    nodes.append(const_node("i0", np.int64(0)))
    nodes.append(const_node("i1", np.int64(1)))
    n("Gather", ["shp", "i0"], ["bsz"], axis=0)
    n("Gather", ["shp", "i1"], ["seq"], axis=0)
    nodes.append(const_node("axes0", np.array([0], np.int64)))
    n("Unsqueeze", ["bsz", "axes0"], ["bsz1"])
    n("Unsqueeze", ["seq", "axes0"], ["seq1"])
    nodes.append(const_node("heads", np.array([h, dh], np.int64)))
    n("Concat", ["bsz1", "seq1", "heads"], ["split_shape"], axis=0)
    nodes.append(const_node("merged", np.array([d], np.int64)))
    n("Concat", ["bsz1", "seq1", "merged"], ["merge_shape"], axis=0)
    for name, w, b in (("q", "wq", "bq"), ("k", "wk", "bk"), ("v", "wv", "bv")):
        n("MatMul", ["ln1", w], [name + "_m"])
        n("Add", [name + "_m", b], [name + "_b"])
        n("Reshape", [name + "_b", "split_shape"], [name + "_r"])
        perm = [0, 2, 3, 1] if name == "k" else [0, 2, 1, 3]
        n("Transpose", [name + "_r"], [name + "_t"], perm=perm)
    n("MatMul", ["q_t", "k_t"], ["scores"])
    nodes.append(const_node("scale", np.float32(math.sqrt(dh))))
    n("Div", ["scores", "scale"], ["scaled"])
    n("Softmax", ["scaled"], ["attn"], axis=-1)
    n("MatMul", ["attn", "v_t"], ["ctx"])
    n("Transpose", ["ctx"], ["ctx_t"], perm=[0, 2, 1, 3])
    n("Reshape", ["ctx_t", "merge_shape"], ["ctx_m"])
    n("MatMul", ["ctx_m", "wo"], ["o_m"])
    n("Add", ["o_m", "bo"], ["o"])
    n("Add", ["x", "o"], ["res1"])
    n("LayerNormalization", ["res1", "g2", "be2"], ["ln2"], axis=-1, epsilon=1e-5)
    # Feed-forward with GELU as x * 0.5 * (1 + erf(x / sqrt(2))).
    n("MatMul", ["ln2", "w1"], ["f1m"])
    n("Add", ["f1m", "b1"], ["f1"])
    nodes.append(const_node("sqrt2", np.float32(math.sqrt(2.0))))
    nodes.append(const_node("one", np.float32(1.0)))
    nodes.append(const_node("half", np.float32(0.5)))
    n("Div", ["f1", "sqrt2"], ["gd"])
    n("Erf", ["gd"], ["ge"])
    n("Add", ["ge", "one"], ["gp"])
    n("Mul", ["f1", "gp"], ["gm"])
    n("Mul", ["gm", "half"], ["gelu"])
    n("MatMul", ["gelu", "w2"], ["f2m"])
    n("Add", ["f2m", "b2"], ["f2"])
    n("Add", ["res1", "f2"], ["y"])

    ln1 = layer_norm(x, g1, be1)
    q = (ln1 @ wq + bq).reshape(1, s, h, dh).transpose(0, 2, 1, 3)
    k = (ln1 @ wk + bk).reshape(1, s, h, dh).transpose(0, 2, 3, 1)
    v = (ln1 @ wv + bv).reshape(1, s, h, dh).transpose(0, 2, 1, 3)
    attn = softmax(q @ k / np.float32(math.sqrt(dh)))
    ctx = (attn @ v).transpose(0, 2, 1, 3).reshape(1, s, d)
    res1 = x + ctx @ wo + bo
    ln2 = layer_norm(res1, g2, be2)
    f1 = ln2 @ w1 + b1
    gelu = f1 * 0.5 * (1 + erf(f1 / np.float32(math.sqrt(2.0))))
    y = res1 + gelu @ w2 + b2
    inits = [init(k_, v_) for k_, v_ in dict(wq=wq, wk=wk, wv=wv, wo=wo, bq=bq, bk=bk, bv=bv, bo=bo,
                                             g1=g1, be1=be1, g2=g2, be2=be2, w1=w1, b1=b1, w2=w2,
                                             b2=b2).items()]
    save("transformer", nodes, [("x", F32, [1, "seq", d])], [("y", F32, [1, "seq", d])],
         {"x": x}, {"y": y.astype(np.float32)}, inits, opset=17)


# --- op families ------------------------------------------------------------------------------

def binary_broadcast():
    a, b = rand(3, 1, 5), rand(4, 1)
    c = np.abs(rand(4, 5)) + 0.5
    nodes = [
        helper.make_node("Add", ["a", "b"], ["add"]),
        helper.make_node("Sub", ["a", "b"], ["sub"]),
        helper.make_node("Mul", ["a", "b"], ["mul"]),
        helper.make_node("Div", ["a", "c"], ["div"]),
        helper.make_node("Pow", ["c", "b"], ["pow"]),
        helper.make_node("Max", ["a", "b", "c"], ["max"]),
        helper.make_node("Min", ["a", "c"], ["min"]),
        helper.make_node("Greater", ["a", "b"], ["gt"]),
    ]
    expected = {"add": a + b, "sub": a - b, "mul": a * b, "div": a / c, "pow": c ** b,
                "max": np.maximum(np.maximum(a, b), c), "min": np.minimum(a, c), "gt": a > b}
    outs = [(k, TensorProto.BOOL if k == "gt" else F32, list(v.shape)) for k, v in expected.items()]
    save("binary_broadcast", nodes, [("a", F32, [3, 1, 5]), ("b", F32, [4, 1]), ("c", F32, [4, 5])],
         outs, {"a": a, "b": b, "c": c}, expected)


def unary():
    x = rand(2, 6)
    p = np.abs(x) + 0.1
    nodes = [
        helper.make_node("Sqrt", ["p"], ["sqrt"]),
        helper.make_node("Exp", ["x"], ["exp"]),
        helper.make_node("Log", ["p"], ["log"]),
        helper.make_node("Tanh", ["x"], ["tanh"]),
        helper.make_node("Sigmoid", ["x"], ["sigmoid"]),
        helper.make_node("Abs", ["x"], ["abs"]),
        helper.make_node("Neg", ["x"], ["neg"]),
        helper.make_node("Erf", ["x"], ["erf"]),
        helper.make_node("Reciprocal", ["p"], ["recip"]),
        helper.make_node("Clip", ["x", "lo", "hi"], ["clip"]),
    ]
    expected = {"sqrt": np.sqrt(p), "exp": np.exp(x), "log": np.log(p), "tanh": np.tanh(x),
                "sigmoid": 1 / (1 + np.exp(-x)), "abs": np.abs(x), "neg": -x, "erf": erf(x),
                "recip": 1 / p, "clip": np.clip(x, -0.5, 0.5)}
    save("unary", nodes, [("x", F32, [2, 6]), ("p", F32, [2, 6])],
         [(k, F32, [2, 6]) for k in expected], {"x": x, "p": p}, expected,
         [init("lo", np.float32(-0.5)), init("hi", np.float32(0.5))])


def where_cast():
    x, y = rand(3, 4), rand(4)
    ids = rng.integers(0, 3, (3, 4)).astype(np.int64)
    nodes = [
        helper.make_node("Equal", ["ids", "zero"], ["is0"]),
        helper.make_node("Where", ["is0", "x", "y"], ["w"]),
        helper.make_node("Cast", ["ids"], ["idf"], to=F32),
        helper.make_node("Mul", ["w", "idf"], ["out"]),
    ]
    expected = {"out": np.where(ids == 0, x, y) * ids.astype(np.float32)}
    save("where_cast", nodes, [("x", F32, [3, 4]), ("y", F32, [4]), ("ids", I64, [3, 4])],
         [("out", F32, [3, 4])], {"x": x, "y": y, "ids": ids}, expected, [init("zero", np.int64(0))])


def reduce():
    x = rand(2, 3, 4)
    nodes = [
        helper.make_node("ReduceMean", ["x"], ["mean"], axes=[-1], keepdims=0),
        helper.make_node("ReduceSum", ["x", "axes"], ["sum"], keepdims=1),
        helper.make_node("ReduceMax", ["x"], ["max"], axes=[0, 2]),
        helper.make_node("ReduceMin", ["x"], ["min"], keepdims=0),
        helper.make_node("ArgMax", ["x"], ["argmax"], axis=-2, keepdims=0),
    ]
    expected = {"mean": x.mean(axis=-1), "sum": x.sum(axis=1, keepdims=True),
                "max": x.max(axis=(0, 2), keepdims=True), "min": np.array(x.min(), np.float32),
                "argmax": x.argmax(axis=-2).astype(np.int64)}
    outs = [(k, I64 if k == "argmax" else F32, list(v.shape)) for k, v in expected.items()]
    save("reduce", nodes, [("x", F32, [2, 3, 4])], outs, {"x": x}, expected,
         [init("axes", np.array([1], np.int64))], opset=13)


def manipulate():
    x = rand(2, 3, 4)
    nodes = [
        helper.make_node("Transpose", ["x"], ["t"], perm=[2, 0, 1]),
        helper.make_node("Unsqueeze", ["x", "ax_m1"], ["u"]),
        helper.make_node("Squeeze", ["u", "ax_m1"], ["sq"]),
        helper.make_node("Concat", ["x", "sq"], ["cat"], axis=-1),
        helper.make_node("Gather", ["x", "idx"], ["g"], axis=1),
        helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["sl"]),
        helper.make_node("Split", ["x", "split"], ["s0", "s1"], axis=2),
        helper.make_node("Flatten", ["x"], ["fl"], axis=2),
        helper.make_node("Expand", ["b", "eshape"], ["ex"]),
    ]
    b = rand(3, 1)
    expected = {"t": x.transpose(2, 0, 1), "sq": x, "cat": np.concatenate([x, x], axis=-1),
                "g": x[:, [2, 0]], "sl": x[:, 1:, ::2], "s0": x[:, :, :1], "s1": x[:, :, 1:],
                "fl": x.reshape(6, 4), "ex": np.broadcast_to(b, (2, 3, 4))}
    inits = [init("ax_m1", np.array([-1], np.int64)), init("idx", np.array([-1, 0], np.int64)),
             init("starts", np.array([1, 0], np.int64)),
             init("ends", np.array([np.iinfo(np.int64).max, 4], np.int64)),
             init("axes", np.array([1, -1], np.int64)), init("steps", np.array([1, 2], np.int64)),
             init("split", np.array([1, 3], np.int64)), init("eshape", np.array([2, 1, 4], np.int64))]
    save("manipulate", nodes, [("x", F32, [2, 3, 4]), ("b", F32, [3, 1])],
         [(k, F32, list(v.shape)) for k, v in expected.items()], {"x": x, "b": b}, expected, inits,
         opset=13)


def shape_arith():
    """Shape arithmetic on a symbolic batch: Shape / Gather / Mul / Concat / Reshape fold to
    R.shape([n * 3, 4]); ConstantOfShape and Range fold to constants."""
    x = rand(2, 3, 4)
    nodes = [
        helper.make_node("Shape", ["x"], ["shp"]),
        helper.make_node("Gather", ["shp", "i0"], ["n"], axis=0),
        helper.make_node("Gather", ["shp", "i1"], ["c"], axis=0),
        helper.make_node("Mul", ["n", "c"], ["nc"]),
        helper.make_node("Unsqueeze", ["nc", "ax0"], ["nc1"]),
        helper.make_node("Concat", ["nc1", "m1"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["r"]),
        helper.make_node("Shape", ["x"], ["tail"], start=-1),
        helper.make_node("ConstantOfShape", ["tail"], ["ones"], value=numpy_helper.from_array(np.array([1.5], np.float32))),
        helper.make_node("Range", ["r0", "r4", "r1"], ["rng"]),
        helper.make_node("Cast", ["rng"], ["rngf"], to=F32),
        helper.make_node("Add", ["ones", "rngf"], ["bias"]),
        helper.make_node("Add", ["r", "bias"], ["y"]),
    ]
    expected = {"y": x.reshape(-1, 4) + (1.5 + np.arange(4, dtype=np.float32))}
    inits = [init("i0", np.int64(0)), init("i1", np.int64(1)), init("ax0", np.array([0], np.int64)),
             init("m1", np.array([-1], np.int64)), init("r0", np.int64(0)), init("r4", np.int64(4)),
             init("r1", np.int64(1))]
    save("shape_arith", nodes, [("x", F32, ["n", 3, 4])], [("y", F32, ["n3", 4])], {"x": x}, expected,
         inits, opset=15)


def pool_softmax():
    x = rand(1, 2, 5, 5)
    nodes = [
        helper.make_node("AveragePool", ["x"], ["avg"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                         count_include_pad=1),
        helper.make_node("MaxPool", ["x"], ["max"], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1),
        helper.make_node("GlobalMaxPool", ["x"], ["gmax"]),
        helper.make_node("Softmax", ["x"], ["sm"], axis=1),
        helper.make_node("LogSoftmax", ["x"], ["lsm"], axis=-1),
    ]
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    avg = np.zeros_like(x)
    for i in range(5):
        for j in range(5):
            avg[:, :, i, j] = xp[:, :, i:i + 3, j:j + 3].mean(axis=(2, 3))
    xm = np.pad(x, ((0, 0), (0, 0), (0, 1), (0, 1)), constant_values=-np.inf)
    mx = xm.reshape(1, 2, 3, 2, 3, 2).max(axis=(3, 5))
    # Opset 11's Softmax flattens at axis 1: the normalization runs over the whole C*H*W block.
    flat = x.reshape(1, -1)
    sm = softmax(flat).reshape(x.shape)
    lsm = np.log(softmax(x, axis=-1))
    expected = {"avg": avg, "max": mx, "gmax": x.max(axis=(2, 3), keepdims=True), "sm": sm, "lsm": lsm}
    save("pool_softmax", nodes, [("x", F32, [1, 2, 5, 5])],
         [(k, F32, list(v.shape)) for k, v in expected.items()], {"x": x}, expected, opset=11)


def activations():
    x = rand(3, 5) * 3
    slope = rand(5)
    nodes = [
        helper.make_node("LeakyRelu", ["x"], ["leaky"], alpha=0.1),
        helper.make_node("Softplus", ["x"], ["softplus"]),
        helper.make_node("Elu", ["x"], ["elu"], alpha=0.7),
        helper.make_node("Selu", ["x"], ["selu"]),
        helper.make_node("HardSigmoid", ["x"], ["hsig"], alpha=0.3, beta=0.4),
        helper.make_node("HardSwish", ["x"], ["hswish"]),
        helper.make_node("Softsign", ["x"], ["softsign"]),
        helper.make_node("ThresholdedRelu", ["x"], ["trelu"], alpha=0.5),
        helper.make_node("PRelu", ["x", "slope"], ["prelu"]),
    ]
    sp = np.log1p(np.exp(x))
    a, g = 1.67326319217681884765625, 1.05070102214813232421875
    expected = {"leaky": np.where(x > 0, x, 0.1 * x), "softplus": sp,
                "elu": np.where(x > 0, x, 0.7 * (np.exp(x) - 1)),
                "selu": g * np.where(x > 0, x, a * (np.exp(x) - 1)),
                "hsig": np.clip(0.3 * x + 0.4, 0, 1), "hswish": x * np.clip(x / 6 + 0.5, 0, 1),
                "softsign": x / (1 + np.abs(x)), "trelu": np.where(x > 0.5, x, 0),
                "prelu": np.where(x < 0, slope * x, x)}
    expected = {k: v.astype(np.float32) for k, v in expected.items()}
    save("activations", nodes, [("x", F32, [3, 5]), ("slope", F32, [5])],
         [(k, F32, [3, 5]) for k in expected], {"x": x, "slope": slope}, expected)


def rounding_trig():
    x = rand(2, 5) * 2
    u = np.clip(rand(2, 5) * 0.5, -0.9, 0.9)
    ops = {"Floor": np.floor, "Ceil": np.ceil, "Sign": np.sign, "Sin": np.sin, "Cos": np.cos,
           "Tan": np.tan, "Sinh": np.sinh, "Cosh": np.cosh, "Atan": np.arctan, "Asinh": np.arcsinh}
    unit = {"Asin": np.arcsin, "Acos": np.arccos, "Atanh": np.arctanh}
    nodes = [helper.make_node(op, ["x"], [op.lower()]) for op in ops]
    nodes += [helper.make_node(op, ["u"], [op.lower()]) for op in unit]
    nodes.append(helper.make_node("Acosh", ["big"], ["acosh"]))
    big = np.abs(x) + 1
    expected = {op.lower(): f(x) for op, f in ops.items()}
    expected.update({op.lower(): f(u) for op, f in unit.items()})
    expected["acosh"] = np.arccosh(big)
    expected = {k: v.astype(np.float32) for k, v in expected.items()}
    save("rounding_trig", nodes, [("x", F32, [2, 5]), ("u", F32, [2, 5]), ("big", F32, [2, 5])],
         [(k, F32, [2, 5]) for k in expected], {"x": x, "u": u, "big": big}, expected)


def logical_mod():
    p, q = rng.integers(0, 2, (2, 4)).astype(bool), rng.integers(0, 2, (4,)).astype(bool)
    a = rng.integers(-9, 9, (2, 4)).astype(np.int64)
    b = np.array([3, -4, 5, -2], np.int64)
    fa, fb = rand(2, 4) * 5, np.array([1.5, -2.0, 2.5, -0.7], np.float32)
    nodes = [
        helper.make_node("And", ["p", "q"], ["and"]),
        helper.make_node("Or", ["p", "q"], ["or"]),
        helper.make_node("Xor", ["p", "q"], ["xor"]),
        helper.make_node("Not", ["p"], ["not"]),
        helper.make_node("Mod", ["a", "b"], ["mod"]),
        helper.make_node("Mod", ["fa", "fb"], ["fmod"], fmod=1),
    ]
    expected = {"and": p & q, "or": p | q, "xor": p ^ q, "not": ~p, "mod": np.mod(a, b),
                "fmod": np.fmod(fa, fb)}
    types = {"and": TensorProto.BOOL, "or": TensorProto.BOOL, "xor": TensorProto.BOOL,
             "not": TensorProto.BOOL, "mod": I64, "fmod": F32}
    save("logical_mod", nodes, [("p", TensorProto.BOOL, [2, 4]), ("q", TensorProto.BOOL, [4]),
                                ("a", I64, [2, 4]), ("b", I64, [4]), ("fa", F32, [2, 4]),
                                ("fb", F32, [4])],
         [(k, types[k], [2, 4]) for k in expected], {"p": p, "q": q, "a": a, "b": b, "fa": fa, "fb": fb},
         expected)


def pad_tile_gemm():
    x = rand(2, 3)
    a, bt, c = rand(4, 2), rand(5, 4), rand(5)
    nodes = [
        helper.make_node("Pad", ["x", "pads", "cval"], ["pad"]),
        helper.make_node("Tile", ["x", "reps"], ["tile"]),
        helper.make_node("Gemm", ["a", "bt", "c"], ["gemm"], alpha=0.5, beta=2.0, transA=1, transB=1),
    ]
    expected = {"pad": np.pad(x, ((1, 0), (0, 2)), constant_values=1.5), "tile": np.tile(x, (2, 3)),
                "gemm": 0.5 * (a.T @ bt.T) + 2.0 * c}
    save("pad_tile_gemm", nodes, [("x", F32, [2, 3]), ("a", F32, [4, 2]), ("bt", F32, [5, 4]), ("c", F32, [5])],
         [(k, F32, list(v.shape)) for k, v in expected.items()], {"x": x, "a": a, "bt": bt, "c": c}, expected,
         [init("pads", np.array([1, 0, 0, 2], np.int64)), init("cval", np.float32(1.5)),
          init("reps", np.array([2, 3], np.int64))], opset=13)


def conv_attrs():
    """Grouped, dilated, strided convolution without bias; average pooling without the pads in
    the divisor."""
    x = rand(1, 4, 9, 9)
    w = rand(6, 2, 3, 3)
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["conv"], group=2, dilations=[2, 2], strides=[2, 1], pads=[1, 2, 0, 1]),
        helper.make_node("AveragePool", ["x"], ["avg"], kernel_shape=[3, 2], pads=[1, 1, 1, 0], strides=[2, 2]),
    ]
    # The grouped, dilated conv by the definition.
    xp = np.pad(x, ((0, 0), (0, 0), (1, 0), (2, 1)))
    oh = (xp.shape[2] - (2 * 2 + 1)) // 2 + 1
    ow = (xp.shape[3] - (2 * 2 + 1)) // 1 + 1
    conv = np.zeros((1, 6, oh, ow), np.float32)
    for o in range(6):
        g = o // 3
        for i in range(oh):
            for j in range(ow):
                patch = xp[0, g * 2:(g + 1) * 2, i * 2:i * 2 + 5:2, j:j + 5:2]
                conv[0, o, i, j] = (patch * w[o]).sum()
    xa = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 0)), constant_values=np.nan)
    ah, aw = (xa.shape[2] - 3) // 2 + 1, (xa.shape[3] - 2) // 2 + 1
    avg = np.zeros((1, 4, ah, aw), np.float32)
    for i in range(ah):
        for j in range(aw):
            avg[:, :, i, j] = np.nanmean(xa[:, :, i * 2:i * 2 + 3, j * 2:j * 2 + 2], axis=(2, 3))
    save("conv_attrs", nodes, [("x", F32, [1, 4, 9, 9])],
         [("conv", F32, list(conv.shape)), ("avg", F32, list(avg.shape))], {"x": x},
         {"conv": conv, "avg": avg}, [init("w", w)], opset=13)


def reduce_norm_quant():
    x = rand(2, 3, 4)
    img = rand(2, 3, 4, 5)
    scale, bias = rand(3), rand(3)
    q = rng.integers(-100, 100, (2, 3)).astype(np.int8)
    qs, qz = np.array([0.5, 0.25, 2.0], np.float32), np.array([1, -2, 3], np.int8)
    nodes = [
        helper.make_node("ReduceProd", ["x"], ["prod"], axes=[1], keepdims=0),
        helper.make_node("ReduceSumSquare", ["x"], ["sumsq"], axes=[-1]),
        helper.make_node("ReduceL1", ["x"], ["l1"], axes=[0, 2], keepdims=0),
        helper.make_node("ReduceL2", ["x"], ["l2"], axes=[2]),
        helper.make_node("ReduceLogSumExp", ["big"], ["lse"], axes=[1], keepdims=0),
        helper.make_node("ReduceLogSum", ["absx"], ["logsum"], axes=[0]),
        helper.make_node("InstanceNormalization", ["img", "scale", "bias"], ["inorm"], epsilon=1e-3),
        helper.make_node("DequantizeLinear", ["q", "qs", "qz"], ["deq"], axis=1),
    ]
    big = x * 40
    absx = np.abs(x) + 0.1
    mu = img.mean(axis=(2, 3), keepdims=True)
    var = ((img - mu) ** 2).mean(axis=(2, 3), keepdims=True)
    inorm = (img - mu) / np.sqrt(var + 1e-3) * scale.reshape(1, 3, 1, 1) + bias.reshape(1, 3, 1, 1)
    m = big.max(axis=1)
    expected = {"prod": x.prod(axis=1), "sumsq": (x * x).sum(axis=-1, keepdims=True),
                "l1": np.abs(x).sum(axis=(0, 2)), "l2": np.sqrt((x * x).sum(axis=2, keepdims=True)),
                "lse": np.log(np.exp(big - m[:, None, :]).sum(axis=1)) + m,
                "logsum": np.log(absx.sum(axis=0, keepdims=True)), "inorm": inorm,
                "deq": (q.astype(np.float32) - qz.astype(np.float32)) * qs}
    expected = {k: v.astype(np.float32) for k, v in expected.items()}
    save("reduce_norm_quant", nodes,
         [("x", F32, [2, 3, 4]), ("big", F32, [2, 3, 4]), ("absx", F32, [2, 3, 4]),
          ("img", F32, [2, 3, 4, 5]), ("q", TensorProto.INT8, [2, 3])],
         [(k, F32, list(v.shape)) for k, v in expected.items()],
         {"x": x, "big": big, "absx": absx, "img": img, "q": q}, expected,
         [init("scale", scale), init("bias", bias), init("qs", qs), init("qz", qz)], opset=13)


def gather_scan():
    x = rand(3, 4)
    ge_idx = np.array([[0, -1, 2, 1], [2, 0, 0, 1]], np.int64)
    nd_idx = np.array([[0, 1], [2, -1], [1, 0]], np.int64)
    nodes = [
        helper.make_node("GatherElements", ["x", "ge_idx"], ["ge"], axis=0),
        helper.make_node("GatherND", ["x", "nd_idx"], ["nd"]),
        helper.make_node("CumSum", ["x", "axis1"], ["cs"]),
        helper.make_node("CumSum", ["x", "axis0"], ["csx"], exclusive=1),
    ]
    ge = np.take_along_axis(x, np.where(ge_idx < 0, ge_idx + 3, ge_idx), axis=0)
    nd = np.array([x[0, 1], x[2, 3], x[1, 0]], np.float32)
    cs = np.cumsum(x, axis=1)
    csx = np.concatenate([np.zeros((1, 4), np.float32), np.cumsum(x, axis=0)[:-1]], axis=0)
    expected = {"ge": ge, "nd": nd, "cs": cs.astype(np.float32), "csx": csx.astype(np.float32)}
    save("gather_scan", nodes, [("x", F32, [3, 4]), ("ge_idx", I64, [2, 4]), ("nd_idx", I64, [3, 2])],
         [(k, F32, list(v.shape)) for k, v in expected.items()], {"x": x, "ge_idx": ge_idx, "nd_idx": nd_idx},
         expected, [init("axis1", np.int64(1)), init("axis0", np.int64(0))], opset=13)


def conv_transpose_ref(x, w, b, stride, pads, out_pad, dil, group):
    """ConvTranspose by its definition: each input element scatters x * w into the output."""
    n, c, h, wd = x.shape
    _, m, kh, kw = w.shape
    cg = c // group
    full_h = (h - 1) * stride[0] + dil[0] * (kh - 1) + 1 + out_pad[0]
    full_w = (wd - 1) * stride[1] + dil[1] * (kw - 1) + 1 + out_pad[1]
    full = np.zeros((n, m * group, full_h, full_w), np.float64)
    for ci in range(c):
        g = ci // cg
        for i in range(h):
            for j in range(wd):
                for ky in range(kh):
                    for kx in range(kw):
                        full[:, g * m:(g + 1) * m, i * stride[0] + ky * dil[0], j * stride[1] + kx * dil[1]] += \
                            x[:, ci, i, j, None] * w[ci, :, ky, kx]
    out = full[:, :, pads[0]:full_h - pads[2], pads[1]:full_w - pads[3]]
    if b is not None:
        out = out + b.reshape(1, -1, 1, 1)
    return out.astype(np.float32)


def conv_transpose():
    """ConvTranspose: strided, padded, grouped, dilated with output_padding and a bias; one with
    output_shape; a 1-D one."""
    x = rand(1, 4, 3, 4)
    w = rand(4, 3, 3, 2)
    b = rand(6)
    w2 = rand(4, 2, 2, 2)
    x1 = rand(2, 3, 5)
    w1 = rand(3, 2, 3)
    nodes = [
        helper.make_node("ConvTranspose", ["x", "w", "b"], ["ct"], strides=[2, 3], pads=[1, 0, 0, 1],
                         output_padding=[1, 2], dilations=[1, 2], group=2),
        helper.make_node("ConvTranspose", ["x", "w2"], ["cts"], strides=[2, 2], output_shape=[5, 7]),
        helper.make_node("ConvTranspose", ["x1", "w1"], ["ct1"], strides=[2], pads=[1, 1]),
    ]
    ct = conv_transpose_ref(x, w, b, (2, 3), (1, 0, 0, 1), (1, 2), (1, 2), 2)
    # output_shape 5 x 7 from the full 6 x 8: the ONNX rule (auto_pad NOTSET) puts the larger
    # half of each total padding at the start.
    full = conv_transpose_ref(x, w2, None, (2, 2), (0, 0, 0, 0), (0, 0), (1, 1), 1)
    th, tw = full.shape[2] - 5, full.shape[3] - 7
    cts = full[:, :, th - th // 2:full.shape[2] - th // 2, tw - tw // 2:full.shape[3] - tw // 2]
    ct1 = conv_transpose_ref(x1[:, :, None, :], w1[:, :, None, :], None, (1, 2), (0, 1, 0, 1), (0, 0), (1, 1), 1)[:, :, 0, :]
    expected = {"ct": ct, "cts": np.ascontiguousarray(cts), "ct1": np.ascontiguousarray(ct1)}
    save("conv_transpose", nodes, [("x", F32, [1, 4, 3, 4]), ("x1", F32, [2, 3, 5])],
         [(k, F32, list(v.shape)) for k, v in expected.items()], {"x": x, "x1": x1}, expected,
         [init("w", w), init("b", b), init("w2", w2), init("w1", w1)], opset=17)


def conv_pool_1d():
    """1-D Conv (bias, pads, stride, dilation), MaxPool and AveragePool."""
    x = rand(2, 3, 11)
    w = rand(4, 3, 3)
    b = rand(4)
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["conv"], strides=[2], pads=[1, 2], dilations=[2]),
        helper.make_node("MaxPool", ["x"], ["max"], kernel_shape=[3], strides=[2], pads=[1, 1]),
        helper.make_node("AveragePool", ["x"], ["avg"], kernel_shape=[4], strides=[3]),
    ]
    xp = np.pad(x, ((0, 0), (0, 0), (1, 2)))
    ow = (xp.shape[2] - (2 * 2 + 1)) // 2 + 1
    conv = np.stack([(xp[:, None, :, k * 2:k * 2 + 5:2] * w[None]).sum(axis=(2, 3)) for k in range(ow)], axis=-1)
    conv = conv + b.reshape(1, 4, 1)
    xm = np.pad(x, ((0, 0), (0, 0), (1, 1)), constant_values=-np.inf)
    mw = (xm.shape[2] - 3) // 2 + 1
    mx = np.stack([xm[:, :, k * 2:k * 2 + 3].max(axis=2) for k in range(mw)], axis=-1)
    aw = (11 - 4) // 3 + 1
    avg = np.stack([x[:, :, k * 3:k * 3 + 4].mean(axis=2) for k in range(aw)], axis=-1)
    expected = {"conv": conv.astype(np.float32), "max": mx.astype(np.float32), "avg": avg.astype(np.float32)}
    save("conv_pool_1d", nodes, [("x", F32, [2, 3, 11])],
         [(k, F32, list(v.shape)) for k, v in expected.items()], {"x": x}, expected,
         [init("w", w), init("b", b)], opset=17)


def argmin_round_quant():
    """ArgMin, Round (ties to even), QuantizeLinear per tensor and per axis, and Gather with
    indices known only at run time (negative ones among them)."""
    x = rand(3, 5)
    ties = np.array([[0.5, 1.5, 2.5, -0.5, -1.5], [-2.5, 0.49, 2.51, 3.5, -3.5]], np.float32)
    qx = (rand(2, 3) * 4).astype(np.float32)
    qs_axis = np.array([0.5, 0.25, 0.1], np.float32)
    qz_axis = np.array([1, -3, 0], np.int8)
    idx = np.array([[0, -1], [2, -3]], np.int64)
    nodes = [
        helper.make_node("ArgMin", ["x"], ["amin"], axis=1, keepdims=0),
        helper.make_node("ArgMin", ["x"], ["amin0"], axis=-2),
        helper.make_node("Round", ["ties"], ["round"]),
        helper.make_node("QuantizeLinear", ["qx", "qs", "qz"], ["q8"]),
        helper.make_node("QuantizeLinear", ["qx", "qs_axis", "qz_axis"], ["qi8"], axis=1),
        helper.make_node("Gather", ["x", "idx"], ["gath"], axis=1),
    ]
    q8 = np.clip(np.round(qx / np.float32(0.05)) + 128, 0, 255).astype(np.uint8)
    qi8 = np.clip(np.round(qx / qs_axis) + qz_axis.astype(np.float32), -128, 127).astype(np.int8)
    expected = {"amin": x.argmin(axis=1), "amin0": x.argmin(axis=0)[None, :], "round": np.round(ties),
                "q8": q8, "qi8": qi8, "gath": np.take(x, np.where(idx < 0, idx + 5, idx), axis=1)}
    types = {"amin": I64, "amin0": I64, "round": F32, "q8": TensorProto.UINT8, "qi8": TensorProto.INT8,
             "gath": F32}
    save("argmin_round_quant", nodes,
         [("x", F32, [3, 5]), ("ties", F32, [2, 5]), ("qx", F32, [2, 3]), ("idx", I64, [2, 2])],
         [(k, types[k], list(v.shape)) for k, v in expected.items()],
         {"x": x, "ties": ties, "qx": qx, "idx": idx}, expected,
         [init("qs", np.float32(0.05)), init("qz", np.uint8(128)), init("qs_axis", qs_axis),
          init("qz_axis", qz_axis)], opset=13)


def topk():
    """TopK: largest along the last axis, smallest along axis 0 (K an initializer); distinct
    values so that the indices are unambiguous."""
    x = rng.permutation(24).astype(np.float32).reshape(4, 6) - 10
    nodes = [
        helper.make_node("TopK", ["x", "k3"], ["v", "i"]),
        helper.make_node("TopK", ["x", "k2"], ["vs", "is"], axis=0, largest=0),
    ]
    order = np.argsort(-x, axis=1, kind="stable")[:, :3]
    small = np.argsort(x, axis=0, kind="stable")[:2, :]
    expected = {"v": np.take_along_axis(x, order, axis=1), "i": order.astype(np.int64),
                "vs": np.take_along_axis(x, small, axis=0), "is": small.astype(np.int64)}
    types = {"v": F32, "i": I64, "vs": F32, "is": I64}
    save("topk", nodes, [("x", F32, [4, 6])], [(k, types[k], list(v.shape)) for k, v in expected.items()],
         {"x": x}, expected, [init("k3", np.array([3], np.int64)), init("k2", np.array([2], np.int64))], opset=11)


def group_instance_norm():
    """GroupNormalization (opset 18: scale and bias per group) and InstanceNormalization on 3-D and
    4-D inputs, against numpy's statistics."""
    x = rand(2, 6, 3, 4)
    x1 = rand(2, 4, 5)
    gs, gb = rand(3), rand(3)
    cs, cb = rand(4), rand(4)

    def group_norm(v, groups, scale, bias, eps):
        n, c = v.shape[:2]
        g = v.reshape(n, groups, -1)
        m = g.mean(axis=2, keepdims=True)
        var = g.var(axis=2, keepdims=True)
        y = ((g - m) / np.sqrt(var + eps)).reshape(v.shape)
        bshape = (1, c) + (1,) * (v.ndim - 2)
        rep = c // groups
        return y * np.repeat(scale, rep).reshape(bshape) + np.repeat(bias, rep).reshape(bshape)

    nodes = [
        helper.make_node("GroupNormalization", ["x", "gs", "gb"], ["gn"], num_groups=3, epsilon=1e-3),
        helper.make_node("InstanceNormalization", ["x1", "cs", "cb"], ["in3"]),
        helper.make_node("GroupNormalization", ["x1", "cs", "cb"], ["gn_c"], num_groups=4),
    ]
    expected = {"gn": group_norm(x, 3, gs, gb, 1e-3).astype(np.float32),
                "in3": group_norm(x1, 4, cs, cb, 1e-5).astype(np.float32),
                "gn_c": group_norm(x1, 4, cs, cb, 1e-5).astype(np.float32)}
    save("group_instance_norm", nodes, [("x", F32, [2, 6, 3, 4]), ("x1", F32, [2, 4, 5])],
         [(k, F32, list(v.shape)) for k, v in expected.items()], {"x": x, "x1": x1}, expected,
         [init("gs", gs), init("gb", gb), init("cs", cs), init("cb", cb)], opset=18, check=False)


def resize_ref(x, out_hw, mode, coord, nearest="round_prefer_floor"):
    """ONNX Resize on the last two axes by the spec's formulas, edge values outside the image."""
    n, c, ih, iw = x.shape
    oh, ow = out_hw

    def source(o, i, out):
        if coord == "align_corners":
            return o * (i - 1) / (out - 1) if out > 1 else 0.0
        if coord == "asymmetric":
            return o * i / out
        if coord == "pytorch_half_pixel" and out == 1:
            return 0.0
        return (o + 0.5) * i / out - 0.5

    def at(y, w):
        return x[:, :, min(max(y, 0), ih - 1), min(max(w, 0), iw - 1)]

    y = np.zeros((n, c, oh, ow), np.float64)
    for i in range(oh):
        for j in range(ow):
            sy, sx = source(i, ih, oh), source(j, iw, ow)
            if mode == "nearest":
                r = {"round_prefer_floor": lambda v: math.ceil(v - 0.5), "floor": math.floor}[nearest]
                y[:, :, i, j] = at(r(sy), r(sx))
            else:
                fy, fx = math.floor(sy), math.floor(sx)
                ty, tx = sy - fy, sx - fx
                top = at(fy, fx) * (1 - tx) + at(fy, fx + 1) * tx
                bottom = at(fy + 1, fx) * (1 - tx) + at(fy + 1, fx + 1) * tx
                y[:, :, i, j] = top * (1 - ty) + bottom * ty
    return y.astype(np.float32)


def resize():
    """Resize: linear and nearest, by scales and by sizes, in the coordinate transformations
    that exporters write (PyTorch's nearest upsampling is asymmetric + floor)."""
    x = rand(1, 2, 3, 4)
    empty = init("empty", np.array([], np.float32))
    nodes = [
        helper.make_node("Resize", ["x", "", "s2"], ["lin_hp"], mode="linear"),
        helper.make_node("Resize", ["x", "", "s2"], ["near_pt"], mode="nearest",
                         coordinate_transformation_mode="asymmetric", nearest_mode="floor"),
        helper.make_node("Resize", ["x", "empty", "empty", "sz57"], ["lin_ac"], mode="linear",
                         coordinate_transformation_mode="align_corners"),
        helper.make_node("Resize", ["x", "", "", "sz57"], ["near_hp"], mode="nearest"),
        helper.make_node("Resize", ["x", "", "", "sz13"], ["lin_php"], mode="linear",
                         coordinate_transformation_mode="pytorch_half_pixel"),
    ]
    expected = {"lin_hp": resize_ref(x, (6, 8), "linear", "half_pixel"),
                "near_pt": resize_ref(x, (6, 8), "nearest", "asymmetric", "floor"),
                "lin_ac": resize_ref(x, (5, 7), "linear", "align_corners"),
                "near_hp": resize_ref(x, (5, 7), "nearest", "half_pixel"),
                "lin_php": resize_ref(x, (1, 3), "linear", "pytorch_half_pixel")}
    save("resize", nodes, [("x", F32, [1, 2, 3, 4])], [(k, F32, list(v.shape)) for k, v in expected.items()],
         {"x": x}, expected,
         [init("s2", np.array([1, 1, 2, 2], np.float32)), empty,
          init("sz57", np.array([1, 2, 5, 7], np.int64)), init("sz13", np.array([1, 2, 1, 3], np.int64))], opset=13)


def scatter():
    """ScatterElements and ScatterND, plain and with reductions (opset 16), negative indices."""
    x = rand(3, 5)
    ie = np.array([[1, -1, 0], [4, 2, 2]], np.int64)
    ue = rand(2, 3)
    ind = np.array([[2], [0]], np.int64)
    und = rand(2, 5)
    ipt = np.array([[0, 1], [2, 3], [0, 1]], np.int64)
    upt = rand(3)
    nodes = [
        helper.make_node("ScatterElements", ["x", "ie", "ue"], ["se"], axis=1),
        helper.make_node("ScatterElements", ["x", "ie", "ue"], ["se_add"], axis=-1, reduction="add"),
        helper.make_node("ScatterND", ["x", "ind", "und"], ["snd"]),
        helper.make_node("ScatterND", ["x", "ipt", "upt"], ["snd_mul"], reduction="mul"),
    ]
    se, se_add = x.copy(), x.copy()
    for p in range(2):
        for q in range(3):
            c = ie[p, q] % 5
            se[p, c] = ue[p, q]
            se_add[p, c] += ue[p, q]
    snd = x.copy()
    snd[ind[:, 0]] = und
    snd_mul = x.copy()
    for p in range(3):
        snd_mul[ipt[p, 0], ipt[p, 1]] *= upt[p]
    expected = {"se": se, "se_add": se_add, "snd": snd, "snd_mul": snd_mul}
    save("scatter", nodes, [("x", F32, [3, 5]), ("ue", F32, [2, 3]), ("und", F32, [2, 5]), ("upt", F32, [3])],
         [(k, F32, list(v.shape)) for k, v in expected.items()],
         {"x": x, "ue": ue, "und": und, "upt": upt}, expected,
         [init("ie", ie), init("ind", ind), init("ipt", ipt)], opset=16)


def einsum():
    """Einsum (opset 12): a batched matrix product, a transpose-contraction and an implicit
    output."""
    a, b, m = rand(2, 3, 4), rand(2, 4, 5), rand(3, 4)
    nodes = [
        helper.make_node("Einsum", ["a", "b"], ["bmm"], equation="bij,bjk->bik"),
        helper.make_node("Einsum", ["m", "a"], ["ct"], equation="ij, bij -> jb"),
        helper.make_node("Einsum", ["m"], ["tr"], equation="ij"),
    ]
    expected = {"bmm": np.einsum("bij,bjk->bik", a, b), "ct": np.einsum("ij,bij->jb", m, a),
                "tr": np.einsum("ij", m)}
    expected = {k: np.ascontiguousarray(v) for k, v in expected.items()}
    save("einsum", nodes, [("a", F32, [2, 3, 4]), ("b", F32, [2, 4, 5]), ("m", F32, [3, 4])],
         [(k, F32, list(v.shape)) for k, v in expected.items()], {"a": a, "b": b, "m": m}, expected, opset=12)


def range_dynamic():
    """Range over a symbolic dim (position ids 0 .. seq): R.arange with a PrimValue end, added to
    the input so the output follows its shape."""
    x = rand(5, 3)
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Gather", ["shape", "zero"], ["seq"], axis=0),
        helper.make_node("Range", ["start", "seq", "step"], ["pos"]),
        helper.make_node("Cast", ["pos"], ["posf"], to=F32),
        helper.make_node("Unsqueeze", ["posf", "one"], ["col"]),
        helper.make_node("Add", ["x", "col"], ["y"]),
    ]
    pos = np.arange(0, 5, 1, dtype=np.int64)
    expected = {"y": x + pos.astype(np.float32)[:, None], "pos": pos}
    save("range_dynamic", nodes, [("x", F32, ["seq", 3])], [("y", F32, ["seq", 3]), ("pos", I64, ["seq"])],
         {"x": x}, expected,
         [init("zero", np.int64(0)), init("start", np.int64(0)), init("step", np.int64(1)),
          init("one", np.array([1], np.int64))], opset=13)


def layout_ops():
    """Trilu (both triangles, k given and not), DepthToSpace in DCR and CRD, SpaceToDepth,
    EyeLike with k and a dtype, OneHot with negative and out-of-range indices (opset 14)."""
    x = rand(2, 3, 4)
    d = rand(1, 8, 2, 3)
    sp = rand(1, 2, 4, 6)
    e = rand(3, 4)
    ind = np.array([[0, 2, -1], [3, 5, -4]], np.int64)
    vals = np.array([-1.5, 2.0], np.float32)
    nodes = [
        helper.make_node("Trilu", ["x"], ["triu"]),
        helper.make_node("Trilu", ["x", "k1"], ["tril1"], upper=0),
        helper.make_node("Trilu", ["x", "km1"], ["triu_m1"], upper=1),
        helper.make_node("DepthToSpace", ["d"], ["dcr"], blocksize=2),
        helper.make_node("DepthToSpace", ["d"], ["crd"], blocksize=2, mode="CRD"),
        helper.make_node("SpaceToDepth", ["sp"], ["s2d"], blocksize=2),
        helper.make_node("EyeLike", ["e"], ["eye"], k=1, dtype=I64),
        helper.make_node("EyeLike", ["e"], ["eye0"]),
        helper.make_node("OneHot", ["ind", "depth", "vals"], ["oh"], axis=1),
        helper.make_node("OneHot", ["ind", "depth", "vals"], ["oh_last"]),
    ]
    n, c, h, w = d.shape
    b = 2
    dcr = d.reshape(n, b, b, c // 4, h, w).transpose(0, 3, 4, 1, 5, 2).reshape(n, c // 4, h * b, w * b)
    crd = d.reshape(n, c // 4, b, b, h, w).transpose(0, 1, 4, 2, 5, 3).reshape(n, c // 4, h * b, w * b)
    n, c, h, w = sp.shape
    s2d = sp.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4).reshape(n, c * 4, h // b, w // b)

    def one_hot(axis):
        depth = 4
        out_shape = list(ind.shape)
        out_shape.insert(axis if axis >= 0 else len(out_shape) + 1 + axis, depth)
        hot = np.full(out_shape, vals[0], np.float32)
        moved = np.moveaxis(hot, axis, -1)
        for pos in np.ndindex(*ind.shape):
            i = ind[pos]
            if -depth <= i < depth:
                moved[pos + (i % depth,)] = vals[1]
        return np.ascontiguousarray(np.moveaxis(moved, -1, axis))

    expected = {"triu": np.triu(x), "tril1": np.tril(x, 1), "triu_m1": np.triu(x, -1),
                "dcr": np.ascontiguousarray(dcr), "crd": np.ascontiguousarray(crd),
                "s2d": np.ascontiguousarray(s2d),
                "eye": np.eye(3, 4, k=1, dtype=np.int64), "eye0": np.eye(3, 4, dtype=np.float32),
                "oh": one_hot(1), "oh_last": one_hot(-1)}
    types = {np.dtype(np.float32): F32, np.dtype(np.int64): I64}
    save("layout_ops", nodes,
         [("x", F32, [2, 3, 4]), ("d", F32, [1, 8, 2, 3]), ("sp", F32, [1, 2, 4, 6]), ("e", F32, [3, 4]),
          ("vals", F32, [2])],
         [(k, types[v.dtype], list(v.shape)) for k, v in expected.items()],
         {"x": x, "d": d, "sp": sp, "e": e, "vals": vals}, expected,
         [init("k1", np.int64(1)), init("km1", np.int64(-1)), init("ind", ind), init("depth", np.int64(4))],
         opset=14)


def lp_pool(x, kernel, strides, pads, p):
    """ONNX LpPool on NCHW by the definition: the p-norm of each zero-padded window."""
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    oh = (xp.shape[2] - kernel[0]) // strides[0] + 1
    ow = (xp.shape[3] - kernel[1]) // strides[1] + 1
    y = np.zeros(x.shape[:2] + (oh, ow), np.float64)
    for i in range(oh):
        for j in range(ow):
            win = xp[:, :, i * strides[0]:i * strides[0] + kernel[0], j * strides[1]:j * strides[1] + kernel[1]]
            y[:, :, i, j] = (np.abs(win.astype(np.float64)) ** p).sum(axis=(2, 3)) ** (1.0 / p)
    return y.astype(np.float32)


def lrn(x, size, alpha, beta, bias):
    c = x.shape[1]
    sq = np.zeros_like(x, dtype=np.float64)
    for ch in range(c):
        lo, hi = max(0, ch - (size - 1) // 2), min(c - 1, ch + math.ceil((size - 1) / 2))
        sq[:, ch] = (x[:, lo:hi + 1].astype(np.float64) ** 2).sum(axis=1)
    return (x / (bias + alpha / size * sq) ** beta).astype(np.float32)


def norm_pool_ops():
    """LpPool (p 2 with pads and strides, p 3 1-D), GlobalLpPool (p 1 and 2), LRN (even and odd
    size), MeanVarianceNormalization (default and given axes), Hardmax before and from opset 13."""
    x = rand(2, 3, 5, 4)
    x1 = rand(1, 2, 7)
    h = rand(2, 3, 4)
    nodes = [
        helper.make_node("LpPool", ["x"], ["lp2"], kernel_shape=[2, 3], strides=[2, 1], pads=[1, 0, 0, 1]),
        helper.make_node("LpPool", ["x1"], ["lp3"], kernel_shape=[3], p=3, strides=[2]),
        helper.make_node("GlobalLpPool", ["x"], ["glp1"], p=1),
        helper.make_node("GlobalLpPool", ["x"], ["glp2"]),
        helper.make_node("LRN", ["x"], ["lrn3"], size=3),
        helper.make_node("LRN", ["x"], ["lrn2"], size=2, alpha=0.01, beta=0.5, bias=2.0),
        helper.make_node("MeanVarianceNormalization", ["x"], ["mvn"]),
        helper.make_node("MeanVarianceNormalization", ["h"], ["mvn_last"], axes=[-1]),
        helper.make_node("Hardmax", ["h"], ["hm"]),
        helper.make_node("Hardmax", ["h"], ["hm0"], axis=0),
    ]
    lp3 = lp_pool(x1[:, :, None, :], (1, 3), (1, 2), (0, 0, 0, 0), 3)[:, :, 0, :]

    def mvn(v, axes):
        m = v.mean(axis=axes, keepdims=True)
        var = (v * v).mean(axis=axes, keepdims=True) - m * m
        return ((v - m) / (np.sqrt(var) + 1e-9)).astype(np.float32)

    def hardmax(v, axis):
        out = np.zeros_like(v)
        idx = np.expand_dims(v.argmax(axis=axis), axis)
        np.put_along_axis(out, idx, 1.0, axis=axis)
        return out

    expected = {"lp2": lp_pool(x, (2, 3), (2, 1), (1, 0, 0, 1), 2), "lp3": np.ascontiguousarray(lp3),
                "glp1": np.abs(x).sum(axis=(2, 3), keepdims=True),
                "glp2": np.sqrt((x * x).sum(axis=(2, 3), keepdims=True)),
                "lrn3": lrn(x, 3, 1e-4, 0.75, 1.0), "lrn2": lrn(x, 2, 0.01, 0.5, 2.0),
                "mvn": mvn(x, (0, 2, 3)), "mvn_last": mvn(h, (2,)),
                "hm": hardmax(h, -1), "hm0": hardmax(h, 0)}
    save("norm_pool_ops", nodes, [("x", F32, [2, 3, 5, 4]), ("x1", F32, [1, 2, 7]), ("h", F32, [2, 3, 4])],
         [(k, F32, list(v.shape)) for k, v in expected.items()], {"x": x, "x1": x1, "h": h}, expected, opset=13)
    # Opset 11: Hardmax over the trailing block from axis 1 (the input coerced to 2-D).
    flat = h.reshape(2, 12)
    expected = {"hm": hardmax(flat, 1).reshape(h.shape)}
    save("hardmax_v11", [helper.make_node("Hardmax", ["h"], ["hm"])], [("h", F32, [2, 3, 4])],
         [("hm", F32, [2, 3, 4])], {"h": h}, expected, opset=11)


def activation_predicates():
    """Celu, Shrink (float and int), IsNaN, IsInf (each detection mode), CastLike (opset 15);
    Mish (opset 18, newer than Debian's onnx checks)."""
    x = rand(3, 4) * 2
    xi = np.array([[-3, -1, 0, 1, 2, 5]], np.int32)
    special = np.array([1.0, np.nan, np.inf, -np.inf, -2.0, 0.0], np.float32)
    like = np.zeros((1,), np.int32)
    nodes = [
        helper.make_node("Celu", ["x"], ["celu"], alpha=0.5),
        helper.make_node("Shrink", ["x"], ["shrink"], lambd=0.7, bias=0.2),
        helper.make_node("Shrink", ["xi"], ["shrink_i"], lambd=1.5, bias=1.0),
        helper.make_node("IsNaN", ["sp"], ["nan"]),
        helper.make_node("IsInf", ["sp"], ["inf"]),
        helper.make_node("IsInf", ["sp"], ["pinf"], detect_negative=0),
        helper.make_node("IsInf", ["sp"], ["ninf"], detect_positive=0),
        helper.make_node("CastLike", ["x", "like"], ["cl"]),
    ]
    softplus = np.log1p(np.exp(x.astype(np.float64)))

    def shrink(v, lambd, bias):
        return np.where(v < -lambd, v + bias, np.where(v > lambd, v - bias, 0)).astype(v.dtype)

    expected = {"celu": np.where(x > 0, x, 0.5 * (np.exp(x / 0.5) - 1)).astype(np.float32),
                "shrink": shrink(x, 0.7, 0.2), "shrink_i": shrink(xi, 1.5, 1),
                "nan": np.isnan(special), "inf": np.isinf(special),
                "pinf": np.isposinf(special), "ninf": np.isneginf(special),
                "cl": x.astype(np.int32)}
    types = {np.dtype(np.float32): F32, np.dtype(np.int32): TensorProto.INT32, np.dtype(bool): TensorProto.BOOL}
    save("activation_predicates", nodes,
         [("x", F32, [3, 4]), ("xi", TensorProto.INT32, [1, 6]), ("sp", F32, [6]), ("like", TensorProto.INT32, [1])],
         [(k, types[v.dtype], list(v.shape)) for k, v in expected.items()],
         {"x": x, "xi": xi, "sp": special, "like": like}, expected, opset=15)
    save("mish", [helper.make_node("Mish", ["x"], ["mish"])], [("x", F32, [3, 4])], [("mish", F32, [3, 4])],
         {"x": x}, {"mish": (x * np.tanh(softplus)).astype(np.float32)}, opset=18, check=False)


def matmul_integer():
    """MatMulInteger: uint8 x int8 with scalar zero points, int8 x int8 without (opset 10 op)."""
    a = rng.integers(0, 256, (2, 3, 4)).astype(np.uint8)
    b = rng.integers(-128, 128, (4, 5)).astype(np.int8)
    c = rng.integers(-128, 128, (3, 4)).astype(np.int8)
    nodes = [
        helper.make_node("MatMulInteger", ["a", "b", "az", "bz"], ["zp"]),
        helper.make_node("MatMulInteger", ["c", "b"], ["plain"]),
    ]
    expected = {"zp": (a.astype(np.int32) - 130) @ (b.astype(np.int32) + 3),
                "plain": c.astype(np.int32) @ b.astype(np.int32)}
    save("matmul_integer", nodes,
         [("a", TensorProto.UINT8, [2, 3, 4]), ("b", TensorProto.INT8, [4, 5]), ("c", TensorProto.INT8, [3, 4])],
         [(k, TensorProto.INT32, list(v.shape)) for k, v in expected.items()], {"a": a, "b": b, "c": c}, expected,
         [init("az", np.uint8(130)), init("bz", np.array([-3], np.int8))], opset=13)


# --- quantized ops and 3-D windows --------------------------------------------------------------

U8 = TensorProto.UINT8
I8 = TensorProto.INT8
I32 = TensorProto.INT32


def conv_nd(x, w, pads, strides, dils, group=1):
    """Conv of any spatial rank by its definition; pads are the befores then the afters. Integer
    operands accumulate in int64."""
    k = x.ndim - 2
    acc = np.int64 if x.dtype.kind in "iu" else np.float64
    xp = np.pad(x.astype(acc), [(0, 0), (0, 0)] + [(pads[i], pads[k + i]) for i in range(k)])
    n, m, cg, taps = x.shape[0], w.shape[0], w.shape[1], w.shape[2:]
    out_sp = [(xp.shape[2 + i] - dils[i] * (taps[i] - 1) - 1) // strides[i] + 1 for i in range(k)]
    out = np.zeros((n, m, *out_sp), acc)
    per = m // group
    for oc in range(m):
        g = oc // per
        for idx in np.ndindex(*out_sp):
            window = tuple(slice(idx[i] * strides[i], idx[i] * strides[i] + dils[i] * (taps[i] - 1) + 1, dils[i])
                           for i in range(k))
            patch = xp[(slice(None), slice(g * cg, (g + 1) * cg)) + window]
            out[(slice(None), oc) + idx] = (patch * w[oc].astype(acc)).sum(axis=tuple(range(1, k + 2)))
    return out


def conv_transpose_nd(x, w, strides, pads, out_pad, dils, group=1):
    """ConvTranspose of any spatial rank by its definition: each input element scatters x * w."""
    k = x.ndim - 2
    n, c, m, taps = x.shape[0], x.shape[1], w.shape[1], w.shape[2:]
    cg = c // group
    full = [(x.shape[2 + i] - 1) * strides[i] + dils[i] * (taps[i] - 1) + 1 + out_pad[i] for i in range(k)]
    out = np.zeros((n, m * group, *full), np.float64)
    for ci in range(c):
        g = ci // cg
        for idx in np.ndindex(*x.shape[2:]):
            for t in np.ndindex(*taps):
                pos = tuple(idx[i] * strides[i] + t[i] * dils[i] for i in range(k))
                out[(slice(None), slice(g * m, (g + 1) * m)) + pos] += \
                    x[(slice(None), ci) + idx][:, None] * w[(ci, slice(None)) + t]
    return out[(slice(None), slice(None)) + tuple(slice(pads[i], full[i] - pads[k + i]) for i in range(k))]


def pool_nd(x, kernel, strides, pads, mode, include_pad=False, ceil=False, dils=None):
    """Max or average pooling of any spatial rank: each window over the positions inside the data
    (an average divided by the whole window with include_pad)."""
    k = len(kernel)
    dils = dils or [1] * k
    sp = x.shape[2:]
    out_sp = []
    for i in range(k):
        num = sp[i] + pads[i] + pads[k + i] - (dils[i] * (kernel[i] - 1) + 1)
        out_sp.append((-(-num // strides[i]) if ceil else num // strides[i]) + 1)
    out = np.zeros(x.shape[:2] + tuple(out_sp), np.float32)
    for idx in np.ndindex(*out_sp):
        pos = [[idx[i] * strides[i] - pads[i] + r * dils[i] for r in range(kernel[i])] for i in range(k)]
        inside = [[p for p in ps if 0 <= p < sp[i]] for i, ps in enumerate(pos)]
        patch = x[np.ix_(range(x.shape[0]), range(x.shape[1]), *inside)]
        flat = patch.reshape(x.shape[0], x.shape[1], -1)
        if mode == "max":
            out[(slice(None), slice(None)) + idx] = flat.max(axis=2)
        else:
            count = int(np.prod(kernel)) if include_pad else flat.shape[2]
            out[(slice(None), slice(None)) + idx] = flat.sum(axis=2) / count
    return out


def qlinear_matmul():
    """QLinearMatMul per tensor (uint8, a batched A) and per row of A / per column of B (int8);
    MatMulInteger with per-row and per-column zero points, and of a vector A."""
    a = rng.integers(0, 256, (2, 3, 4)).astype(np.uint8)
    b = rng.integers(0, 256, (4, 5)).astype(np.uint8)
    a8 = rng.integers(-128, 128, (3, 4)).astype(np.int8)
    b8 = rng.integers(-128, 128, (4, 5)).astype(np.int8)
    a_s, b_s, y_s = np.float32(0.02), np.float32(0.03), np.float32(0.37)
    a_z, b_z, y_z = np.uint8(120), np.uint8(131), np.uint8(125)
    a_s_row = np.array([0.021, 0.013, 0.034], np.float32)
    a_z_row = np.array([3, -7, 0], np.int8)
    b_s_col = np.array([0.011, 0.027, 0.019, 0.008, 0.031], np.float32)
    b_z_col = np.array([1, 0, -2, 5, -1], np.int8)
    y_s8, y_z8 = np.float32(0.093), np.int8(-4)
    nodes = [
        helper.make_node("QLinearMatMul", ["a", "a_s", "a_z", "b", "b_s", "b_z", "y_s", "y_z"], ["qmm"], name="qmm"),
        helper.make_node("QLinearMatMul", ["a8", "a_s_row", "a_z_row", "b8", "b_s_col", "b_z_col", "y_s8", "y_z8"],
                         ["qmm_axis"], name="qmm_axis"),
        helper.make_node("MatMulInteger", ["a8", "b8", "a_z_row", "b_z_col"], ["mmi_axis"]),
        helper.make_node("MatMulInteger", ["v8", "b8", "", "b_z_col"], ["mmi_vec"]),
    ]
    v8 = rng.integers(-128, 128, (4,)).astype(np.int8)
    acc = (a.astype(np.int64) - int(a_z)) @ (b.astype(np.int64) - int(b_z))
    acc8 = (a8.astype(np.int64) - a_z_row.reshape(3, 1)) @ (b8.astype(np.int64) - b_z_col.reshape(1, 5))
    # The QLinear ops after the int32 accumulation, in float32 as the kernels compute:
    # round(acc * a_scale * b_scale / y_scale) + y_zero, saturated.
    real = (acc.astype(np.float32) * a_s) * b_s
    real8 = (acc8.astype(np.float32) * a_s_row.reshape(3, 1)) * b_s_col.reshape(1, 5)
    expected = {
        "qmm": np.clip(np.round(real / y_s) + np.float32(y_z), 0, 255).astype(np.uint8),
        "qmm_axis": np.clip(np.round(real8 / y_s8) + np.float32(y_z8), -128, 127).astype(np.int8),
        "mmi_axis": acc8.astype(np.int32),
        "mmi_vec": (v8.astype(np.int64) @ (b8.astype(np.int64) - b_z_col.reshape(1, 5))).astype(np.int32),
    }
    types = {"qmm": U8, "qmm_axis": I8, "mmi_axis": I32, "mmi_vec": I32}
    save("qlinear_matmul", nodes,
         [("a", U8, [2, 3, 4]), ("b", U8, [4, 5]), ("a8", I8, [3, 4]), ("b8", I8, [4, 5]), ("v8", I8, [4])],
         [(k, types[k], list(v.shape)) for k, v in expected.items()], {"a": a, "b": b, "a8": a8, "b8": b8, "v8": v8},
         expected,
         [init("a_s", a_s), init("a_z", a_z), init("b_s", b_s), init("b_z", b_z), init("y_s", y_s), init("y_z", y_z),
          init("a_s_row", a_s_row), init("a_z_row", a_z_row), init("b_s_col", b_s_col), init("b_z_col", b_z_col),
          init("y_s8", y_s8), init("y_z8", y_z8)], opset=13)


def maxpool_indices_ref(x, kernel, strides, pads, dilations, ceil=False, column_major=False):
    """MaxPool's values and Indices as onnxruntime computes them: the first maximum of each window
    in window order, its flat index row-major over N, C and the spatial dims, or column-major over
    the spatial dims."""
    n = len(kernel)
    spatial = x.shape[2:]
    outs = []
    for k in range(n):
        span = spatial[k] + pads[k] + pads[k + n] - dilations[k] * (kernel[k] - 1) - 1
        o = (-(-span // strides[k]) if ceil else span // strides[k]) + 1
        if ceil and (o - 1) * strides[k] >= spatial[k] + pads[k]:
            o -= 1
        outs.append(o)
    strides_flat = []
    for k in range(n):
        dims = spatial[:k] if column_major else spatial[k + 1:]
        strides_flat.append(int(np.prod(dims)) if len(dims) else 1)
    values = np.zeros(x.shape[:2] + tuple(outs), x.dtype)
    indices = np.zeros(values.shape, np.int64)
    for b in range(x.shape[0]):
        for c in range(x.shape[1]):
            for pos in np.ndindex(*outs):
                best, where = None, None
                for off in np.ndindex(*kernel):
                    h = [pos[k] * strides[k] + off[k] * dilations[k] - pads[k] for k in range(n)]
                    if any(h[k] < 0 or h[k] >= spatial[k] for k in range(n)):
                        continue
                    v = x[(b, c) + tuple(h)]
                    if best is None or v > best:
                        best = v
                        where = sum(h[k] * strides_flat[k] for k in range(n))
                values[(b, c) + pos] = best
                indices[(b, c) + pos] = (b * x.shape[1] + c) * int(np.prod(spatial)) + where
    return values, indices


def maxpool_indices():
    """MaxPool's Indices output: 2-D with padding, stride and ties (a rounded input), ceil_mode
    windows past the end, storage_order 1 with dilations, and a 1-D pool of int8 data."""
    x = np.round(rand(2, 3, 5, 6) * 2).astype(np.float32)
    x1 = rng.integers(-128, 128, (1, 2, 7)).astype(np.int8)
    nodes = [
        helper.make_node("MaxPool", ["x"], ["v", "i"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
        helper.make_node("MaxPool", ["x"], ["vc", "ic"], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1),
        helper.make_node("MaxPool", ["x"], ["vs", "is"], kernel_shape=[2, 2], dilations=[2, 1], storage_order=1),
        helper.make_node("MaxPool", ["x1"], ["v1", "i1"], kernel_shape=[3], strides=[2], pads=[1, 0]),
    ]
    v, i = maxpool_indices_ref(x, [3, 3], [2, 2], [1, 1, 1, 1], [1, 1])
    vc, ic = maxpool_indices_ref(x, [2, 2], [2, 2], [0, 0, 0, 0], [1, 1], ceil=True)
    vs, is_ = maxpool_indices_ref(x, [2, 2], [1, 1], [0, 0, 0, 0], [2, 1], column_major=True)
    v1, i1 = maxpool_indices_ref(x1, [3], [2], [1, 0], [1])
    expected = {"v": v, "i": i, "vc": vc, "ic": ic, "vs": vs, "is": is_, "v1": v1, "i1": i1}
    types = {"v": F32, "vc": F32, "vs": F32, "v1": I8}
    save("maxpool_indices", nodes, [("x", F32, [2, 3, 5, 6]), ("x1", I8, [1, 2, 7])],
         [(k, types.get(k, I64), list(a.shape)) for k, a in expected.items()], {"x": x, "x1": x1}, expected,
         opset=12)


def qlinear_binary():
    """onnxruntime's QLinearAdd / QLinearMul (domain com.microsoft): uint8 with broadcasting and
    zero points, int8 without C's zero point (0)."""
    a = rng.integers(0, 256, (2, 3, 4)).astype(np.uint8)
    b = rng.integers(0, 256, (3, 1)).astype(np.uint8)
    a8 = rng.integers(-128, 128, (2, 3, 4)).astype(np.int8)
    b8 = rng.integers(-128, 128, (4,)).astype(np.int8)
    a_s, a_z, b_s, b_z = np.float32(0.05), np.uint8(128), np.float32(0.07), np.uint8(100)
    c_s, c_z = np.float32(0.11), np.uint8(90)
    s8a, z8a, s8b, z8b, s8c = np.float32(0.03), np.int8(-3), np.float32(0.02), np.int8(5), np.float32(0.09)

    def deq(x, s, z):
        return (x.astype(np.float32) - np.float32(z)) * s

    def q(x, s, z, lo, hi, t):
        return np.clip(np.round(x / s) + np.float32(z), lo, hi).astype(t)

    ms = "com.microsoft"
    nodes = [
        helper.make_node("QLinearAdd", ["a", "a_s", "a_z", "b", "b_s", "b_z", "c_s", "c_z"], ["add"], domain=ms),
        helper.make_node("QLinearMul", ["a", "a_s", "a_z", "b", "b_s", "b_z", "c_s", "c_z"], ["mul"], domain=ms),
        helper.make_node("QLinearAdd", ["a8", "s8a", "z8a", "b8", "s8b", "z8b", "s8c"], ["add8"], domain=ms),
        helper.make_node("QLinearMul", ["a8", "s8a", "", "b8", "s8b", "z8b", "s8c"], ["mul8"], domain=ms),
    ]
    expected = {
        "add": q(deq(a, a_s, a_z) + deq(b, b_s, b_z), c_s, c_z, 0, 255, np.uint8),
        "mul": q(deq(a, a_s, a_z) * deq(b, b_s, b_z), c_s, c_z, 0, 255, np.uint8),
        "add8": q(deq(a8, s8a, z8a) + deq(b8, s8b, z8b), s8c, 0, -128, 127, np.int8),
        "mul8": q(deq(a8, s8a, 0) * deq(b8, s8b, z8b), s8c, 0, -128, 127, np.int8),
    }
    types = {"add": U8, "mul": U8, "add8": I8, "mul8": I8}
    save("qlinear_binary", nodes, [("a", U8, [2, 3, 4]), ("b", U8, [3, 1]), ("a8", I8, [2, 3, 4]), ("b8", I8, [4])],
         [(k, types[k], list(v.shape)) for k, v in expected.items()], {"a": a, "b": b, "a8": a8, "b8": b8},
         expected,
         [init("a_s", a_s), init("a_z", a_z), init("b_s", b_s), init("b_z", b_z), init("c_s", c_s), init("c_z", c_z),
          init("s8a", s8a), init("z8a", z8a), init("s8b", s8b), init("z8b", z8b), init("s8c", s8c)],
         opset=13, check=False, domains=[(ms, 1)])


def qlinear_conv():
    """QLinearConv 2-D with per-output-channel weight scales and zero points, a bias, padding,
    stride and groups; a 1-D one per tensor; ConvInteger 2-D with per-channel weight zero points
    and 3-D without zero points."""
    x = rng.integers(0, 256, (1, 4, 6, 5)).astype(np.uint8)
    w = rng.integers(-128, 128, (6, 2, 3, 3)).astype(np.int8)
    bias = rng.integers(-500, 500, (6,)).astype(np.int32)
    x_s, x_z = np.float32(0.05), np.uint8(128)
    w_s = np.array([0.01, 0.02, 0.015, 0.03, 0.007, 0.012], np.float32)
    w_z = np.array([0, 1, -1, 2, 0, -3], np.int8)
    y_s, y_z = np.float32(0.21), np.uint8(100)
    x1 = rng.integers(-128, 128, (2, 3, 9)).astype(np.int8)
    w1 = rng.integers(-128, 128, (4, 3, 3)).astype(np.int8)
    s1, z1, ws1, wz1, ys1, yz1 = (np.float32(0.04), np.int8(-2), np.float32(0.03), np.int8(1), np.float32(0.6),
                                  np.int8(3))
    x3 = rng.integers(0, 256, (1, 2, 4, 4, 4)).astype(np.uint8)
    w3 = rng.integers(0, 256, (3, 2, 2, 2, 2)).astype(np.uint8)
    nodes = [
        helper.make_node("QLinearConv", ["x", "x_s", "x_z", "w", "w_s", "w_z", "y_s", "y_z", "bias"], ["qc"],
                         pads=[1, 0, 1, 2], strides=[2, 1], group=2, name="qc"),
        helper.make_node("QLinearConv", ["x1", "s1", "z1", "w1", "ws1", "wz1", "ys1", "yz1"], ["qc1"],
                         pads=[1, 1], dilations=[2]),
        helper.make_node("ConvInteger", ["x", "w", "x_z", "w_z"], ["ci"], pads=[1, 1, 1, 1], group=2),
        helper.make_node("ConvInteger", ["x3", "w3"], ["ci3"], strides=[1, 2, 1]),
    ]
    xc = x.astype(np.int64) - int(x_z)
    wc = w.astype(np.int64) - w_z.reshape(6, 1, 1, 1)
    acc = conv_nd(xc, wc, (1, 0, 1, 2), (2, 1), (1, 1), group=2) + bias.reshape(1, 6, 1, 1)
    real = (acc.astype(np.float32) * x_s) * w_s.reshape(1, 6, 1, 1)
    qc = np.clip(np.round(real / y_s) + np.float32(y_z), 0, 255).astype(np.uint8)
    acc1 = conv_nd(x1.astype(np.int64) - int(z1), w1.astype(np.int64) - int(wz1), (1, 1), (1,), (2,))
    real1 = (acc1.astype(np.float32) * s1) * ws1
    qc1 = np.clip(np.round(real1 / ys1) + np.float32(yz1), -128, 127).astype(np.int8)
    ci = conv_nd(xc, wc, (1, 1, 1, 1), (1, 1), (1, 1), group=2).astype(np.int32)
    ci3 = conv_nd(x3.astype(np.int64), w3.astype(np.int64), (0,) * 6, (1, 2, 1), (1, 1, 1)).astype(np.int32)
    expected = {"qc": qc, "qc1": qc1, "ci": ci, "ci3": ci3}
    types = {"qc": U8, "qc1": I8, "ci": I32, "ci3": I32}
    save("qlinear_conv", nodes,
         [("x", U8, [1, 4, 6, 5]), ("x1", I8, [2, 3, 9]), ("x3", U8, [1, 2, 4, 4, 4])],
         [(k, types[k], list(v.shape)) for k, v in expected.items()], {"x": x, "x1": x1, "x3": x3}, expected,
         [init("x_s", x_s), init("x_z", x_z), init("w", w), init("w_s", w_s), init("w_z", w_z), init("y_s", y_s),
          init("y_z", y_z), init("bias", bias), init("s1", s1), init("z1", z1), init("w1", w1), init("ws1", ws1),
          init("wz1", wz1), init("ys1", ys1), init("yz1", yz1), init("w3", w3)], opset=13)


def dynamic_quantize():
    """DynamicQuantizeLinear on data of both signs and on positive data (min clamped to 0);
    QuantizeLinear and DequantizeLinear of 1-D data with the default axis (1, meaning 0 there)."""
    x = (rand(3, 4) * 3).astype(np.float32)
    xp = np.abs(rand(5)).astype(np.float32) + np.float32(0.1)
    v = rand(4).astype(np.float32)
    v_s = np.array([0.1, 0.05, 0.2, 0.3], np.float32)
    v_z = np.array([0, 10, -5, 3], np.int8)
    nodes = [
        helper.make_node("DynamicQuantizeLinear", ["x"], ["y", "y_scale", "y_zero"]),
        helper.make_node("DynamicQuantizeLinear", ["xp"], ["yp", "yp_scale", "yp_zero"]),
        helper.make_node("QuantizeLinear", ["v", "v_s", "v_z"], ["vq"]),
        helper.make_node("DequantizeLinear", ["vq", "v_s", "v_z"], ["vd"]),
    ]

    def dql(x):
        hi, lo = np.maximum(np.float32(0), x.max()), np.minimum(np.float32(0), x.min())
        scale = np.float32((hi - lo) / np.float32(255))
        zero = np.round(np.clip(np.float32(0) - lo / scale, 0, 255)).astype(np.uint8)
        y = np.clip(np.round(x / scale) + np.float32(zero), 0, 255).astype(np.uint8)
        return y, np.array(scale, np.float32), np.array(zero, np.uint8)

    y, ys, yz = dql(x)
    yp, yps, ypz = dql(xp)
    vq = np.clip(np.round(v / v_s) + v_z.astype(np.float32), -128, 127).astype(np.int8)
    vd = ((vq.astype(np.float32) - v_z.astype(np.float32)) * v_s).astype(np.float32)
    expected = {"y": y, "y_scale": ys, "y_zero": yz, "yp": yp, "yp_scale": yps, "yp_zero": ypz, "vq": vq, "vd": vd}
    types = {"y": U8, "y_scale": F32, "y_zero": U8, "yp": U8, "yp_scale": F32, "yp_zero": U8, "vq": I8, "vd": F32}
    save("dynamic_quantize", nodes, [("x", F32, [3, 4]), ("xp", F32, [5]), ("v", F32, [4])],
         [(k, types[k], list(v.shape)) for k, v in expected.items()], {"x": x, "xp": xp, "v": v}, expected,
         [init("v_s", v_s), init("v_z", v_z)], opset=13)


def conv_pool_3d():
    """3-D Conv (bias, asymmetric pads, strides, dilations, groups), ConvTranspose (strides, pads,
    output_padding, dilations, groups, bias), MaxPool (pads, ceil_mode), AveragePool with and
    without the padding counted, and a 3-D GlobalAveragePool."""
    x = rand(1, 4, 5, 6, 5)
    w = rand(6, 2, 3, 2, 3)
    b = rand(6)
    wt = rand(4, 3, 2, 3, 2)
    bt = rand(6)
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["conv"], pads=[1, 0, 2, 1, 1, 0], strides=[1, 2, 1],
                         dilations=[1, 1, 2], group=2),
        helper.make_node("MaxPool", ["x"], ["max"], kernel_shape=[2, 3, 2], strides=[2, 2, 2], pads=[0, 1, 0, 0, 1, 0],
                         ceil_mode=1),
        helper.make_node("AveragePool", ["x"], ["avg"], kernel_shape=[3, 3, 2], strides=[1, 2, 2],
                         pads=[1, 1, 0, 1, 1, 1]),
        helper.make_node("AveragePool", ["x"], ["avg_pad"], kernel_shape=[3, 2, 3], strides=[2, 1, 2],
                         pads=[1, 0, 1, 1, 1, 1], count_include_pad=1),
        helper.make_node("GlobalAveragePool", ["x"], ["gap"]),
        helper.make_node("ConvTranspose", ["x", "wt", "bt"], ["ct"], strides=[2, 1, 2], pads=[1, 0, 0, 0, 1, 1],
                         output_padding=[1, 0, 0], dilations=[1, 2, 1], group=2),
    ]
    conv = conv_nd(x, w, (1, 0, 2, 1, 1, 0), (1, 2, 1), (1, 1, 2), group=2) + b.reshape(1, 6, 1, 1, 1)
    expected = {
        "conv": conv.astype(np.float32),
        "max": pool_nd(x, (2, 3, 2), (2, 2, 2), (0, 1, 0, 0, 1, 0), "max", ceil=True),
        "avg": pool_nd(x, (3, 3, 2), (1, 2, 2), (1, 1, 0, 1, 1, 1), "avg"),
        "avg_pad": pool_nd(x, (3, 2, 3), (2, 1, 2), (1, 0, 1, 1, 1, 1), "avg", include_pad=True),
        "gap": x.mean(axis=(2, 3, 4), keepdims=True),
        "ct": (conv_transpose_nd(x, wt, (2, 1, 2), (1, 0, 0, 0, 1, 1), (1, 0, 0), (1, 2, 1), group=2)
               + bt.reshape(1, 6, 1, 1, 1)).astype(np.float32),
    }
    save("conv_pool_3d", nodes, [("x", F32, [1, 4, 5, 6, 5])],
         [(k, F32, list(v.shape)) for k, v in expected.items()], {"x": x}, expected,
         [init("w", w), init("b", b), init("wt", wt), init("bt", bt)], opset=17)


def nonzero():
    """NonZero on a float matrix with zeros, its result transposed (count a symbolic dim), and on a
    bool 1-D tensor."""
    x = rand(3, 4)
    x[x < 0.3] = 0
    m = np.array([True, False, True, True, False], np.bool_)
    nodes = [
        helper.make_node("NonZero", ["x"], ["nz"]),
        helper.make_node("Transpose", ["nz"], ["nz_t"], perm=[1, 0]),
        helper.make_node("NonZero", ["m"], ["nzm"]),
    ]
    nz = np.array(np.nonzero(x), np.int64)
    expected = {"nz": nz, "nz_t": np.ascontiguousarray(nz.T), "nzm": np.array(np.nonzero(m), np.int64)}
    save("nonzero", nodes, [("x", F32, [3, 4]), ("m", TensorProto.BOOL, [5])],
         [("nz", I64, [2, "n"]), ("nz_t", I64, ["n", 2]), ("nzm", I64, [1, "k"])], {"x": x, "m": m}, expected,
         opset=13)


def dynamic_slice():
    """Slice by starts and ends computed when it runs (graph inputs): one axis with a constant
    step, and two axes with negative starts and a run-time negative step."""
    x = rand(3, 8)
    nodes = [
        helper.make_node("Slice", ["x", "s1", "e1", "ax1", "st1"], ["y1"]),
        helper.make_node("Slice", ["x", "s2", "e2", "ax2", "st2"], ["y2"]),
    ]
    s1, e1 = np.array([1], np.int64), np.array([7], np.int64)
    s2, e2, st2 = np.array([-1, 0], np.int64), np.array([-100, 100], np.int64), np.array([-1, 3], np.int64)
    expected = {"y1": np.ascontiguousarray(x[:, 1:7:2]), "y2": np.ascontiguousarray(x[::-1, 0:100:3])}
    save("dynamic_slice", nodes,
         [("x", F32, [3, 8]), ("s1", I64, [1]), ("e1", I64, [1]), ("s2", I64, [2]), ("e2", I64, [2]),
          ("st2", I64, [2])],
         [("y1", F32, [3, "a"]), ("y2", F32, ["b", "c"])],
         {"x": x, "s1": s1, "e1": e1, "s2": s2, "e2": e2, "st2": st2}, expected,
         [init("ax1", np.array([-1], np.int64)), init("st1", np.array([2], np.int64)),
          init("ax2", np.array([0, 1], np.int64))], opset=13)


def one_hot_const():
    """OneHot with constant values (onto R.one_hot): negative indices wrap, those outside
    [-depth, depth) give a row of off; float and int64 values, a middle and the first axis."""
    ind = np.array([[0, -1, 2], [5, -4, 3]], np.int64)
    depth = 4

    def ref(values, axis):
        wrapped = np.where(ind < 0, ind + depth, ind)
        hot = (wrapped[..., None] == np.arange(depth)).astype(values.dtype)
        out = np.where(hot == 1, values[1], values[0]).astype(values.dtype)
        return np.ascontiguousarray(np.moveaxis(out, -1, axis))

    vf, vi = np.array([0.5, 3.0], np.float32), np.array([-1, 7], np.int64)
    nodes = [
        helper.make_node("OneHot", ["ind", "depth", "vf"], ["ohf"], axis=-2),
        helper.make_node("OneHot", ["ind", "depth", "vi"], ["ohi"], axis=0),
    ]
    expected = {"ohf": ref(vf, -2), "ohi": ref(vi, 0)}
    save("one_hot_const", nodes, [("ind", I64, [2, 3])],
         [("ohf", F32, list(expected["ohf"].shape)), ("ohi", I64, list(expected["ohi"].shape))], {"ind": ind}, expected,
         [init("depth", np.int64(depth)), init("vf", vf), init("vi", vi)], opset=13)


def quant_errors():
    """Quantized models the importer refuses: a per-column scale of the wrong length, a weight zero
    point of another dtype than the weight, a Conv over four spatial axes."""
    a = helper.make_tensor_value_info("a", U8, [2, 3])
    b = helper.make_tensor_value_info("b", U8, [3, 4])
    inits = [init("s", np.float32(0.1)), init("z", np.uint8(0)), init("bs", np.ones(3, np.float32))]
    nodes = [helper.make_node("QLinearMatMul", ["a", "s", "z", "b", "bs", "z", "s", "z"], ["y"], name="qmm")]
    graph = helper.make_graph(nodes, "qlinear_matmul_bad_scale", [a, b], [helper.make_tensor_value_info("y", U8, [2, 4])],
                              initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="gen_onnx_models")
    model.ir_version = 8
    onnx.save(model, os.path.join(DATA, "qlinear_matmul_bad_scale.onnx"))
    x = helper.make_tensor_value_info("x", U8, [1, 1, 4, 4])
    nodes = [helper.make_node("ConvInteger", ["x", "w", "", "wz"], ["y"], name="ci")]
    graph = helper.make_graph(nodes, "conv_integer_bad_zero", [x], [helper.make_tensor_value_info("y", I32, None)],
                              initializer=[init("w", np.ones((1, 1, 3, 3), np.int8)), init("wz", np.uint8(1))])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="gen_onnx_models")
    model.ir_version = 8
    onnx.save(model, os.path.join(DATA, "conv_integer_bad_zero.onnx"))
    x = helper.make_tensor_value_info("x", F32, [1, 1, 2, 2, 2, 2])
    nodes = [helper.make_node("Conv", ["x", "w"], ["y"], name="c4")]
    graph = helper.make_graph(nodes, "conv_4d", [x], [helper.make_tensor_value_info("y", F32, None)],
                              initializer=[init("w", np.ones((1, 1, 2, 2, 2, 2), np.float32))])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="gen_onnx_models")
    model.ir_version = 8
    onnx.save(model, os.path.join(DATA, "conv_4d.onnx"))


# --- error cases ------------------------------------------------------------------------------

def errors():
    nodes = [
        helper.make_node("Relu", ["x"], ["a"], name="ok"),
        helper.make_node("Unique", ["a"], ["b"], name="uq"),
        helper.make_node("Relu", ["b"], ["c"]),
        helper.make_node("Det", ["c"], ["y"], name="det"),
    ]
    save("unsupported_ops", nodes, [("x", F32, [2, 2])], [("y", F32, [2, 2])], {}, {})
    save("old_opset", [helper.make_node("Relu", ["x"], ["y"])], [("x", F32, [2])], [("y", F32, [2])],
         {}, {}, opset=9)
    save("dynamic_reshape", [helper.make_node("Reshape", ["x", "target"], ["y"], name="reshape")],
         [("x", F32, [2, 3]), ("target", I64, [2])], [("y", F32, [3, 2])], {}, {})
    save("resize_cubic", [helper.make_node("Resize", ["x", "", "s2"], ["y"], name="rs", mode="cubic")],
         [("x", F32, [1, 1, 2, 2])], [("y", F32, [1, 1, 4, 4])], {}, {},
         [init("s2", np.array([1, 1, 2, 2], np.float32))], opset=13)
    good = open(os.path.join(DATA, "mlp.onnx"), "rb").read()
    with open(os.path.join(DATA, "truncated.onnx"), "wb") as f:
        f.write(good[:len(good) // 2])
    for folder in ("unsupported_ops", "old_opset", "dynamic_reshape", "resize_cubic"):
        shutil.rmtree(os.path.join(DATA, folder))


def external_data():
    """An initializer stored beside the model (external_data.bin), and two whose location
    points outside the model's folder, which the importer must refuse to read."""
    w = np.arange(4, dtype=np.float32)
    for case, location in (("external_data", "external_data.bin"), ("external_outside", "../outside.bin"),
                           ("external_absolute", "/etc/hostname")):
        t = TensorProto(name="w", data_type=F32, dims=[4], data_location=TensorProto.EXTERNAL)
        t.external_data.add(key="location", value=location)
        graph = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"])], case,
                                  [helper.make_tensor_value_info("x", F32, [4])],
                                  [helper.make_tensor_value_info("y", F32, [4])], initializer=[t])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="gen_onnx_models")
        model.ir_version = 8
        onnx.save(model, os.path.join(DATA, case + ".onnx"))
    with open(os.path.join(DATA, "external_data.bin"), "wb") as f:
        f.write(w.tobytes())


def malformed_attributes():
    """Models an exporter would not write, which the importer must refuse with a message: a Conv
    with zero strides (auto_pad SAME divides by them), one with a scalar bias."""
    w = init("w", np.ones((2, 1, 3, 3), np.float32))
    for case, attrs, extra in (("conv_zero_stride", {"strides": [0, 0], "auto_pad": "SAME_UPPER"}, []),
                               ("conv_scalar_bias", {}, [init("b", np.float32(1))])):
        inputs = ["x", "w"] + [t.name for t in extra]
        graph = helper.make_graph([helper.make_node("Conv", inputs, ["y"], name="conv", **attrs)], case,
                                  [helper.make_tensor_value_info("x", F32, [1, 1, 5, 5])],
                                  [helper.make_tensor_value_info("y", F32, None)], initializer=[w] + extra)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="gen_onnx_models")
        model.ir_version = 8
        onnx.save(model, os.path.join(DATA, case + ".onnx"))


def main():
    if os.path.isdir(DATA):
        shutil.rmtree(DATA)
    os.makedirs(DATA)
    mlp()
    mlp("mlp_dynamic", batch=3, symbolic=True)
    cnn()
    transformer()
    binary_broadcast()
    unary()
    where_cast()
    reduce()
    manipulate()
    shape_arith()
    pool_softmax()
    activations()
    rounding_trig()
    logical_mod()
    pad_tile_gemm()
    conv_attrs()
    reduce_norm_quant()
    gather_scan()
    conv_transpose()
    conv_pool_1d()
    argmin_round_quant()
    topk()
    group_instance_norm()
    resize()
    scatter()
    einsum()
    range_dynamic()
    layout_ops()
    norm_pool_ops()
    activation_predicates()
    matmul_integer()
    external_data()
    malformed_attributes()
    errors()
    qlinear_matmul()
    qlinear_conv()
    dynamic_quantize()
    conv_pool_3d()
    quant_errors()
    nonzero()
    dynamic_slice()
    one_hot_const()
    qlinear_binary()
    maxpool_indices()


if __name__ == "__main__":
    main()
