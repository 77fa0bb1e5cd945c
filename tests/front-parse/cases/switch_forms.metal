kernel void k(device int *p [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    switch (tid) case 0: p[0] = 1;
    switch (p[1]) {
    case 1: case 2: case 3:
        p[2] = 3;
        break;
    case 4: {
        int x = 4;
        p[2] = x;
        break;
    }
    default:
        break;
    }
    switch (p[3]) { }
}
