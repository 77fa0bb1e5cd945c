kernel void k(device int *p [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    int s = 0;
    for (int i = 0, j = 10; i < j; i++, j--) s += i;
    for (;;) { if (s > 100) break; s++; }
    for (s = 0; s < 4; ++s) continue;
    while (s > 0) s--;
    do { s++; } while (s < 10);
    if (tid == 0) p[0] = s; else if (tid == 1) p[1] = s; else { p[2] = s; }
    switch (tid) {
    case 0:
    case 1: p[0] = 1; break;
    case 2: { p[0] = 2; } break;
    default: p[0] = 3;
    }
    ;
    { int inner = 1; p[3] = inner; }
    return;
}
