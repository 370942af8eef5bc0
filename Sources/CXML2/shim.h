// libxml2, for the C target that wraps it (CFeedParser). Swift never imports
// this module: libxml2's headers bring the system's ICU headers, which clash
// with those of Foundation's own ICU in a module that imports both.
#include <libxml/parser.h>
