#include <string.h>
#include <libxml/parser.h>
#include <libxml/xmlerror.h>

// libxml2's SAX2 push parser for feeds: elements, text and CDATA reach
// callbacks with a context; no tree is built, nothing is loaded from the
// network, and errors are not printed (the caller reads the last one).
typedef void (*reel_xml_start_fn)(void *context, const xmlChar *localname, const xmlChar *prefix,
                                  int attribute_count, const xmlChar **attributes);
typedef void (*reel_xml_end_fn)(void *context, const xmlChar *localname, const xmlChar *prefix);
typedef void (*reel_xml_text_fn)(void *context, const xmlChar *text, int length);

struct reel_xml_callbacks {
    void *context;
    reel_xml_start_fn start;
    reel_xml_end_fn end;
    reel_xml_text_fn text;
};

static void reel_xml_on_start(void *user, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri,
                              int namespace_count, const xmlChar **namespaces, int attribute_count,
                              int defaulted_count, const xmlChar **attributes) {
    (void)uri; (void)namespace_count; (void)namespaces; (void)defaulted_count;
    struct reel_xml_callbacks *callbacks = ((xmlParserCtxtPtr)user)->_private;
    callbacks->start(callbacks->context, localname, prefix, attribute_count, attributes);
}

static void reel_xml_on_end(void *user, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri) {
    (void)uri;
    struct reel_xml_callbacks *callbacks = ((xmlParserCtxtPtr)user)->_private;
    callbacks->end(callbacks->context, localname, prefix);
}

static void reel_xml_on_text(void *user, const xmlChar *text, int length) {
    struct reel_xml_callbacks *callbacks = ((xmlParserCtxtPtr)user)->_private;
    callbacks->text(callbacks->context, text, length);
}

static void reel_xml_quiet(void *user, xmlErrorPtr error) { (void)user; (void)error; }

// A push parser calling `callbacks` (which must outlive it). The SAX2
// defaults stay for the document and its DTD (so that declared entities are
// known, and not expanded: references are dropped); elements and text are ours.
static inline xmlParserCtxtPtr reel_xml_push_parser(struct reel_xml_callbacks *callbacks) {
    xmlSAXHandler sax;
    memset(&sax, 0, sizeof sax);
    xmlSAXVersion(&sax, 2);
    sax.startElementNs = reel_xml_on_start;
    sax.endElementNs = reel_xml_on_end;
    sax.characters = reel_xml_on_text;
    sax.cdataBlock = reel_xml_on_text;
    sax.ignorableWhitespace = reel_xml_on_text;
    sax.reference = NULL;
    sax.serror = reel_xml_quiet;
    sax.warning = NULL;
    sax.error = NULL;
    sax.fatalError = NULL;
    xmlParserCtxtPtr ctxt = xmlCreatePushParserCtxt(&sax, NULL, NULL, 0, NULL);
    if (ctxt == NULL) return NULL;
    ctxt->_private = callbacks;
    // The SAX callbacks get the context itself as their user data.
    ctxt->userData = ctxt;
    xmlCtxtUseOptions(ctxt, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    return ctxt;
}

// Frees the parser and the document (DTD) the SAX2 defaults built.
static inline void reel_xml_free(xmlParserCtxtPtr ctxt) {
    if (ctxt->myDoc != NULL) xmlFreeDoc(ctxt->myDoc);
    ctxt->myDoc = NULL;
    xmlFreeParserCtxt(ctxt);
}

static inline int reel_xml_error_code(xmlParserCtxtPtr ctxt) { return ctxt->lastError.code; }
static inline int reel_xml_error_line(xmlParserCtxtPtr ctxt) { return ctxt->lastError.line; }
static inline int reel_xml_line(xmlParserCtxtPtr ctxt) { return ctxt->input != NULL ? ctxt->input->line : 0; }
