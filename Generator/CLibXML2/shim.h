#include <libxml/xmlreader.h>
#include <libxml/xmlmemory.h>
#include <libxml/xmlerror.h>

// `xmlFree` is a C global function pointer, which Swift 6 rejects as not concurrency-safe.
static inline void cxml_free(void *p) { xmlFree(p); }
