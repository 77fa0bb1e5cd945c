#if 0
don't "unterminated
#bogus directive
@ $ ` 08 0x
#error not reached
#endif
ok
