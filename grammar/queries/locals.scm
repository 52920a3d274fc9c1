; TVMScript scopes, definitions and references, for the tree-sitter-python 0.23.6
; grammar. Capture names follow tree-sitter's convention: @local.scope,
; @local.definition, @local.reference.

; ---------------------------------------------------------------- scopes

(module) @local.scope
(function_definition) @local.scope
(class_definition) @local.scope
(lambda) @local.scope

; `with T.sblock("C"):` introduces the block iterators (vi, vj = T.axis.remap(...)).
(with_statement
  body: (block) @local.scope)

; `for i, j in T.grid(...)`: the loop variables live in the loop.
(for_statement) @local.scope

[
  (list_comprehension)
  (dictionary_comprehension)
  (set_comprehension)
  (generator_expression)
] @local.scope

; ---------------------------------------------------------------- definitions

; Function and class names belong to the enclosing scope.
((function_definition
  name: (identifier) @local.definition.function)
  (#set! definition.function.scope "parent"))
((class_definition
  name: (identifier) @local.definition.type)
  (#set! definition.type.scope "parent"))

; Parameters: def main(A: T.Buffer((128, 128), "float32"), n: T.int32 = 4)
(parameters (identifier) @local.definition.parameter)
(parameters (typed_parameter (identifier) @local.definition.parameter))
(parameters (default_parameter name: (identifier) @local.definition.parameter))
(parameters (typed_default_parameter name: (identifier) @local.definition.parameter))
(parameters (list_splat_pattern (identifier) @local.definition.parameter))
(parameters (dictionary_splat_pattern (identifier) @local.definition.parameter))
(lambda_parameters (identifier) @local.definition.parameter)

; Assignments: C = T.alloc_buffer(...); vi, vj = T.axis.remap("SS", [i, j])
(assignment left: (identifier) @local.definition.var)
(assignment left: (pattern_list (identifier) @local.definition.var))
(assignment left: (tuple_pattern (identifier) @local.definition.var))
(assignment left: (list_pattern (identifier) @local.definition.var))
(augmented_assignment left: (identifier) @local.definition.var)

; Loop targets: for i, j, k in T.grid(128, 128, 128)
(for_statement left: (identifier) @local.definition.var)
(for_statement left: (pattern_list (identifier) @local.definition.var))
(for_statement left: (tuple_pattern (identifier) @local.definition.var))
(for_in_clause left: (identifier) @local.definition.var)
(for_in_clause left: (pattern_list (identifier) @local.definition.var))

; with ... as x
(as_pattern
  alias: (as_pattern_target (identifier) @local.definition.var))

; Imports: from tvm.script import tirx as T
(aliased_import alias: (identifier) @local.definition.import)
(import_from_statement name: (dotted_name . (identifier) @local.definition.import))
(import_statement name: (dotted_name . (identifier) @local.definition.import))

; ---------------------------------------------------------------- references

(identifier) @local.reference
