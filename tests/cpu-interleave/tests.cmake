# tests/cpu-interleave — grid-stride loops whose SIMD groups run interleaved (src/cpu/emit_region.c,
# emit_interleaved_loop) against references computed here, and the generated C checked
# for the phase where it belongs and its absence where it does not.
enigma_c_test(cpu_test_interleave cpu.interleave ${CMAKE_CURRENT_LIST_DIR}/test_cpu_interleave.c CACHE cpu-interleave-cache)
