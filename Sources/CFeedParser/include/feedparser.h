#ifndef REEL_FEEDPARSER_H
#define REEL_FEEDPARSER_H

// libxml2's SAX2 push parser for feeds, behind types of C's own: elements,
// text and CDATA reach callbacks with a context; no tree is built, nothing
// is loaded from the network or the disk, and errors are not printed (the
// caller asks for the last one).

typedef void (*reel_xml_start_fn)(void *context, const unsigned char *localname, const unsigned char *prefix,
                                  int attribute_count, const unsigned char **attributes);
typedef void (*reel_xml_end_fn)(void *context, const unsigned char *localname, const unsigned char *prefix);
typedef void (*reel_xml_text_fn)(void *context, const unsigned char *text, int length);

struct reel_xml_callbacks {
    void *context;
    reel_xml_start_fn start;
    reel_xml_end_fn end;
    reel_xml_text_fn text;
};

typedef struct reel_xml_parser reel_xml_parser;

/// Once per process, before any parser.
void reel_xml_init(void);
/// A parser calling `callbacks` (which must outlive it), or NULL.
reel_xml_parser *reel_xml_parser_new(struct reel_xml_callbacks *callbacks);
/// Feeds `count` bytes; `last`: the document ends here. 0, or libxml2's error number.
int reel_xml_parser_push(reel_xml_parser *parser, const char *bytes, int count, int last);
/// The last error's number and line, and the line the parser has reached.
int reel_xml_parser_error_code(reel_xml_parser *parser);
int reel_xml_parser_error_line(reel_xml_parser *parser);
int reel_xml_parser_line(reel_xml_parser *parser);
void reel_xml_parser_free(reel_xml_parser *parser);

#endif
