#include "feedparser.h"
#include <stdlib.h>
#include <string.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/xmlerror.h>

struct reel_xml_parser {
    xmlParserCtxtPtr context;
};

static void on_start(void *user, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri,
                     int namespace_count, const xmlChar **namespaces, int attribute_count,
                     int defaulted_count, const xmlChar **attributes) {
    (void)uri; (void)namespace_count; (void)namespaces; (void)defaulted_count;
    struct reel_xml_callbacks *callbacks = ((xmlParserCtxtPtr)user)->_private;
    callbacks->start(callbacks->context, localname, prefix, attribute_count, attributes);
}

static void on_end(void *user, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri) {
    (void)uri;
    struct reel_xml_callbacks *callbacks = ((xmlParserCtxtPtr)user)->_private;
    callbacks->end(callbacks->context, localname, prefix);
}

static void on_text(void *user, const xmlChar *text, int length) {
    struct reel_xml_callbacks *callbacks = ((xmlParserCtxtPtr)user)->_private;
    callbacks->text(callbacks->context, text, length);
}

static void quiet(void *user, xmlErrorPtr error) { (void)user; (void)error; }

// A feed names no external entity worth reading: a SYSTEM entity in a hostile
// feed could otherwise pull a local file into a title.
static xmlParserInputPtr no_external_entities(const char *url, const char *id, xmlParserCtxtPtr context) {
    (void)url; (void)id; (void)context;
    return NULL;
}

void reel_xml_init(void) {
    xmlInitParser();
    xmlSetExternalEntityLoader(no_external_entities);
}

reel_xml_parser *reel_xml_parser_new(struct reel_xml_callbacks *callbacks) {
    xmlSAXHandler sax;
    memset(&sax, 0, sizeof sax);
    // SAX2's defaults keep the document and its DTD (so that declared entities
    // are known, and dropped rather than expanded: no reference callback);
    // elements and text are ours.
    xmlSAXVersion(&sax, 2);
    sax.startElementNs = on_start;
    sax.endElementNs = on_end;
    sax.characters = on_text;
    sax.cdataBlock = on_text;
    sax.ignorableWhitespace = on_text;
    sax.reference = NULL;
    sax.serror = quiet;
    sax.warning = NULL;
    sax.error = NULL;
    sax.fatalError = NULL;
    xmlParserCtxtPtr context = xmlCreatePushParserCtxt(&sax, NULL, NULL, 0, NULL);
    if (context == NULL) return NULL;
    context->_private = callbacks;
    xmlCtxtUseOptions(context, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    reel_xml_parser *parser = malloc(sizeof *parser);
    if (parser == NULL) {
        xmlFreeParserCtxt(context);
        return NULL;
    }
    parser->context = context;
    return parser;
}

int reel_xml_parser_push(reel_xml_parser *parser, const char *bytes, int count, int last) {
    return xmlParseChunk(parser->context, bytes, count, last);
}

int reel_xml_parser_error_code(reel_xml_parser *parser) { return parser->context->lastError.code; }
int reel_xml_parser_error_line(reel_xml_parser *parser) { return parser->context->lastError.line; }
int reel_xml_parser_line(reel_xml_parser *parser) {
    return parser->context->input != NULL ? parser->context->input->line : 0;
}

void reel_xml_parser_free(reel_xml_parser *parser) {
    if (parser->context->myDoc != NULL) xmlFreeDoc(parser->context->myDoc);
    parser->context->myDoc = NULL;
    xmlFreeParserCtxt(parser->context);
    free(parser);
}
