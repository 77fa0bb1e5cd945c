#foo bar
#123
# 
#ifdeff X
ok
