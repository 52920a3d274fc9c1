// The BlockBuilder and the well-formedness checker: types inferred as bindings are emitted,
// dataflow blocks, match_cast defining symbolic vars, symbolic dims carried across bindings and
// through calls between functions, errors with spans, and structural equality / JSON of the
// functions built.

#include <QTest>
#include <memory>
#include <string>

#include "ir/json.h"
#include "ir/structural_equal.h"
#include "ir/structural_hash.h"
#include "relax/block_builder.h"
#include "relax/op/registry.h"
#include "relax/well_formed.h"

using namespace wb;
using namespace wb::relax;
using ir::DataType;

namespace {

const DataType kF32 = DataType::Float(32);
const DataType kI64 = DataType::Int(64);

PrimExpr I(int64_t v) { return tir::MakeIntImm(kI64, v); }
TensorType T(std::vector<PrimExpr> dims, DataType dtype = kF32) {
  return MakeTensorType(std::move(dims), dtype);
}
QString Str(const Type& t) { return QString::fromStdString(TypeToString(t)); }

// A source file whose spans the diagnostics can point into.
struct Source {
  std::shared_ptr<SourceFile> file =
      std::make_shared<SourceFile>("model.py", "lv = R.add(x, y)\nR.memory.kill_tensor(t)\n");
  Span At(uint32_t begin, uint32_t end) const { return Span(file, begin, end); }
};

// def main(x: R.Tensor((n, 4), "float32")):
//   with R.dataflow():
//     lv = R.add(x, x); lv1 = R.nn.relu(lv); gv = R.sum(lv1, axis=[1]) (output)
//   return gv
Function BuildMain(const std::string& var_name, const std::string& dim_name) {
  tir::Var n = tir::MakeVar(dim_name, kI64);
  Var x = MakeVar(var_name, T({n, I(4)}));
  BlockBuilder bb;
  bb.BeginFunction("main", {x});
  bb.BeginDataflowBlock();
  Var lv = bb.Emit(MakeOpCall("relax.add", {x, x}));
  Var lv1 = bb.Emit(MakeOpCall("relax.nn.relu", {lv}));
  Var gv = bb.EmitOutput(MakeOpCall("relax.sum", {lv1}, {{"axis", IntArray({1})}}), "gv");
  bb.EndBlock();
  return bb.EndFunction(gv);
}

}  // namespace

