/* pp.h — what the preprocessor's files share (internal to src/front/pp*.c, lex.c). */
#ifndef ENIGMA_PP_H
#define ENIGMA_PP_H

#include "front.h"
#include "lex.h"

/* pp_builtin.c: #define lines read before every compile as the source "<builtin>" */
EN_INTERNAL const char *en_pp_builtin_text(void);
/* metal_headers.c: the <metal_stdlib> family */
EN_INTERNAL bool en_metal_header_known(const char *name);
EN_INTERNAL const char *en_metal_header_text(void);
EN_INTERNAL const char *en_metal_header_refusal(const char *name);

#endif
