#include <libxml/xmlversion.h>
// Debian's libxml2 is built with ICU, so its headers pull in the system's ICU headers, which clash with
// Foundation's own copy of ICU in any module that imports both. Bindery only uses the reader API through
// pointers, never the ICU-dependent encoding-handler struct, so hiding ICU from the headers is safe.
#undef LIBXML_ICU_ENABLED
#include <libxml/xmlreader.h>
#include <libxml/xmlmemory.h>
#include <libxml/xmlerror.h>

// `xmlFree` is a C global function pointer, which Swift 6 rejects as not concurrency-safe.
static inline void cxml_free(void *p) { xmlFree(p); }
