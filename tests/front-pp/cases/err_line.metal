#line 0
#line x
#line 5 name
#line 4294967296
#line 10
#error here
