a
/* never closed
b
