a
#line 100
b
#line 7 "renamed.metal"
c
  d
#line 20
e
