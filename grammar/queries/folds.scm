; TVMScript folds, for the tree-sitter-python 0.23.6 grammar: a fold spans the whole
; statement (its header line stays visible when folded).

[
  (function_definition)
  (class_definition)
  (with_statement)
  (for_statement)
  (if_statement)
  (elif_clause)
  (else_clause)
  (while_statement)
  (try_statement)
  (except_clause)
  (finally_clause)
  (match_statement)
  (case_clause)
] @fold

; Multi-line literals and argument lists (long T.Buffer shapes, R.call_tir arguments).
[
  (argument_list)
  (parameters)
  (list)
  (tuple)
  (dictionary)
  (string)
] @fold
