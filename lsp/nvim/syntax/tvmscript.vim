" TVMScript is Python: Python's syntax, and on top the T., R. and I. namespaces with their
" members (classes such as T.Buffer capitalized) and the strings that are dtypes, the ones
" DataType::Parse reads (core/ir/dtype.cpp).
if exists('b:current_syntax')
  finish
endif
runtime! syntax/python.vim
unlet! b:current_syntax

syn match tvmscriptNamespace /\<[TRI]\ze\s*\.\s*\h/ nextgroup=tvmscriptDot
syn match tvmscriptDot /\s*\.\s*/ contained nextgroup=tvmscriptClass,tvmscriptMember
syn match tvmscriptClass /\u\w*/ contained
syn match tvmscriptMember /[a-z_]\w*/ contained
" Defined after Python's strings, so that at the same quote this match wins.
syn match tvmscriptDtype /\v(["'])%(%(u?int\d*|float%(16|32|64)?|bfloat\d*|float8_e%(3m4|4m3%(b11fnuz|fnuz|fn)?|5m2%(fnuz)?|8m0fnu)|float6_e%(2m3|3m2)fn|float4_e2m1fn|bool)%(x%(vscalex)?\d+)?|handle|void)\1/

hi def link tvmscriptNamespace Include
hi def link tvmscriptClass Type
hi def link tvmscriptMember Function
hi def link tvmscriptDtype Type

let b:current_syntax = 'tvmscript'
