// ARGS: -DFOO -DBAR=42 -DBAZ=a+b -DEMPTY=
FOO BAR BAZ EMPTY
#ifdef EMPTY
defined_empty
#endif
