/* ast.c — helpers over the syntax tree: names as text, a type and expression printer,
 * and the tree dump the parser's golden tests compare against (tests/front-parse/).
 *
 * The dump shows declarations and statements one per line, indented by nesting, and
 * every expression on one line fully parenthesised, so that a golden file pins down
 * precedence and associativity as well as the shape. */
#include "ast.h"

#include <string.h>

static void name_print(const ast_name *n, en_buf *out);

static void targs_print(const ast_targs *ta, en_buf *out) {
    en_buf_putc(out, '<');
    for (int i = 0; i < ta->count; i++) {
        if (i) en_buf_puts(out, ", ");
        if (ta->items[i].type) ast_type_print(ta->items[i].type, out);
        else if (ta->items[i].expr) ast_expr_print(ta->items[i].expr, out);
    }
    en_buf_putc(out, '>');
}

static void name_print(const ast_name *n, en_buf *out) {
    if (n->global) en_buf_puts(out, "::");
    for (int i = 0; i < n->count; i++) {
        if (i) en_buf_puts(out, "::");
        en_buf_puts(out, n->parts[i].ident ? n->parts[i].ident : "?");
        if (n->parts[i].has_targs) targs_print(&n->parts[i].targs, out);
    }
}

const char *ast_name_str(en_arena *a, const ast_name *n) {
    en_buf b = {0};
    name_print(n, &b);
    const char *s = en_strdup(a, b.data ? b.data : "");
    en_buf_free(&b);
    return s;
}

const char *ast_name_last(const ast_name *n) {
    if (n->count <= 0) return "";
    return n->parts[n->count - 1].ident;
}

static const char *space_name(ast_addr_space s) {
    switch (s) {
    case AST_AS_NONE: return "";
    case AST_AS_DEVICE: return "device";
    case AST_AS_CONSTANT: return "constant";
    case AST_AS_THREADGROUP: return "threadgroup";
    case AST_AS_THREAD: return "thread";
    case AST_AS_THREADGROUP_IMAGEBLOCK: return "threadgroup_imageblock";
    case AST_AS_RAY_DATA: return "ray_data";
    case AST_AS_OBJECT_DATA: return "object_data";
    }
    return "";
}

static void quals_print(unsigned quals, ast_addr_space space, en_buf *out, bool before) {
    /* before a name: "device const float"; after a '*': "* const" */
    if (before) {
        if (space) en_buf_printf(out, "%s ", space_name(space));
        if (quals & AST_Q_CONST) en_buf_puts(out, "const ");
        if (quals & AST_Q_VOLATILE) en_buf_puts(out, "volatile ");
        if (quals & AST_Q_RESTRICT) en_buf_puts(out, "restrict ");
    } else {
        if (space) en_buf_printf(out, " %s", space_name(space));
        if (quals & AST_Q_CONST) en_buf_puts(out, " const");
        if (quals & AST_Q_VOLATILE) en_buf_puts(out, " volatile");
        if (quals & AST_Q_RESTRICT) en_buf_puts(out, " restrict");
    }
}

void ast_type_print(const ast_type *t, en_buf *out) {
    if (!t) {
        en_buf_puts(out, "<none>");
        return;
    }
    switch (t->kind) {
    case AST_TYPE_ERROR: en_buf_puts(out, "<error>"); break;
    case AST_TYPE_NAME:
        quals_print(t->quals, t->space, out, true);
        if (t->elaborated) en_buf_puts(out, "struct ");
        name_print(&t->name, out);
        break;
    case AST_TYPE_POINTER:
        ast_type_print(t->base, out);
        en_buf_puts(out, " *");
        quals_print(t->quals, t->space, out, false);
        break;
    case AST_TYPE_REF:
        ast_type_print(t->base, out);
        en_buf_puts(out, t->is_rvalue_ref ? " &&" : " &");
        break;
    case AST_TYPE_ARRAY: {
        /* float[2][3] is an array of 2 arrays of 3: the element first, then the
         * dimensions from the outermost in, as C writes them */
        const ast_type *elem = t;
        while (elem->kind == AST_TYPE_ARRAY && elem->base) elem = elem->base;
        if (elem->kind == AST_TYPE_ARRAY) en_buf_puts(out, "<none>"); /* no element type */
        else ast_type_print(elem, out);
        for (const ast_type *d = t; d != elem; d = d->base) {
            en_buf_putc(out, '[');
            if (d->dim) ast_expr_print(d->dim, out);
            en_buf_putc(out, ']');
        }
        break;
    }
    case AST_TYPE_DECLTYPE:
        en_buf_puts(out, "decltype(");
        ast_expr_print(t->decltype_expr, out);
        en_buf_putc(out, ')');
        break;
    }
}

