// The TensorIR kernel both benchmarks repeat to build large modules: one PrimFunc of ~30
// lines (a matmul with an epilogue, a vectorized loop, an if/else), varied by index, so the
// TVMScript and LSP benchmarks measure the same kind of module.
#pragma once

#include <string>

inline std::string GeneratedKernel(int k) {
  std::string n = std::to_string(16 + k % 7 * 16);
  std::string name = "kernel_" + std::to_string(k);
  std::string s;
  s += "    @T.prim_func\n";
  s += "    def " + name + "(A: T.Buffer((" + n + ", " + n + "), \"float32\"), B: T.Buffer((" + n +
       ", " + n + "), \"float32\"), D: T.Buffer((" + n + ", " + n + "), \"float32\")):\n";
  s += "        T.func_attr({\"tir.noalias\": True})\n";
  s += "        # with T.sblock(\"root\"):\n";
  s += "        C = T.sblock_alloc_buffer((" + n + ", " + n + "))\n";
  s += "        for i, j, k in T.grid(" + n + ", " + n + ", " + n + "):\n";
  s += "            with T.sblock(\"C\"):\n";
  s += "                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n";
  s += "                T.reads(A[vi, vk], B[vk, vj])\n";
  s += "                T.writes(C[vi, vj])\n";
  s += "                with T.init():\n";
  s += "                    C[vi, vj] = T.float32(0.0)\n";
  s += "                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n";
  s += "        for i, j in T.grid(" + n + ", " + n + "):\n";
  s += "            with T.sblock(\"D\"):\n";
  s += "                vi, vj = T.axis.remap(\"SS\", [i, j])\n";
  s += "                T.reads(C[vi, vj])\n";
  s += "                T.writes(D[vi, vj])\n";
  s += "                D[vi, vj] = T.max(C[vi, vj] * T.float32(0.5) + T.float32(1.0), T.float32(0.0))\n";
  s += "        for i_0 in range(" + n + "):\n";
  s += "            for i_1 in T.vectorized(4):\n";
  s += "                with T.sblock(\"E\"):\n";
  s += "                    vi = T.axis.spatial(" + n + ", i_0)\n";
  s += "                    vj = T.axis.spatial(4, i_1)\n";
  s += "                    T.reads(D[vi, vj])\n";
  s += "                    T.writes(D[vi, vj])\n";
  s += "                    if vi % 2 == 0:\n";
  s += "                        D[vi, vj] = T.exp(D[vi, vj]) - T.float32(1.0)\n";
  s += "                    else:\n";
  s += "                        D[vi, vj] = T.sqrt(T.fabs(D[vi, vj]))\n";
  s += "\n";
  return s;
}
