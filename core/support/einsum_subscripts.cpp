#include "support/einsum_subscripts.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <stdexcept>

namespace wb::support {

EinsumSubscripts ParseEinsumSubscripts(const std::string& subscripts, size_t operands) {
  std::string s;
  for (char c : subscripts) {
    if (c != ' ') s.push_back(c);
  }
  if (s.find("...") != std::string::npos) throw std::invalid_argument("an ellipsis (...) is not supported");
  size_t arrow = s.find("->");
  std::string lhs = arrow == std::string::npos ? s : s.substr(0, arrow);
  EinsumSubscripts out;
  size_t start = 0;
  while (true) {
    size_t comma = lhs.find(',', start);
    out.inputs.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (out.inputs.size() != operands) {
    throw std::invalid_argument("the subscripts name " + std::to_string(out.inputs.size()) + " operands, got " +
                                std::to_string(operands));
  }
  std::map<char, int> uses;
  for (const std::string& in : out.inputs) {
    for (char c : in) {
      if (!std::isalpha(static_cast<unsigned char>(c))) {
        throw std::invalid_argument(std::string("'") + c + "' is no subscript label (letters only)");
      }
      ++uses[c];
    }
  }
  if (arrow == std::string::npos) {
    for (const auto& [c, n] : uses) {
      if (n == 1) out.output.push_back(c);
    }
    return out;
  }
  out.output = s.substr(arrow + 2);
  for (size_t i = 0; i < out.output.size(); ++i) {
    char c = out.output[i];
    if (!uses.count(c)) throw std::invalid_argument(std::string("the output label '") + c + "' is in no operand");
    if (out.output.find(c, i + 1) != std::string::npos) {
      throw std::invalid_argument(std::string("the output label '") + c + "' repeats");
    }
  }
  return out;
}

}  // namespace wb::support