const char *ast_op_spelling(ast_op op) {
    switch (op) {
    case AST_OP_NONE: return "";
    case AST_OP_PLUS: case AST_OP_ADD: return "+";
    case AST_OP_NEG: case AST_OP_SUB: return "-";
    case AST_OP_NOT: return "!";
    case AST_OP_BITNOT: return "~";
    case AST_OP_DEREF: case AST_OP_MUL: return "*";
    case AST_OP_ADDR: case AST_OP_BITAND: return "&";
    case AST_OP_PREINC: case AST_OP_POSTINC: return "++";
    case AST_OP_PREDEC: case AST_OP_POSTDEC: return "--";
    case AST_OP_DIV: return "/";
    case AST_OP_MOD: return "%";
    case AST_OP_SHL: return "<<";
    case AST_OP_SHR: return ">>";
    case AST_OP_LT: return "<";
    case AST_OP_GT: return ">";
    case AST_OP_LE: return "<=";
    case AST_OP_GE: return ">=";
    case AST_OP_EQ: return "==";
    case AST_OP_NE: return "!=";
    case AST_OP_BITXOR: return "^";
    case AST_OP_BITOR: return "|";
    case AST_OP_LOGAND: return "&&";
    case AST_OP_LOGOR: return "||";
    case AST_OP_COMMA: return ",";
    }
    return "?";
}

static void args_print(const ast_exprs *args, en_buf *out) {
    for (int i = 0; i < args->count; i++) {
        if (i) en_buf_puts(out, ", ");
        ast_expr_print(args->items[i], out);
    }
}

static const char *cast_name(ast_cast_kind k) {
    switch (k) {
    case AST_CAST_C: return "";
    case AST_CAST_STATIC: return "static_cast";
    case AST_CAST_REINTERPRET: return "reinterpret_cast";
    case AST_CAST_CONST: return "const_cast";
    case AST_CAST_AS_TYPE: return "as_type";
    }
    return "?";
}

void ast_expr_print(const ast_expr *e, en_buf *out) {
    if (!e) {
        en_buf_puts(out, "<none>");
        return;
    }
    switch (e->kind) {
    case AST_EXPR_ERROR: en_buf_puts(out, "<error>"); break;
    case AST_EXPR_INT:
    case AST_EXPR_FLOAT:
    case AST_EXPR_CHAR:
    case AST_EXPR_STRING: en_buf_puts(out, e->text ? e->text : "?"); break;
    case AST_EXPR_BOOL: en_buf_puts(out, e->ival ? "true" : "false"); break;
    case AST_EXPR_NAME: name_print(&e->name, out); break;
    case AST_EXPR_THIS: en_buf_puts(out, "this"); break;
    case AST_EXPR_CALL:
        ast_expr_print(e->callee, out);
        en_buf_putc(out, '(');
        args_print(&e->args, out);
        en_buf_putc(out, ')');
        break;
    case AST_EXPR_CONSTRUCT:
        /* "type:" marks a construction, which a call to a function would not print */
        en_buf_puts(out, "type:");
        ast_type_print(e->type, out);
        en_buf_putc(out, e->brace ? '{' : '(');
        args_print(&e->args, out);
        en_buf_putc(out, e->brace ? '}' : ')');
        break;
    case AST_EXPR_CAST:
        if (e->cast_kind == AST_CAST_C) {
            en_buf_puts(out, "((");
            ast_type_print(e->type, out);
            en_buf_putc(out, ')');
            ast_expr_print(e->operand, out);
            en_buf_putc(out, ')');
        } else {
            en_buf_printf(out, "%s<", cast_name(e->cast_kind));
            ast_type_print(e->type, out);
            en_buf_puts(out, ">(");
            ast_expr_print(e->operand, out);
            en_buf_putc(out, ')');
        }
        break;
    case AST_EXPR_SIZEOF:
    case AST_EXPR_ALIGNOF:
        en_buf_puts(out, e->kind == AST_EXPR_SIZEOF ? "sizeof(" : "alignof(");
        if (e->type) {
            en_buf_puts(out, "type:");
            ast_type_print(e->type, out);
        } else {
            ast_expr_print(e->operand, out);
        }
        en_buf_putc(out, ')');
        break;
    case AST_EXPR_MEMBER:
        en_buf_putc(out, '(');
        ast_expr_print(e->operand, out);
        en_buf_printf(out, "%s%s)", e->arrow ? "->" : ".", e->member ? e->member : "?");
        break;
    case AST_EXPR_SUBSCRIPT:
        en_buf_putc(out, '(');
        ast_expr_print(e->operand, out);
        en_buf_putc(out, '[');
        ast_expr_print(e->index, out);
        en_buf_puts(out, "])");
        break;
    case AST_EXPR_UNARY:
        en_buf_putc(out, '(');
        if (e->op == AST_OP_POSTINC || e->op == AST_OP_POSTDEC) {
            ast_expr_print(e->operand, out);
            en_buf_puts(out, ast_op_spelling(e->op));
        } else {
            en_buf_puts(out, ast_op_spelling(e->op));
            ast_expr_print(e->operand, out);
        }
        en_buf_putc(out, ')');
        break;
    case AST_EXPR_BINARY:
        en_buf_putc(out, '(');
        ast_expr_print(e->lhs, out);
        en_buf_printf(out, e->op == AST_OP_COMMA ? "%s " : " %s ", ast_op_spelling(e->op));
        ast_expr_print(e->rhs, out);
        en_buf_putc(out, ')');
        break;
    case AST_EXPR_ASSIGN:
        en_buf_putc(out, '(');
        ast_expr_print(e->lhs, out);
        en_buf_printf(out, " %s= ", ast_op_spelling(e->op));
        ast_expr_print(e->rhs, out);
        en_buf_putc(out, ')');
        break;
    case AST_EXPR_COND:
        en_buf_putc(out, '(');
        ast_expr_print(e->cond, out);
        en_buf_puts(out, " ? ");
        ast_expr_print(e->lhs, out);
        en_buf_puts(out, " : ");
        ast_expr_print(e->rhs, out);
        en_buf_putc(out, ')');
        break;
    case AST_EXPR_INIT_LIST:
        en_buf_putc(out, '{');
        args_print(&e->args, out);
        en_buf_putc(out, '}');
        break;
    case AST_EXPR_DESIGNATOR:
        en_buf_putc(out, '[');
        ast_expr_print(e->lhs, out);
        if (e->rhs) {
            en_buf_puts(out, " ... ");
            ast_expr_print(e->rhs, out);
        }
        en_buf_puts(out, "] = ");
        ast_expr_print(e->operand, out);
        break;
    }
}

