// The subscripts of an einsum ("ij,jk->ik"): one label string per operand and the output's, the
// implicit output (labels used once, in alphabetical order) made explicit. Shared by relax.einsum's
// type inference and topi::einsum.
#pragma once

#include <string>
#include <vector>

namespace wb::support {

struct EinsumSubscripts {
  std::vector<std::string> inputs;  // one a operand: a label per axis
  std::string output;
};

// Parses `subscripts` for `operands` operands; std::invalid_argument says what is wrong (an
// ellipsis is not supported).
EinsumSubscripts ParseEinsumSubscripts(const std::string& subscripts, size_t operands);

}  // namespace wb::support