class TestRelaxBuilder : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void emitsTypedBindingsInDataflowBlocks() {
    Function f = BuildMain("x", "n");
    auto* seq = f->body.as<SeqExprNode>();
    QVERIFY(seq);
    QCOMPARE(seq->blocks.size(), size_t(1));
    auto* block = seq->blocks[0].as<DataflowBlockNode>();
    QVERIFY(block);
    QCOMPARE(block->bindings.size(), size_t(3));
    QVERIFY(ir::IsInstance<DataflowVarNode>(block->bindings[0]->var.get()));
    QVERIFY(!ir::IsInstance<DataflowVarNode>(block->bindings[2]->var.get()));
    QCOMPARE(Str(block->bindings[1]->var->struct_info), QString("R.Tensor((n, 4), \"float32\")"));
    QCOMPARE(Str(f->ret_struct_info), QString("R.Tensor((n,), \"float32\")"));
    QCOMPARE(Str(f->struct_info),
             QString("R.Callable((R.Tensor((n, 4), \"float32\"),), R.Tensor((n,), \"float32\"), "
                     "True)"));
    // The same `n` all the way through: the tirx.Var object of the parameter.
    const PrimExpr& n_param = (*f->params[0]->struct_info.as<TensorTypeNode>()->shape)[0];
    const PrimExpr& n_out = (*f->ret_struct_info.as<TensorTypeNode>()->shape)[0];
    QVERIFY(n_param.same_as(n_out));
    QVERIFY(VerifyWellFormed(f).empty());
  }

  void symbolicVarsResolveByName() {
    tir::Var n = tir::MakeVar("n", kI64);
    Var x = MakeVar("x", T({n, I(4)}));
    Var y = MakeVar("y", MakeTensorType(kF32, 1));
    BlockBuilder bb;
    bb.BeginFunction("f", {x, y});
    QVERIFY(bb.LookupSymbolicVar("n").same_as(n));
    QVERIFY(!bb.LookupSymbolicVar("m").defined());
    // match_cast introduces m; a later mention of `m` by name is the same var.
    tir::Var m = tir::MakeVar("m", kI64);
    Var y1 = bb.EmitMatchCast(y, T({m}), "y1");
    QVERIFY(bb.LookupSymbolicVar("m").same_as(m));
    Var z = bb.Emit(
        MakeOpCall("relax.reshape", {x, MakeShapeExpr({bb.LookupSymbolicVar("n"), I(2), I(2)})}));
    QCOMPARE(Str(z->struct_info), QString("R.Tensor((n, 2, 2), \"float32\")"));
    Var w = bb.Emit(MakeOpCall("relax.add", {y1, y1}));
    QCOMPARE(Str(w->struct_info), QString("R.Tensor((m,), \"float32\")"));
    Function f = bb.EndFunction(w);
    // m is bound inside the function: its result type forgets the shape, keeps the rank.
    QCOMPARE(Str(f->ret_struct_info), QString("R.Tensor(\"float32\", ndim=1)"));
    QVERIFY(bb.diagnostics().empty());
    QVERIFY(VerifyWellFormed(f).empty());
  }

  void symbolicDimsFlowThroughCalls() {
    BlockBuilder bb;
    tir::Var n = tir::MakeVar("n", kI64);
    Var x = MakeVar("x", T({n, I(4)}));
    bb.BeginFunction("flatten", {x});
    Var r = bb.Emit(MakeOpCall("relax.reshape", {x, MakeShapeExpr({I(-1)})}));
    bb.EndFunction(r);

    tir::Var k = tir::MakeVar("k", kI64);
    Var y = MakeVar("y", T({k, I(4)}));
    bb.BeginFunction("main", {y});
    ir::GlobalVar callee = bb.GetModule()->GetGlobalVar("flatten");
    QVERIFY(callee.defined());
    Var out = bb.Emit(MakeCall(callee, {y}));
    QCOMPARE(Str(out->struct_info), QString("R.Tensor((k * 4,), \"float32\")"));
    Var bad = bb.Emit(MakeCall(callee, {MakeShapeExpr({I(1)})}));
    bb.EndFunction(out);
    QVERIFY(!bad->struct_info.defined());
    QCOMPARE(bb.diagnostics().size(), size_t(1));
    QCOMPARE(QString::fromStdString(bb.diagnostics()[0].message),
             QString("argument 0 has type R.Shape([1]) but the callee expects "
                     "R.Tensor((n, 4), \"float32\")"));
    QCOMPARE(bb.GetModule()->size(), size_t(2));
    QVERIFY(VerifyWellFormed(bb.GetModule()).empty());
  }

  void nestedFunctionKeepsTheOuterBlocks() {
    Var x = MakeVar("x", T({I(4)}));
    BlockBuilder bb;
    bb.BeginFunction("outer", {x});
    Var a = bb.Emit(MakeOpCall("relax.exp", {x}), "a");
    Var y = MakeVar("y", T({I(4)}));
    bb.BeginFunction("inner", {y});
    Var b = bb.Emit(MakeOpCall("relax.nn.relu", {y}), "b");
    Function inner = bb.EndFunction(b);
    Var c = bb.Emit(MakeOpCall("relax.add", {a, a}), "c");
    Function outer = bb.EndFunction(c);
    QCOMPARE(inner->body.as<SeqExprNode>()->blocks.size(), size_t(1));
    QCOMPARE(inner->body.as<SeqExprNode>()->blocks[0]->bindings.size(), size_t(1));
    // a and c are in the outer function's one block, which the inner function did not close.
    auto* seq = outer->body.as<SeqExprNode>();
    QCOMPARE(seq->blocks.size(), size_t(1));
    QCOMPARE(seq->blocks[0]->bindings.size(), size_t(2));
    QVERIFY(VerifyWellFormed(bb.GetModule()).empty());
  }

  void tuplesAndIf() {
    tir::Var n = tir::MakeVar("n", kI64);
    Var x = MakeVar("x", T({n}));
    Var c = MakeVar("c", ir::MakePrimType(DataType::Bool()));
    BlockBuilder bb;
    bb.BeginFunction("f", {x, c});
    Var t = bb.Emit(MakeTuple({x, MakeShapeExpr({n})}));
    QCOMPARE(Str(t->struct_info), QString("R.Tuple(R.Tensor((n,), \"float32\"), R.Shape([n]))"));
    Var item = bb.Emit(MakeTupleGetItem(t, 1));
    QCOMPARE(Str(item->struct_info), QString("R.Shape([n])"));
    Var v = bb.Emit(MakeIf(c, x, MakeOpCall("relax.reshape", {x, MakeShapeExpr({n, I(1)})})));
    // The branches differ in rank: the join keeps the dtype only.
    QCOMPARE(Str(v->struct_info), QString("R.Tensor(\"float32\")"));
    Var bad = bb.Emit(MakeTupleGetItem(t, 2));
    bb.EndFunction(v);
    QVERIFY(!bad->struct_info.defined());
    QCOMPARE(QString::fromStdString(bb.diagnostics()[0].message),
             QString("tuple index 2 is out of range for a tuple of 2 fields"));
  }

  void errorsCarrySpansAndDoNotCascade() {
    Source src;
    Var x = MakeVar("x", T({I(2), I(3)}));
    Var y = MakeVar("y", T({I(4)}));
    BlockBuilder bb;
    bb.BeginFunction("f", {x, y});
    Var lv = bb.Emit(MakeOpCall("relax.add", {x, y}, {}, {}, src.At(5, 16)), "lv");
    // Uses of the failed binding are not reported again.
    Var lv1 = bb.Emit(MakeOpCall("relax.exp", {lv}));
    // An annotation the value does not fit.
    Var annotated = MakeVar("z", T({I(9)}));
    bb.EmitBinding(annotated, MakeOpCall("relax.exp", {x}), src.At(0, 2));
    // A cast that can never succeed.
    bb.EmitMatchCast(x, T({I(2)}, kI64), "w", src.At(0, 2));
    bb.EndFunction(lv1);
    const DiagnosticList& d = bb.diagnostics();
    QCOMPARE(d.size(), size_t(3));
    QCOMPARE(QString::fromStdString(d[0].message),
             QString("add: dimension 3 of the first operand (axis 1) and dimension 4 of the "
                     "second operand (axis 0) cannot be broadcast"));
    QCOMPARE(QString::fromStdString(d[0].span.ToString()), QString("model.py:1:6"));
    QCOMPARE(QString::fromStdString(std::string(d[0].span.text())), QString("R.add(x, y)"));
    QCOMPARE(QString::fromStdString(d[1].message),
             QString("the value of z has type R.Tensor((2, 3), \"float32\"), which does not fit "
                     "its annotation R.Tensor((9,), \"float32\") (use R.match_cast to assert it)"));
    QCOMPARE(QString::fromStdString(d[2].message),
             QString("match_cast of a value of type R.Tensor((2, 3), \"float32\") to "
                     "R.Tensor((2,), \"int64\") can never succeed: the dtypes differ"));
  }

  void wellFormedImpureCallInDataflow() {
    Source src;
    Var x = MakeVar("x", T({I(4)}));
    // Built by hand: the checker sees IR from any source, not only from the BlockBuilder.
    Call kill = MakeOpCall("relax.memory.kill_tensor", {x}, {}, {}, src.At(17, 40));
    DataflowVar k = MakeDataflowVar("k", ir::MakeTupleType({}));
    Var out = MakeVar("out", T({I(4)}));
    DataflowBlock block =
        MakeDataflowBlock({MakeVarBinding(k, kill, src.At(17, 40)), MakeVarBinding(out, x)});
    Function f = MakeFunction({x}, MakeSeqExpr({block}, out), {}, /*is_pure=*/false);
    DiagnosticList d = VerifyWellFormed(f);
    QCOMPARE(d.size(), size_t(1));
    QCOMPARE(QString::fromStdString(d[0].message),
             QString("impure call to relax.memory.kill_tensor inside a dataflow block"));
    QCOMPARE(QString::fromStdString(d[0].span.ToString()), QString("model.py:2:1"));

    // Outside the dataflow block, in a function annotated pure.
    Function g = MakeFunction(
        {x},
        MakeSeqExpr({MakeBindingBlock({MakeVarBinding(MakeVar("k", ir::MakeTupleType({})), kill)})},
                    x));
    d = VerifyWellFormed(g);
    QCOMPARE(d.size(), size_t(1));
    QCOMPARE(QString::fromStdString(d[0].message),
             QString("impure call to relax.memory.kill_tensor inside a function annotated pure"));
    // An impure function may do it.
    Function h = MakeFunction({x}, g->body, {}, /*is_pure=*/false);
    QVERIFY(VerifyWellFormed(h).empty());
  }

  void wellFormedScopes() {
    Source src;
    tir::Var n = tir::MakeVar("n", kI64);
    tir::Var m = tir::MakeVar("m", kI64);
    Var x = MakeVar("x", T({n}));
    DataflowVar lv = MakeDataflowVar("lv", T({n}));
    Var y = MakeVar("y", T({n}));
    Var ghost = MakeVar("ghost", T({n}));
    DataflowBlock df = MakeDataflowBlock({MakeVarBinding(lv, MakeOpCall("relax.exp", {x}))});
    BindingBlock after = MakeBindingBlock({
        MakeVarBinding(y, MakeOpCall("relax.add", {lv, ghost}), src.At(0, 16)),
        MakeVarBinding(MakeVar("s", MakeShapeType({m})), MakeShapeExpr({m}), src.At(17, 40)),
    });
    Function f = MakeFunction({x}, MakeSeqExpr({df, after}, y));
    DiagnosticList d = VerifyWellFormed(f);
    QCOMPARE(d.size(), size_t(3));
    QCOMPARE(QString::fromStdString(d[0].message),
             QString("dataflow var lv is used outside the dataflow block that binds it"));
    QCOMPARE(QString::fromStdString(d[0].span.ToString()), QString("model.py:1:1"));
    QCOMPARE(QString::fromStdString(d[1].message),
             QString("variable ghost is used but not defined"));
    QCOMPARE(QString::fromStdString(d[2].message),
             QString("symbolic var m in a shape is not defined by a parameter or an earlier "
                     "match_cast"));
    QCOMPARE(QString::fromStdString(d[2].span.ToString()), QString("model.py:2:1"));
  }

  void structuralEqualityOfBuiltFunctions() {
    Function a = BuildMain("x", "n");
    Function b = BuildMain("data", "batch");  // renamed vars and dims: the same program
    QVERIFY(ir::StructuralEqual(a, b));
    QCOMPARE(ir::StructuralHash(a), ir::StructuralHash(b));
    // A different constant dim in a parameter is a different program.
    tir::Var n = tir::MakeVar("n", kI64);
    Var x = MakeVar("x", T({n, I(8)}));
    BlockBuilder bb;
    bb.BeginFunction("main", {x});
    bb.BeginDataflowBlock();
    Var lv = bb.Emit(MakeOpCall("relax.add", {x, x}));
    Var lv1 = bb.Emit(MakeOpCall("relax.nn.relu", {lv}));
    Var gv = bb.EmitOutput(MakeOpCall("relax.sum", {lv1}, {{"axis", IntArray({1})}}), "gv");
    bb.EndBlock();
    Function c = bb.EndFunction(gv);
    auto mismatch = ir::FindFirstMismatch(a, c);
    QVERIFY(mismatch.has_value());
    QCOMPARE(QString::fromStdString(mismatch->lhs_path),
             QString("root.params[0].struct_info.shape[1].value"));
  }

  void jsonRoundTripOfBuiltFunction() {
    Function f = BuildMain("x", "n");
    std::string error;
    ObjectRef loaded = ir::LoadJSON(ir::SaveJSON(f), &error);
    QVERIFY2(loaded.defined(), error.c_str());
    auto m = ir::FindFirstMismatch(f, loaded);
    QVERIFY2(!m.has_value(), m ? (m->lhs_path + ": " + m->reason).c_str() : "");
    // The loaded op is the registered one, by name.
    auto* seq = Downcast<FunctionNode>(loaded)->body.as<SeqExprNode>();
    auto* call = seq->blocks[0]->bindings[0].as<VarBindingNode>()->value.as<CallNode>();
    QCOMPARE(InfoOf(Downcast<ir::OpNode>(call->op)), FindOp("relax.add"));
    QCOMPARE(ir::SaveJSON(loaded), ir::SaveJSON(f));
  }

  void constantsOwnTheirBytes() {
    std::string bytes(8, '\0');
    bytes[3] = '\x3f';
    Constant c = MakeConstant(kF32, {2}, bytes);
    QCOMPARE(Str(c->struct_info), QString("R.Tensor((2,), \"float32\")"));
    ObjectRef loaded = ir::LoadJSON(ir::SaveJSON(c));
    QCOMPARE(Downcast<ConstantNode>(loaded)->data, bytes);
    QVERIFY(ir::StructuralEqual(c, loaded));
    std::string other = bytes;
    other[7] = '\x01';
    QVERIFY(!ir::StructuralEqual(c, MakeConstant(kF32, {2}, other)));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, MakeConstant(kF32, {3}, bytes));
  }
};

QTEST_APPLESS_MAIN(TestRelaxBuilder)
#include "tst_relax_builder.moc"