/* ---- the tree dump ------------------------------------------------------------------ */
static void indent(en_buf *out, int depth) {
    for (int i = 0; i < depth; i++) en_buf_puts(out, "  ");
}

static void attrs_print(const ast_attrs *attrs, en_buf *out) {
    for (int i = 0; i < attrs->count; i++) {
        const ast_attr *a = &attrs->items[i];
        en_buf_printf(out, " [[%s", a->name);
        if (a->has_parens) {
            en_buf_putc(out, '(');
            args_print(&a->args, out);
            en_buf_putc(out, ')');
        }
        en_buf_puts(out, "]]");
    }
}

static void specs_print(unsigned specs, en_buf *out) {
    if (specs & AST_SPEC_KERNEL) en_buf_puts(out, "kernel ");
    if (specs & AST_SPEC_INLINE) en_buf_puts(out, "inline ");
    if (specs & AST_SPEC_STATIC) en_buf_puts(out, "static ");
    if (specs & AST_SPEC_CONSTEXPR) en_buf_puts(out, "constexpr ");
    if (specs & AST_SPEC_EXTERN) en_buf_puts(out, "extern ");
}

static void decl_dump(const ast_decl *d, en_buf *out, int depth);

static void stmt_dump(const ast_stmt *s, en_buf *out, int depth, const char *label) {
    indent(out, depth);
    if (label) en_buf_printf(out, "%s: ", label);
    if (!s) {
        en_buf_puts(out, "<none>\n");
        return;
    }
    if (s->has_unroll) en_buf_printf(out, "#pragma unroll %d\n", s->unroll_count);
    if (s->has_unroll) indent(out, depth);
    switch (s->kind) {
    case AST_STMT_ERROR: en_buf_puts(out, "<error>\n"); break;
    case AST_STMT_EMPTY: en_buf_puts(out, "empty\n"); break;
    case AST_STMT_COMPOUND:
        en_buf_puts(out, "compound\n");
        for (int i = 0; i < s->body.count; i++) stmt_dump(s->body.items[i], out, depth + 1, NULL);
        break;
    case AST_STMT_DECL:
        en_buf_puts(out, "decl\n");
        for (int i = 0; i < s->decls.count; i++) decl_dump(s->decls.items[i], out, depth + 1);
        break;
    case AST_STMT_EXPR:
        en_buf_puts(out, "expr ");
        ast_expr_print(s->expr, out);
        en_buf_putc(out, '\n');
        break;
    case AST_STMT_IF:
        en_buf_puts(out, s->is_constexpr ? "if constexpr " : "if ");
        ast_expr_print(s->cond, out);
        en_buf_putc(out, '\n');
        stmt_dump(s->then, out, depth + 1, "then");
        if (s->els) stmt_dump(s->els, out, depth + 1, "else");
        break;
    case AST_STMT_FOR:
        en_buf_puts(out, "for\n");
        if (s->range) { /* for (x : range) */
            indent(out, depth + 1);
            en_buf_printf(out, "each: %s: ", s->range_var && s->range_var->name ? s->range_var->name : "?");
            if (s->range_var) ast_type_print(s->range_var->type, out);
            en_buf_puts(out, " in ");
            ast_expr_print(s->range, out);
            en_buf_putc(out, '\n');
            stmt_dump(s->loop_body, out, depth + 1, "body");
            break;
        }
        if (s->init) stmt_dump(s->init, out, depth + 1, "init");
        indent(out, depth + 1);
        en_buf_puts(out, "cond: ");
        ast_expr_print(s->cond, out);
        en_buf_putc(out, '\n');
        indent(out, depth + 1);
        en_buf_puts(out, "step: ");
        ast_expr_print(s->step, out);
        en_buf_putc(out, '\n');
        stmt_dump(s->loop_body, out, depth + 1, "body");
        break;
    case AST_STMT_WHILE:
    case AST_STMT_DO:
    case AST_STMT_SWITCH:
        en_buf_puts(out, s->kind == AST_STMT_WHILE ? "while " :
                         s->kind == AST_STMT_DO ? "do-while " : "switch ");
        ast_expr_print(s->cond, out);
        en_buf_putc(out, '\n');
        stmt_dump(s->loop_body, out, depth + 1, "body");
        break;
    case AST_STMT_CASE:
        en_buf_puts(out, "case ");
        ast_expr_print(s->expr, out);
        en_buf_putc(out, '\n');
        stmt_dump(s->loop_body, out, depth + 1, NULL);
        break;
    case AST_STMT_DEFAULT:
        en_buf_puts(out, "default\n");
        stmt_dump(s->loop_body, out, depth + 1, NULL);
        break;
    case AST_STMT_BREAK: en_buf_puts(out, "break\n"); break;
    case AST_STMT_CONTINUE: en_buf_puts(out, "continue\n"); break;
    case AST_STMT_RETURN:
        en_buf_puts(out, "return");
        if (s->expr) {
            en_buf_putc(out, ' ');
            ast_expr_print(s->expr, out);
        }
        en_buf_putc(out, '\n');
        break;
    }
}

