// glibc's heap statistics, for the decode benchmark's memory rows (Swift's Glibc module leaves out malloc.h).
#if defined(__GLIBC__) || __has_include(<malloc.h>)
#include <malloc.h>
#endif
