kernel void k(device int *p [[buffer(0)]]) {
    else p[0] = 1;
    if p[0] { }
    for (int i = 0; i < 4 i++) { }
    do p[1]++; (p[1] < 3);
    while (p[2] < 3 p[2]++;
    case 3: p[3] = 1;
    p[4] = 5;
}
