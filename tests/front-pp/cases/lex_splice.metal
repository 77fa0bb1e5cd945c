ab\
cd x
// comment \
still comment
y "s\
t" 1\
0
