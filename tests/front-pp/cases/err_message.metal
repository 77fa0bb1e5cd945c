#error this is   bad
#warning careful "now"
#error
