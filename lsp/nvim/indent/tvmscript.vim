" TVMScript is Python: Python's indentation.
runtime! indent/python.vim
