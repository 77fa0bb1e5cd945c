kernel x
