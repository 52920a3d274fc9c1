" TVMScript is Python: Python's filetype settings (and the user's own for Python).
runtime! ftplugin/python.vim ftplugin/python_*.vim ftplugin/python/*.vim
