; TVMScript highlights, for the tree-sitter-python 0.23.6 grammar.
;
; Precedence: later patterns win over earlier ones for the same node (as in Neovim), so
; the general Python rules come first and the TVMScript-specific ones last.
; Captures whose name starts with "_" are helpers for predicates: do not paint them.
; Predicates (#match?, #eq?) are not evaluated by the tree-sitter C API: the consumer
; must evaluate them (regexes are plain ECMAScript/PCRE-compatible).

; ---------------------------------------------------------------- Python basics

(identifier) @variable

((identifier) @constant
  (#match? @constant "^[A-Z][A-Z_0-9]*$"))

(function_definition
  name: (identifier) @function)

(class_definition
  name: (identifier) @type)

(parameters (identifier) @variable.parameter)
(typed_parameter (identifier) @variable.parameter)
(default_parameter name: (identifier) @variable.parameter)
(typed_default_parameter name: (identifier) @variable.parameter)
(lambda_parameters (identifier) @variable.parameter)

(keyword_argument
  name: (identifier) @variable.parameter)

(call
  function: (identifier) @function.call)

(call
  function: (attribute
    attribute: (identifier) @function.method.call))

((call
  function: (identifier) @function.builtin)
  (#match? @function.builtin
    "^(abs|all|any|bool|dict|enumerate|float|getattr|int|isinstance|len|list|max|min|print|range|reversed|round|slice|sorted|str|sum|tuple|type|zip)$"))

(attribute
  attribute: (identifier) @property)

(type (identifier) @type)

(import_statement
  name: (dotted_name (identifier) @module))
(import_from_statement
  module_name: (dotted_name (identifier) @module))
(aliased_import
  name: (dotted_name (identifier) @module))

[
  (none)
  (true)
  (false)
] @constant.builtin

(ellipsis) @constant.builtin

(integer) @number
(float) @number.float

(comment) @comment

(string) @string
(escape_sequence) @string.escape

[
  "and"
  "in"
  "is"
  "not"
  "or"
  "is not"
  "not in"
] @keyword.operator

[
  "as"
  "assert"
  "async"
  "await"
  "break"
  "class"
  "continue"
  "def"
  "del"
  "elif"
  "else"
  "except"
  "finally"
  "for"
  "from"
  "global"
  "if"
  "import"
  "lambda"
  "nonlocal"
  "pass"
  "raise"
  "return"
  "try"
  "while"
  "with"
  "yield"
] @keyword

[
  "+" "-" "*" "**" "/" "//" "%" "@" "&" "|" "^" "~" "<<" ">>"
  "<" "<=" ">" ">=" "==" "!="
  "=" ":=" "->"
  "+=" "-=" "*=" "/=" "//=" "%=" "**=" "@=" "&=" "|=" "^=" "<<=" ">>="
] @operator

["(" ")" "[" "]" "{" "}"] @punctuation.bracket
["," "." ":" ";"] @punctuation.delimiter

; ---------------------------------------------------------------- TVMScript

; The dialect namespaces: T (TensorIR), R (Relax), I (IRModule).
(attribute
  object: (identifier) @namespace
  (#match? @namespace "^(T|R|I)$"))

; `from tvm.script import tirx as T`
(aliased_import
  alias: (identifier) @namespace
  (#match? @namespace "^(T|R|I)$"))

; Builtins called through a namespace: T.grid, T.sblock, T.axis.remap, R.call_tir ...
(call
  function: (attribute
    object: (identifier) @_ns
    attribute: (identifier) @function.builtin)
  (#match? @_ns "^(T|R|I)$"))

; Decorators: @I.ir_module, @T.prim_func, @R.function, @T.prim_func(private=True)
(decorator "@" @attribute)
(decorator (identifier) @attribute)
(decorator
  (attribute
    attribute: (identifier) @attribute))
(decorator
  (call
    function: (identifier) @attribute))
(decorator
  (call
    function: (attribute
      attribute: (identifier) @attribute)))

; Buffer accesses: A[vi, vj]
(subscript
  value: (identifier) @variable.buffer)

; Data types as strings: "float32", "int64", "bfloat16", "float16x4", "float8_e4m3fn", "bool"
((string) @type.dtype
  (#match? @type.dtype
    "^[\"'](bool|handle|void|u?int(1|4|8|16|32|64)|float(16|32|64)|bfloat16|float8_e[45]m[0-9]+(fn|fnuz|b11fnuz)?|float[46]_e[0-9]m[0-9](fn)?)(x[0-9]+|xvscalex[0-9]+)?[\"']$"))

; Data types as namespace members: T.float32, T.int64(0), R.Tensor(..., "float32")
(attribute
  object: (identifier) @_ns
  attribute: (identifier) @type.dtype
  (#match? @_ns "^(T|R)$")
  (#match? @type.dtype
    "^(bool|handle|void|u?int(1|4|8|16|32|64)|float(16|32|64)|bfloat16|float8_e[45]m[0-9]+(fn|fnuz|b11fnuz)?|float[46]_e[0-9]m[0-9](fn)?)(x[0-9]+)?$"))

; Type constructors: T.Buffer, R.Tensor, R.Tuple, R.Shape, R.Object, R.Prim
(attribute
  object: (identifier) @_ns
  attribute: (identifier) @type
  (#match? @_ns "^(T|R|I)$")
  (#match? @type "^[A-Z]"))

; Block names: with T.sblock("C"):  (T.block in older TVM text)
(call
  function: (attribute
    object: (identifier) @_ns
    attribute: (identifier) @_fn)
  arguments: (argument_list
    .
    (string) @label)
  (#eq? @_ns "T")
  (#match? @_fn "^(sblock|block)$"))
