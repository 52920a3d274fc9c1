// Values as text for the programs that print at run time (R.print and R.assert_op, TVM's
// relax.run.print and relax.run.assert_op, written in Python there): an array's elements as NumPy
// writes them, and Python's str.format. Shared by the Relax interpreter and the VM.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/ndarray.h"

namespace wb::runtime {

// The elements as nested lists, as NumPy writes them without its padding ([[1, 2.5], [3, 4]];
// bools True/False), summarized past 1000 elements as NumPy does (three items at each end of an
// axis, "..." between).
std::string ElementsText(const NDArray& array);

// Python's str.format over arguments already rendered as text: "{}" takes the next argument,
// "{0}" the first; "{{" and "}}" are braces. An empty format joins the arguments with spaces, as
// Python's print does. nullopt with *error on a malformed format or a missing argument (format
// specs such as "{:.2f}" are not supported).
std::optional<std::string> PythonFormat(const std::string& format, const std::vector<std::string>& args,
                                        std::string* error);

}  // namespace wb::runtime
