# tests/cpu-wide — kernels with threadgroup barriers that wide mode runs (src/cpu/emit_wide.c)
# against references computed here from fresh random inputs, and the generated C checked
# for the wide block where it belongs and its absence where it does not.
enigma_c_test(cpu_test_wide cpu.wide ${CMAKE_CURRENT_LIST_DIR}/test_cpu_wide.c CACHE cpu-wide-cache)
