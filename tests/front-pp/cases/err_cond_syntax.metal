#if
#endif
#if (1
#endif
#if 1 +
#endif
#if 1.0
#endif
#if "s"
#endif
#if 1 2
#endif
#if defined
#endif
#if defined(X
#endif
#if 1 ? 2
#endif