static void tparams_print(const ast_decl *d, en_buf *out) {
    if (!d->is_template) return;
    en_buf_puts(out, "template<");
    for (int i = 0; i < d->tparams.count; i++) {
        const ast_tparam *p = &d->tparams.items[i];
        if (i) en_buf_puts(out, ", ");
        if (p->is_type) {
            en_buf_printf(out, "typename %s%s", p->is_pack ? "... " : "", p->name ? p->name : "");
            if (p->default_type) {
                en_buf_puts(out, " = ");
                ast_type_print(p->default_type, out);
            }
        } else {
            ast_type_print(p->type, out);
            en_buf_printf(out, p->is_func ? " (*%s)(...)" : " %s", p->name ? p->name : "");
            if (p->default_value) {
                en_buf_puts(out, " = ");
                ast_expr_print(p->default_value, out);
            }
        }
    }
    en_buf_puts(out, "> ");
}

static const char *init_style_name(ast_init_style s) {
    switch (s) {
    case AST_INIT_NONE: return "";
    case AST_INIT_ASSIGN: return " = ";
    case AST_INIT_PAREN: return " paren-init ";
    case AST_INIT_BRACE: return " brace-init ";
    }
    return "";
}

static void decl_dump(const ast_decl *d, en_buf *out, int depth) {
    indent(out, depth);
    tparams_print(d, out);
    specs_print(d->specs, out);
    switch (d->kind) {
    case AST_DECL_ERROR: en_buf_puts(out, "<error>\n"); return;
    case AST_DECL_VAR:
        en_buf_printf(out, "var %s: ", d->name ? d->name : "<unnamed>");
        ast_type_print(d->type, out);
        if (d->bit_width) {
            en_buf_puts(out, " : ");
            ast_expr_print(d->bit_width, out);
        }
        attrs_print(&d->attrs, out);
        if (d->init_style != AST_INIT_NONE) {
            en_buf_puts(out, init_style_name(d->init_style));
            ast_expr_print(d->init, out);
        }
        en_buf_putc(out, '\n');
        return;
    case AST_DECL_FUNC:
        en_buf_puts(out, "func ");
        if (d->qual_name.count) {
            name_print(&d->qual_name, out);
        } else if (d->spec_name.count) {
            name_print(&d->spec_name, out);
        } else {
            en_buf_puts(out, d->name ? d->name : "?");
        }
        en_buf_puts(out, " -> ");
        if (d->type) ast_type_print(d->type, out);
        else en_buf_puts(out, "<constructor>");
        if (d->is_const_method) en_buf_puts(out, " const");
        attrs_print(&d->attrs, out);
        en_buf_puts(out, d->body ? "\n" : " (declaration)\n");
        for (int i = 0; i < d->params.count; i++) {
            const ast_param *p = &d->params.items[i];
            indent(out, depth + 1);
            en_buf_printf(out, "param %s: ", p->name ? p->name : "<unnamed>");
            ast_type_print(p->type, out);
            attrs_print(&p->attrs, out);
            if (p->default_value) {
                en_buf_puts(out, " = ");
                ast_expr_print(p->default_value, out);
            }
            en_buf_putc(out, '\n');
        }
        if (d->body) stmt_dump(d->body, out, depth + 1, "body");
        return;
    case AST_DECL_STRUCT:
        en_buf_printf(out, "%s %s%s", d->is_union ? "union" : d->is_class ? "class" : "struct",
                      d->name ? d->name : "<anonymous>", d->has_body ? "" : " (declaration)");
        attrs_print(&d->attrs, out);
        en_buf_putc(out, '\n');
        for (int i = 0; i < d->members.count; i++) decl_dump(d->members.items[i], out, depth + 1);
        return;
    case AST_DECL_ENUM:
        en_buf_printf(out, "enum%s %s", d->is_scoped ? " class" : "", d->name ? d->name : "<anonymous>");
        if (d->type) {
            en_buf_puts(out, " : ");
            ast_type_print(d->type, out);
        }
        en_buf_putc(out, '\n');
        for (int i = 0; i < d->enumerators.count; i++) {
            indent(out, depth + 1);
            en_buf_printf(out, "%s", d->enumerators.items[i].name);
            if (d->enumerators.items[i].value) {
                en_buf_puts(out, " = ");
                ast_expr_print(d->enumerators.items[i].value, out);
            }
            en_buf_putc(out, '\n');
        }
        return;
    case AST_DECL_TYPEDEF:
        en_buf_printf(out, "typedef %s = ", d->name ? d->name : "?");
        ast_type_print(d->type, out);
        if (d->is_func_type)
            en_buf_printf(out, " (%sfunction of %d parameters)", d->func_type_is_pointer ? "pointer to a " : "",
                          d->params.count);
        en_buf_putc(out, '\n');
        return;
    case AST_DECL_NAMESPACE:
        en_buf_printf(out, "namespace %s\n", d->name ? d->name : "<anonymous>");
        for (int i = 0; i < d->decls.count; i++) decl_dump(d->decls.items[i], out, depth + 1);
        return;
    case AST_DECL_USING_NAMESPACE:
    case AST_DECL_USING:
        en_buf_puts(out, d->kind == AST_DECL_USING ? "using " : "using namespace ");
        name_print(&d->target, out);
        en_buf_putc(out, '\n');
        return;
    case AST_DECL_STATIC_ASSERT:
        en_buf_puts(out, "static_assert ");
        ast_expr_print(d->cond, out);
        if (d->message) {
            en_buf_puts(out, ", ");
            ast_expr_print(d->message, out);
        }
        en_buf_putc(out, '\n');
        return;
    case AST_DECL_EXPLICIT_INST:
        en_buf_puts(out, "explicit instantiation ");
        name_print(&d->target, out);
        en_buf_puts(out, ": ");
        ast_type_print(d->type, out);
        attrs_print(&d->attrs, out);
        en_buf_putc(out, '\n');
        return;
    }
}

void ast_dump(const ast_unit *u, en_buf *out) {
    if (!u) {
        en_buf_puts(out, "<no unit>\n");
        return;
    }
    for (int i = 0; i < u->decls.count; i++) decl_dump(u->decls.items[i], out, 0);
}
