// ARGS: -D3X=1
