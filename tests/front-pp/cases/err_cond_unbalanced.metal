#else
#endif
#elif 1
#if 1
#else
#else
#elif 1
#endif
#ifdef
#if 1
