/* fault.h — fault.c's interface to exec.c: containing faults, time limits and cancellation
 * inside kernels. Apart from cpu.h because <signal.h> with _GNU_SOURCE declares names
 * (access, ...) that code including cpu.h may use. */
#ifndef ENIGMA_CPU_FAULT_H
#define ENIGMA_CPU_FAULT_H

#include "cpu.h"

#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>

/* ---- fault.c: faults, time limits and cancellation inside kernels ---- */
/* Armed around each threadgroup's kernel call: a fault in it, or CPU_INTERRUPT_SIGNAL while
 * *stop is set, siglongjmps to `jump` with `signal` (and the faulting `address`) filled in. */
typedef struct cpu_guard {
    sigjmp_buf jump;
    volatile sig_atomic_t armed;
    atomic_int *stop;        /* the dispatch's stop reason (exec.c), 0 while it runs */
    volatile int signal;
    void *volatile address;
} cpu_guard;
#define CPU_ALTSTACK_BYTES (64u * 1024u)

EN_INTERNAL bool cpu_fault_install(void); /* once per process; false if it could not be */
EN_INTERNAL void cpu_guard_enter(cpu_guard *g);
EN_INTERNAL void cpu_guard_leave(void);
EN_INTERNAL int cpu_interrupt_signal(void);
EN_INTERNAL const char *cpu_signal_name(int sig);
EN_INTERNAL void cpu_altstack_ensure(void); /* this thread has an alternate signal stack */
EN_INTERNAL void cpu_guard_recovered(int sig); /* after the jump: unblock `sig` again */

#endif
