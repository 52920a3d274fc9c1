// Tests of the runtime's NDArray: DLPack layout and alignment, sharing and copies, raw byte
// transfer, element access through float16/bfloat16 conversion (against known bit patterns),
// seeded random fills, tolerance comparison reports, and .npy round trips and rejections.

#include <QDir>
#include <QTest>
#include <cmath>
#include <cstring>
#include <string>

#include "runtime/half.h"
#include "runtime/ndarray.h"

using namespace wb::runtime;

namespace {

std::string NpyWithHeader(const std::string& dict, const std::string& data, int major = 1) {
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(major);
  out += '\0';
  std::string h = dict;
  size_t prefix = major == 1 ? 10 : 12;
  size_t total = (prefix + h.size() + 1 + 63) / 64 * 64;
  h.append(total - prefix - h.size() - 1, ' ');
  h += '\n';
  for (size_t i = 0; i < prefix - 8; ++i) out += static_cast<char>((h.size() >> (8 * i)) & 0xff);
  return out + h + data;
}

}  // namespace

class TstNDArray : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void halfKnownBits() {
    QCOMPARE(FloatToHalfBits(1.0f), uint16_t{0x3C00});
    QCOMPARE(FloatToHalfBits(-2.0f), uint16_t{0xC000});
    QCOMPARE(FloatToHalfBits(65504.0f), uint16_t{0x7BFF});
    QCOMPARE(FloatToHalfBits(65520.0f), uint16_t{0x7C00});  // tie at the top rounds to inf
    QCOMPARE(FloatToHalfBits(65519.0f), uint16_t{0x7BFF});
    QCOMPARE(FloatToHalfBits(std::ldexp(1.0f, -24)), uint16_t{0x0001});  // smallest subnormal
    QCOMPARE(FloatToHalfBits(std::ldexp(1.0f, -25)), uint16_t{0x0000});  // tie to even zero
    QCOMPARE(FloatToHalfBits(std::ldexp(3.0f, -26)), uint16_t{0x0001});
    QCOMPARE(FloatToHalfBits(0.1f), uint16_t{0x2E66});
    QCOMPARE(FloatToHalfBits(1.0f / 3.0f), uint16_t{0x3555});
    QCOMPARE(FloatToHalfBits(1.0f + std::ldexp(1.0f, -11)), uint16_t{0x3C00});      // tie: even
    QCOMPARE(FloatToHalfBits(1.0f + 3 * std::ldexp(1.0f, -11)), uint16_t{0x3C02});  // tie: even
    QCOMPARE(FloatToHalfBits(-0.0f), uint16_t{0x8000});
    QCOMPARE(FloatToHalfBits(INFINITY), uint16_t{0x7C00});
    QVERIFY((FloatToHalfBits(NAN) & 0x7C00) == 0x7C00 && (FloatToHalfBits(NAN) & 0x3FF) != 0);
    QCOMPARE(HalfBitsToFloat(0x3C00), 1.0f);
    QCOMPARE(HalfBitsToFloat(0xFBFF), -65504.0f);
    QCOMPARE(HalfBitsToFloat(0x0001), std::ldexp(1.0f, -24));
    QCOMPARE(HalfBitsToFloat(0x0400), std::ldexp(1.0f, -14));
    QVERIFY(std::isinf(HalfBitsToFloat(0x7C00)));
    QVERIFY(std::isnan(HalfBitsToFloat(0x7E00)));
    // Every half value survives the round trip.
    for (uint32_t b = 0; b < 0x10000; ++b) {
      if ((b & 0x7C00) == 0x7C00 && (b & 0x3FF)) continue;  // NaNs
      QCOMPARE(FloatToHalfBits(HalfBitsToFloat(static_cast<uint16_t>(b))), uint16_t(b));
    }
  }

  void bfloat16KnownBits() {
    QCOMPARE(FloatToBFloat16Bits(1.0f), uint16_t{0x3F80});
    QCOMPARE(FloatToBFloat16Bits(3.14159265f), uint16_t{0x4049});
    QCOMPARE(FloatToBFloat16Bits(-2.0f), uint16_t{0xC000});
    auto from_bits = [](uint32_t u) {
      float f;
      std::memcpy(&f, &u, 4);
      return f;
    };
    QCOMPARE(FloatToBFloat16Bits(from_bits(0x3F808000)), uint16_t{0x3F80});  // tie: even
    QCOMPARE(FloatToBFloat16Bits(from_bits(0x3F818000)), uint16_t{0x3F82});  // tie: even
    QCOMPARE(FloatToBFloat16Bits(from_bits(0x3F808001)), uint16_t{0x3F81});
    QCOMPARE(FloatToBFloat16Bits(from_bits(0x7F7FFFFF)), uint16_t{0x7F80});  // overflow: inf
    QCOMPARE(FloatToBFloat16Bits(from_bits(0x00010000)), uint16_t{0x0001});  // subnormal
    QVERIFY(std::isnan(BFloat16BitsToFloat(FloatToBFloat16Bits(NAN))));
    QCOMPARE(BFloat16BitsToFloat(0x4049), 3.140625f);
    QCOMPARE(BFloat16BitsToFloat(0xFF80), -INFINITY);
  }

  void float8KnownBits() {
    QCOMPARE(DoubleToFloat8E4M3FNBits(1.0), uint8_t{0x38});
    QCOMPARE(DoubleToFloat8E4M3FNBits(-2.0), uint8_t{0xC0});
    QCOMPARE(DoubleToFloat8E4M3FNBits(448.0), uint8_t{0x7E});
    QCOMPARE(DoubleToFloat8E4M3FNBits(464.0), uint8_t{0x7E});  // tie: even, stays finite
    QCOMPARE(DoubleToFloat8E4M3FNBits(480.0), uint8_t{0x7F});  // overflow: NaN
    QCOMPARE(DoubleToFloat8E4M3FNBits(INFINITY), uint8_t{0x7F});
    QCOMPARE(DoubleToFloat8E4M3FNBits(std::ldexp(1.0, -9)), uint8_t{0x01});
    QCOMPARE(DoubleToFloat8E4M3FNBits(1.0625), uint8_t{0x38});  // tie between 1 and 1.125: even
    QVERIFY(std::isnan(Float8E4M3FNBitsToDouble(0xFF)));
    QCOMPARE(Float8E4M3FNBitsToDouble(0x78), 256.0);  // the all-ones exponent holds normals
    QCOMPARE(DoubleToFloat8E5M2Bits(1.0), uint8_t{0x3C});
    QCOMPARE(DoubleToFloat8E5M2Bits(1.25), uint8_t{0x3D});
    QCOMPARE(DoubleToFloat8E5M2Bits(57344.0), uint8_t{0x7B});
    QCOMPARE(DoubleToFloat8E5M2Bits(65536.0), uint8_t{0x7C});  // overflow: infinity
    QCOMPARE(DoubleToFloat8E5M2Bits(std::ldexp(1.0, -16)), uint8_t{0x01});
    QVERIFY(std::isinf(Float8E5M2BitsToDouble(0xFC)));
    for (uint32_t b = 0; b < 256; ++b) {
      double x = Float8E4M3FNBitsToDouble(static_cast<uint8_t>(b));
      if (!std::isnan(x)) QCOMPARE(DoubleToFloat8E4M3FNBits(x), uint8_t(b));
      double y = Float8E5M2BitsToDouble(static_cast<uint8_t>(b));
      if (!std::isnan(y)) QCOMPARE(DoubleToFloat8E5M2Bits(y), uint8_t(b));
    }
  }

  void layoutAndSharing() {
    NDArray a = NDArray::Empty({3, 5}, Float(32));
    QVERIFY(a.defined());
    QCOMPARE(reinterpret_cast<uintptr_t>(a->data) % 64, uintptr_t{0});
    QCOMPARE(a->ndim, 2);
    QCOMPARE(a->shape[1], int64_t{5});
    QVERIFY(a->strides == nullptr);
    QCOMPARE(a->device.device_type, kDLCPU);
    QCOMPARE(a.NumElements(), int64_t{15});
    QCOMPARE(a.GetDouble(7), 0.0);  // zero-filled
    NDArray b = a;
    QCOMPARE(a.use_count(), 2L);
    b.SetDouble(4, 2.5);
    QCOMPARE(a.GetDouble(4), 2.5);
    NDArray c = a.Copy();
    c.SetDouble(4, -1);
    QCOMPARE(a.GetDouble(4), 2.5);
    QCOMPARE(c.GetDouble(4), -1.0);
  }

  void bytesInAndOut() {
    NDArray a = NDArray::Empty({4}, Int(32));
    int32_t in[4] = {1, -2, 3, 2147483647};
    QVERIFY(a.CopyFromBytes(in, sizeof(in)));
    QCOMPARE(a.GetInt(1), int64_t{-2});
    QCOMPARE(a.GetInt(3), int64_t{2147483647});
    a.SetInt(0, int64_t{1} << 32 | 5);  // wraps to the low 32 bits
    QCOMPARE(a.GetInt(0), int64_t{5});
    int32_t out[4] = {};
    QVERIFY(a.CopyToBytes(out, sizeof(out)));
    QCOMPARE(out[1], -2);
    std::string error;
    QVERIFY(!a.CopyFromBytes(in, 12, &error));
    QVERIFY2(error.find("12 bytes given, the array holds 16") != std::string::npos, error.c_str());
  }

  void stridedView() {
    NDArray base = NDArray::Empty({4, 4}, Float(32));
    for (int i = 0; i < 16; ++i) base.SetDouble(i, i);
    // Column 1 as a (4,) view: stride 4 elements, offset 1 element.
    NDArray col = NDArray::View(base, {4}, {4}, 4);
    QCOMPARE(col.GetDouble(2), 9.0);
    QVERIFY(!col.IsCompact());
    NDArray copy = col.Copy();
    QVERIFY(copy.IsCompact());
    QCOMPARE(copy.GetDouble(3), 13.0);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, NDArray::View(base, {5}, {4}, 4));
  }

  void halfElements() {
    NDArray h = NDArray::Empty({2}, Float(16));
    h.SetDouble(0, 0.1);
    QCOMPARE(*reinterpret_cast<uint16_t*>(h->data), uint16_t{0x2E66});
    QCOMPARE(h.GetDouble(0), double(HalfBitsToFloat(0x2E66)));
    NDArray bf = NDArray::Empty({1}, BFloat16());
    bf.SetDouble(0, 3.14159265);
    QCOMPARE(*reinterpret_cast<uint16_t*>(bf->data), uint16_t{0x4049});
  }

  void randomIsSeededAndInRange() {
    NDArray a = NDArray::Empty({1000}, Float(32));
    NDArray b = NDArray::Empty({1000}, Float(32));
    FillRandom(a, 42);
    FillRandom(b, 42);
    QVERIFY(Compare(a, b, {0, 0}).ok);
    FillRandom(b, 43);
    QVERIFY(!Compare(a, b, {0, 0}).ok);
    double lo = 1, hi = -1;
    for (int i = 0; i < 1000; ++i) {
      lo = std::min(lo, a.GetDouble(i));
      hi = std::max(hi, a.GetDouble(i));
    }
    QVERIFY(lo >= -1 && hi < 1 && hi - lo > 1.5);
    NDArray q = NDArray::Empty({1000}, Int(8));
    RandomFillOptions options;
    options.seed = 7;
    options.low = -128;
    options.high = 127;
    FillRandom(q, options);
    int64_t qmin = 0, qmax = 0;
    for (int i = 0; i < 1000; ++i) {
      qmin = std::min(qmin, q.GetInt(i));
      qmax = std::max(qmax, q.GetInt(i));
    }
    QVERIFY(qmin >= -128 && qmax <= 127 && qmin < -100 && qmax > 100);
  }

  void compareReports() {
    NDArray e = NDArray::Empty({2, 3}, Float(32));
    for (int i = 0; i < 6; ++i) e.SetDouble(i, i + 1);
    NDArray a = e.Copy();
    a.SetDouble(4, 5.5);  // [1, 1]
    CompareResult r = Compare(a, e);
    QVERIFY(!r.ok);
    QCOMPARE(r.mismatches, int64_t{1});
    QCOMPARE(r.first_mismatch, int64_t{4});
    QCOMPARE(r.max_abs_error, 0.5);
    QCOMPARE(r.max_rel_error, 0.1);
    QVERIFY2(r.message.find("first at [1, 1]: got 5.5, expected 5") != std::string::npos,
             r.message.c_str());
    QVERIFY(Compare(a, e, {0.2, 0}).ok);
    NDArray wrong = NDArray::Empty({3, 2}, Float(32));
    QVERIFY(Compare(wrong, e).message.find("shape (3, 2) differs from the expected (2, 3)") == 0);
    a.SetDouble(4, NAN);
    QVERIFY(!Compare(a, e).ok);
    e.SetDouble(4, NAN);
    QVERIFY(Compare(a, e).ok);
  }

  void npyRoundTrip() {
    for (DLDataType t : {Float(32), Float(16), Float(64), Int(8), Int(64), UInt(16), Bool()}) {
      NDArray a = NDArray::Empty({3, 2, 5}, t);
      FillRandom(a, 3);
      std::string bytes = SerializeNpy(a);
      QCOMPARE(bytes.size() % 64, (a.CompactBytes()) % 64);  // header padded to 64
      std::string error;
      NDArray b = ParseNpy(bytes, &error);
      QVERIFY2(b.defined(), error.c_str());
      QVERIFY(b.dtype() == t || (t.code == kDLBool && b.dtype().code == kDLBool));
      QCOMPARE(b.shape(), a.shape());
      QVERIFY2(Compare(b, a, {0, 0}).ok, DTypeToString(t).c_str());
    }
    // Through a file, with a 1-d and a 0-d shape.
    QString path = QDir::tempPath() + "/tst_ndarray_roundtrip.npy";
    NDArray v = NDArray::Empty({7}, Float(32));
    FillRandom(v, 1);
    std::string error;
    QVERIFY(SaveNpy(path.toStdString(), v, &error));
    NDArray w = LoadNpy(path.toStdString(), &error);
    QVERIFY2(w.defined(), error.c_str());
    QVERIFY(Compare(w, v, {0, 0}).ok);
    NDArray s = NDArray::Empty({}, Int(32));
    s.SetInt(0, 12);
    NDArray s2 = ParseNpy(SerializeNpy(s), &error);
    QVERIFY2(s2.defined() && s2.ndim() == 0 && s2.GetInt(0) == 12, error.c_str());
  }

  void npyVersion2AndNumpyWrittenHeader() {
    // Exactly the header NumPy writes for np.arange(3, dtype='<i2').
    std::string data("\x00\x00\x01\x00\x02\x00", 6);
    std::string error;
    NDArray a = ParseNpy(NpyWithHeader("{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }", data), &error);
    QVERIFY2(a.defined(), error.c_str());
    QCOMPARE(a.GetInt(2), int64_t{2});
    NDArray b = ParseNpy(NpyWithHeader("{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }", data, 2), &error);
    QVERIFY2(b.defined(), error.c_str());
    QCOMPARE(b.GetInt(1), int64_t{1});
  }

  void npyErrors_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("message");
    auto add = [](const char* name, std::string bytes, const char* message) {
      QTest::newRow(name) << QByteArray(bytes.data(), static_cast<int>(bytes.size())) << QString(message);
    };
    add("not npy", "PK\x03\x04 hello world", "not a .npy file");
    add("version", std::string("\x93NUMPY\x09\x00\x10\x00", 10) + std::string(16, ' '),
        "unsupported .npy format version 9.0");
    add("fortran", NpyWithHeader("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }", std::string(4, '\0')),
        "Fortran-order .npy data is not supported");
    add("big endian", NpyWithHeader("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", std::string(4, '\0')),
        "big-endian data ('>f4') is not supported");
    add("complex", NpyWithHeader("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", std::string(8, '\0')),
        "unsupported dtype '<c8'");
    add("structured", NpyWithHeader("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", std::string(4, '\0')),
        "structured dtypes are not supported");
    add("truncated data", NpyWithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", std::string(8, '\0')),
        "truncated .npy file: 16 data bytes expected, 8 present");
    add("missing key", NpyWithHeader("{'descr': '<f4', 'shape': (4,), }", std::string(16, '\0')),
        "needs 'descr', 'fortran_order' and 'shape'");
    add("bad shape", NpyWithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (x,), }", ""),
        "shape entries must be integers");
    add("header past end", std::string("\x93NUMPY\x01\x00\xff\x00{", 11), "the header runs past the end");
  }
  void npyErrors() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, message);
    std::string error;
    NDArray a = ParseNpy(std::string_view(bytes.constData(), bytes.size()), &error);
    QVERIFY(!a.defined());
    QVERIFY2(error.find(message.toStdString()) != std::string::npos, error.c_str());
  }

  void npyMissingFile() {
    std::string error;
    QVERIFY(!LoadNpy("/nonexistent/x.npy", &error).defined());
    QCOMPARE(QString::fromStdString(error), QString("cannot open '/nonexistent/x.npy'"));
  }
};

QTEST_APPLESS_MAIN(TstNDArray)
#include "tst_ndarray.moc"
