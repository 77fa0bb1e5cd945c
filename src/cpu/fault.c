/* fault.c — containing kernels that fault or run too long, on the threads that run them.
 *
 * Why this mechanism: the cpu backend runs kernels as native code on its own worker threads
 * (and on the dispatching thread), inside the host's process. A fault in generated code
 * (SIGSEGV, SIGBUS, SIGFPE, SIGILL) is synchronous: it is delivered to the very thread that
 * ran the faulting instruction, so a handler that finds that thread inside a kernel can
 * siglongjmp back to the point in exec.c where the threadgroup was started and report the
 * fault, and nothing else of the process is touched. Generated code holds no locks and
 * allocates nothing (checked mode's runtime is per-dispatch state that is thrown away), so
 * leaving a kernel in the middle loses only that dispatch's work. The same jump ends a
 * kernel that runs past its time limit or is cancelled: a watchdog (or enigma_command_cancel)
 * sends CPU_INTERRUPT_SIGNAL to each executor of the dispatch. A sandbox process would also
 * survive wild writes into the host's own memory, at the cost of sharing every buffer
 * through memfd and a process switch per dispatch; buffers get guard pages instead
 * (device.c), which turns the common overruns into contained faults.
 *
 * Needs: nothing but POSIX signals. Guarantees: a signal that arrives while the thread is
 * not inside a kernel goes to whatever handler was installed before enigma's (or the
 * default action), so the host's own fault handling is unchanged. Each executor thread runs
 * its kernels on an alternate signal stack, so a kernel that overflows its stack is
 * reported like any other fault. What stays undefined: a wild write that lands in memory
 * the process owns (another bound buffer, or the host's heap beyond the guard pages) is not
 * a fault and is not detected; use checked mode for those. */
#include "fault.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* the guard of the kernel this thread is running, or NULL */
static _Thread_local cpu_guard *tl_guard;

static const int fault_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
static struct sigaction previous[EN_COUNT(fault_signals)];
static pthread_once_t install_once = PTHREAD_ONCE_INIT;
static bool installed;

int cpu_interrupt_signal(void) { return SIGRTMIN + 6; }

/* not in a kernel: the fault belongs to the host; hand it to what was there before */
static void chain(int sig, siginfo_t *info, void *context) {
    for (size_t i = 0; i < EN_COUNT(fault_signals); i++) {
        if (fault_signals[i] != sig) continue;
        const struct sigaction *p = &previous[i];
        if ((p->sa_flags & SA_SIGINFO) && p->sa_sigaction) {
            p->sa_sigaction(sig, info, context);
        } else if (p->sa_handler == SIG_IGN) {
            return;
        } else if (p->sa_handler == SIG_DFL) {
            /* the default action: returning re-runs the faulting instruction, which now
             * ends the process exactly as it would have without enigma */
            signal(sig, SIG_DFL);
        } else {
            p->sa_handler(sig);
        }
        return;
    }
}

static void on_fault(int sig, siginfo_t *info, void *context) {
    cpu_guard *g = tl_guard;
    if (g && g->armed) {
        g->armed = 0;
        g->signal = sig;
        g->address = info ? info->si_addr : NULL;
        siglongjmp(g->jump, 1);
    }
    chain(sig, info, context);
}

static void on_interrupt(int sig, siginfo_t *info, void *context) {
    (void)info;
    (void)context;
    cpu_guard *g = tl_guard;
    /* between threadgroups the executor sees the stop flag itself */
    if (g && g->armed && atomic_load_explicit(g->stop, memory_order_relaxed)) {
        g->armed = 0;
        g->signal = sig;
        g->address = NULL;
        siglongjmp(g->jump, 1);
    }
}

static void install(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    bool ok = true;
    for (size_t i = 0; i < EN_COUNT(fault_signals); i++)
        ok = sigaction(fault_signals[i], &sa, &previous[i]) == 0 && ok;
    sa.sa_sigaction = on_interrupt;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    ok = sigaction(cpu_interrupt_signal(), &sa, NULL) == 0 && ok;
    installed = ok;
}

bool cpu_fault_install(void) {
    pthread_once(&install_once, install);
    return installed;
}

void cpu_guard_enter(cpu_guard *g) { tl_guard = g; }
void cpu_guard_leave(void) { tl_guard = NULL; }

const char *cpu_signal_name(int sig) {
    switch (sig) {
    case SIGSEGV: return "SIGSEGV (an invalid memory access)";
    case SIGBUS: return "SIGBUS (a bus error: a misaligned or unbacked access)";
    case SIGFPE: return "SIGFPE (an arithmetic fault, such as an integer division by zero)";
    case SIGILL: return "SIGILL (an illegal instruction)";
    }
    return "a signal";
}

/* An alternate signal stack for each thread that runs kernels, so that a stack overflow in
 * a kernel can still be handled. Installed the first time a thread runs a kernel and kept
 * until the thread ends (a per-dispatch install would cost two system calls a dispatch);
 * a thread that already has one (Python's faulthandler installs one) keeps its own. */
static pthread_key_t altstack_key;
static pthread_once_t altstack_once = PTHREAD_ONCE_INIT;
static _Thread_local bool altstack_checked;

static void altstack_free(void *memory) {
    stack_t current;
    if (sigaltstack(NULL, &current) == 0 && current.ss_sp == memory) {
        stack_t off = {.ss_flags = SS_DISABLE};
        sigaltstack(&off, NULL);
    }
    free(memory);
}

static void altstack_key_create(void) { pthread_key_create(&altstack_key, altstack_free); }

void cpu_altstack_ensure(void) {
    if (altstack_checked) return;
    altstack_checked = true;
    stack_t old;
    if (sigaltstack(NULL, &old) != 0 || !(old.ss_flags & SS_DISABLE)) return;
    pthread_once(&altstack_once, altstack_key_create);
    void *memory = malloc(CPU_ALTSTACK_BYTES);
    stack_t ss = {.ss_sp = memory, .ss_size = CPU_ALTSTACK_BYTES, .ss_flags = 0};
    if (!memory || sigaltstack(&ss, NULL) != 0 || pthread_setspecific(altstack_key, memory) != 0) {
        stack_t off = {.ss_flags = SS_DISABLE};
        if (memory) sigaltstack(&off, NULL);
        free(memory);
    }
}

/* After a jump out of a handler the signal is still blocked (the jump does not restore the
 * mask: saving it at every threadgroup would cost a system call each); unblock it. */
void cpu_guard_recovered(int sig) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}
