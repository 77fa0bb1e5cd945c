a // comment b
c /* multi
line */ d
e/**/f
/* x */ g
