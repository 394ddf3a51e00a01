/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * attdoc.c - attestation documents of format 0.1 (spec section 5): the
 * strict reading of the signed YAML.  The clearsigned spans of a mail
 * and the armor comments that name the format: attdoc-armor.c.  New
 * documents: attdoc-make.c.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "base.h"
#include "patchattest.h"
#include "attdoc.h"

#define ATT_SCALAR_MAX	128	/* longest label or value read */

/* The keys of one block: where each hash goes, and its bit in `seen'. */
static const struct {
	const char	*name;
	size_t		 offset;
	unsigned	 bit;
} triple_keys[] = {
	{ "i", offsetof(struct att_triple, i), 1 },
	{ "m", offsetof(struct att_triple, m), 2 },
	{ "p", offsetof(struct att_triple, p), 4 },
};
#define NTRIPLE_KEYS	(sizeof(triple_keys) / sizeof(triple_keys[0]))
#define SEEN_ALL	7

static const char *const yaml_event_names[] = {
	[YAML_NO_EVENT] = "nothing",
	[YAML_STREAM_START_EVENT] = "start of stream",
	[YAML_STREAM_END_EVENT] = "end of text",
	[YAML_DOCUMENT_START_EVENT] = "start of document",
	[YAML_DOCUMENT_END_EVENT] = "end of document",
	[YAML_ALIAS_EVENT] = "alias",
	[YAML_SCALAR_EVENT] = "scalar",
	[YAML_SEQUENCE_START_EVENT] = "sequence",
	[YAML_SEQUENCE_END_EVENT] = "end of sequence",
	[YAML_MAPPING_START_EVENT] = "mapping",
	[YAML_MAPPING_END_EVENT] = "end of mapping",
};

/* Where the event parser is in the one shape it accepts. */
enum att_state {
	ST_STREAM,	/* before STREAM-START */
	ST_DOC,		/* before DOCUMENT-START */
	ST_TOP,		/* before the top mapping */
	ST_LABEL,	/* a label, or the end of the top mapping */
	ST_BLOCK,	/* the block mapping of a label */
	ST_KEY,		/* i, m, p, or the end of the block */
	ST_VALUE,	/* 64 hex digits */
	ST_DOCEND,	/* DOCUMENT-END */
	ST_END,		/* STREAM-END */
	ST_DONE
};

struct att_parse {
	struct attdoc		*doc;
	enum att_state		 st;
	char			 label[ATT_SCALAR_MAX + 1];
	size_t			 labelline;
	struct att_triple	 cur;
	unsigned		 seen;
	size_t			 key;		/* triple_keys row, ST_VALUE */
	struct pa_err		*err;
};

/* What `step' needs of one event; the scalar points into the event. */
struct att_event {
	yaml_event_type_t	 type;
	const char		*what;		/* its name, for errors */
	size_t			 line;
	const char		*s;		/* a scalar's text */
	size_t			 n;
	int			 flow;		/* a flow-style mapping */
};

/* A triple with its place in the document, for removing duplicates. */
struct att_sorted {
	struct att_triple	 t;
	size_t			 idx;
};

static int	 bad(struct pa_err *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));
static int	 hex32(unsigned char *, const char *, size_t);
static int	 screen(struct att_parse *, const yaml_event_t *,
		    struct att_event *);
static int	 take_label(struct att_parse *, const struct att_event *);
static int	 take_key(struct att_parse *, const struct att_event *);
static int	 step(struct att_parse *, const struct att_event *);
static int	 end_block(struct att_parse *);
static int	 add_triple(struct attdoc *, const struct att_triple *);
static int	 sorted_cmp(const void *, const void *);
static int	 dedupe(struct attdoc *, struct pa_err *);

static int
bad(struct pa_err *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pa_err_vset(err, fmt, ap);
	va_end(ap);
	return PA_EBADDOC;
}

void
attdoc_init(struct attdoc *d)
{
	d->t = NULL;
	d->n = 0;
	d->alloc = 0;
}

void
attdoc_release(struct attdoc *d)
{
	free(d->t);
	attdoc_init(d);
}

/* hex32 - 64 lower-case hex digits into 32 bytes; 0 if not exactly that */
static int
hex32(unsigned char *out, const char *s, size_t len)
{
	size_t i;
	int hi, lo;

	if (len != 2 * DIGEST_LEN)
		return 0;
	for (i = 0; i < len; i += 2) {
		hi = s[i] >= '0' && s[i] <= '9' ? s[i] - '0' :
		    s[i] >= 'a' && s[i] <= 'f' ? s[i] - 'a' + 10 : -1;
		lo = s[i + 1] >= '0' && s[i + 1] <= '9' ? s[i + 1] - '0' :
		    s[i + 1] >= 'a' && s[i + 1] <= 'f' ? s[i + 1] - 'a' + 10 :
		    -1;
		if (hi < 0 || lo < 0)
			return 0;
		out[i / 2] = (unsigned char)(hi << 4 | lo);
	}
	return 1;
}

static int
add_triple(struct attdoc *d, const struct att_triple *t)
{
	int rc;

	if ((rc = GROW(d->t, d->n, d->alloc, 16, ATTDOC_MAX_BLOCKS)) != 0)
		return rc;
	d->t[d->n++] = *t;
	return 0;
}

/* end_block - the block of a label is complete: check it and keep it */
static int
end_block(struct att_parse *ps)
{
	char want[MSGHASH_ATTID_LEN + 1];
	char buf[ATTDOC_SHOW_MAX + 4];
	size_t k;

	if (ps->seen != SEEN_ALL) {
		for (k = 0; k < NTRIPLE_KEYS; k++)
			if (!(ps->seen & triple_keys[k].bit))
				break;
		return bad(ps->err, "line %zu: block %s has no key %s",
		    ps->labelline, hdrfmt_printable(buf, sizeof(buf),
		    ps->label, strlen(ps->label)), triple_keys[k].name);
	}
	msghash_attid(want, ps->cur.i, ps->cur.m, ps->cur.p);
	if (strcmp(ps->label, want) != 0)
		return bad(ps->err, "line %zu: label %s does not match its "
		    "hashes (%s)", ps->labelline, hdrfmt_printable(buf,
		    sizeof(buf), ps->label, strlen(ps->label)), want);
	if (ps->doc->n >= ATTDOC_MAX_BLOCKS)
		return bad(ps->err, "line %zu: more than %u attestations in "
		    "one document", ps->labelline, ATTDOC_MAX_BLOCKS);
	if (add_triple(ps->doc, &ps->cur) != 0) {
		if (ps->err)
			snprintf(ps->err->msg, sizeof(ps->err->msg),
			    "out of memory reading an attestation document");
		return PA_ENOMEM;
	}
	return 0;
}

/*
 * screen - the rules that hold wherever an event stands: no aliases, anchors,
 * tags, directives or document markers; scalars plain and short.  Fills `e'.
 */
static int
screen(struct att_parse *ps, const yaml_event_t *ev, struct att_event *e)
{
	memset(e, 0, sizeof(*e));
	e->type = ev->type;
	e->line = ev->start_mark.line + 1;
	e->what = (size_t)ev->type < sizeof(yaml_event_names) /
	    sizeof(yaml_event_names[0]) ? yaml_event_names[ev->type] : "?";
	switch (ev->type) {
	case YAML_ALIAS_EVENT:
		return bad(ps->err, "line %zu: YAML aliases are not allowed",
		    e->line);
	case YAML_SCALAR_EVENT:
		if (ev->data.scalar.anchor || ev->data.scalar.tag)
			goto decorated;
		if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
			return bad(ps->err, "line %zu: only plain scalars are "
			    "allowed", e->line);
		e->s = (const char *)ev->data.scalar.value;
		e->n = ev->data.scalar.length;
		if (e->n > ATT_SCALAR_MAX)
			return bad(ps->err, "line %zu: a scalar of %zu bytes "
			    "(at most %d)", e->line, e->n, ATT_SCALAR_MAX);
		return 0;
	case YAML_SEQUENCE_START_EVENT:
		if (ev->data.sequence_start.anchor ||
		    ev->data.sequence_start.tag)
			goto decorated;
		return 0;
	case YAML_MAPPING_START_EVENT:
		if (ev->data.mapping_start.anchor || ev->data.mapping_start.tag)
			goto decorated;
		e->flow = ev->data.mapping_start.style ==
		    YAML_FLOW_MAPPING_STYLE;
		return 0;
	case YAML_DOCUMENT_START_EVENT:
		if (ev->data.document_start.version_directive ||
		    ev->data.document_start.tag_directives.start !=
		    ev->data.document_start.tag_directives.end)
			return bad(ps->err, "line %zu: YAML directives are not "
			    "allowed", e->line);
		if (!ev->data.document_start.implicit)
			return bad(ps->err, "line %zu: a \"---\" document "
			    "marker is not allowed", e->line);
		return 0;
	case YAML_DOCUMENT_END_EVENT:
		if (!ev->data.document_end.implicit)
			return bad(ps->err, "line %zu: a \"...\" document "
			    "marker is not allowed", e->line);
		return 0;
	default:
		return 0;
	}
decorated:
	return bad(ps->err, "line %zu: YAML anchors and tags are not allowed",
	    e->line);
}

/* take_label - a scalar where an attestation ID belongs opens a block */
static int
take_label(struct att_parse *ps, const struct att_event *e)
{
	memcpy(ps->label, e->s, e->n);
	ps->label[e->n] = '\0';
	if (strlen(ps->label) != e->n)
		return bad(ps->err, "line %zu: a NUL in a label", e->line);
	ps->labelline = e->line;
	ps->st = ST_BLOCK;
	return 0;
}

/* take_key - a scalar where i, m or p belongs: which one, and only once */
static int
take_key(struct att_parse *ps, const struct att_event *e)
{
	char buf[ATTDOC_SHOW_MAX + 4];
	size_t k;

	for (k = 0; k < NTRIPLE_KEYS; k++)
		if (strlen(triple_keys[k].name) == e->n &&
		    memcmp(triple_keys[k].name, e->s, e->n) == 0)
			break;
	if (k == NTRIPLE_KEYS)
		return bad(ps->err, "line %zu: unknown key \"%s\" (only i, m, "
		    "p)", e->line, hdrfmt_printable(buf, sizeof(buf), e->s,
		    e->n));
	if (ps->seen & triple_keys[k].bit)
		return bad(ps->err, "line %zu: key %s twice", e->line,
		    triple_keys[k].name);
	ps->seen |= triple_keys[k].bit;
	ps->key = k;
	ps->st = ST_VALUE;
	return 0;
}

/* step - move through the one accepted shape, or say what broke it */
static int
step(struct att_parse *ps, const struct att_event *e)
{
	char buf[ATTDOC_SHOW_MAX + 4];

	switch (ps->st) {
	case ST_STREAM:
		if (e->type != YAML_STREAM_START_EVENT)
			break;
		ps->st = ST_DOC;
		return 0;
	case ST_DOC:
		if (e->type == YAML_STREAM_END_EVENT)
			return bad(ps->err, "no attestations");
		if (e->type != YAML_DOCUMENT_START_EVENT)
			break;
		ps->st = ST_TOP;
		return 0;
	case ST_TOP:
		if (e->type != YAML_MAPPING_START_EVENT || e->flow)
			return bad(ps->err, "line %zu: the text is not a block "
			    "mapping of attestation IDs", e->line);
		ps->st = ST_LABEL;
		return 0;
	case ST_LABEL:
		if (e->type == YAML_MAPPING_END_EVENT) {
			ps->st = ST_DOCEND;
			return 0;
		}
		if (e->type != YAML_SCALAR_EVENT)
			return bad(ps->err, "line %zu: a %s where an "
			    "attestation ID belongs", e->line, e->what);
		return take_label(ps, e);
	case ST_BLOCK:
		if (e->type != YAML_MAPPING_START_EVENT || e->flow)
			return bad(ps->err, "line %zu: %s is not a block "
			    "mapping of i, m and p", e->line,
			    hdrfmt_printable(buf, sizeof(buf), ps->label,
			    strlen(ps->label)));
		memset(&ps->cur, 0, sizeof(ps->cur));
		ps->seen = 0;
		ps->st = ST_KEY;
		return 0;
	case ST_KEY:
		if (e->type == YAML_MAPPING_END_EVENT) {
			ps->st = ST_LABEL;
			return end_block(ps);
		}
		if (e->type != YAML_SCALAR_EVENT)
			return bad(ps->err, "line %zu: a %s where i, m or p "
			    "belongs", e->line, e->what);
		return take_key(ps, e);
	case ST_VALUE:
		if (e->type != YAML_SCALAR_EVENT)
			return bad(ps->err, "line %zu: a %s where a hash "
			    "belongs", e->line, e->what);
		if (!hex32((unsigned char *)&ps->cur +
		    triple_keys[ps->key].offset, e->s, e->n))
			return bad(ps->err, "line %zu: %s is not 64 lower-case "
			    "hex digits", e->line, triple_keys[ps->key].name);
		ps->st = ST_KEY;
		return 0;
	case ST_DOCEND:
		if (e->type != YAML_DOCUMENT_END_EVENT)
			break;
		ps->st = ST_END;
		return 0;
	case ST_END:
		if (e->type == YAML_DOCUMENT_START_EVENT)
			return bad(ps->err, "line %zu: more than one YAML "
			    "document", e->line);
		if (e->type != YAML_STREAM_END_EVENT)
			break;
		ps->st = ST_DONE;
		return 0;
	case ST_DONE:
		break;
	}
	return bad(ps->err, "line %zu: unexpected %s", e->line, e->what);
}

static int
sorted_cmp(const void *a, const void *b)
{
	const struct att_triple *x = &((const struct att_sorted *)a)->t;
	const struct att_triple *y = &((const struct att_sorted *)b)->t;
	size_t ix, iy;
	int c;

	/* By label first, so that one label's blocks are neighbours. */
	if ((c = memcmp(x->i, y->i, 4)) != 0 ||
	    (c = memcmp(x->m, y->m, 4)) != 0 ||
	    (c = memcmp(x->p, y->p, 4)) != 0 ||
	    (c = memcmp(x, y, sizeof(*x))) != 0)
		return c;
	ix = ((const struct att_sorted *)a)->idx;
	iy = ((const struct att_sorted *)b)->idx;
	return ix < iy ? -1 : ix > iy;
}

/*
 * dedupe - a document is a set: drop repeated blocks, keep the order of
 * first appearance.  One label with two different triples is refused.
 */
static int
dedupe(struct attdoc *d, struct pa_err *err)
{
	struct att_sorted *s;
	unsigned char *drop;
	char label[MSGHASH_ATTID_LEN + 1];
	size_t i, n;
	int rc = 0;

	if (d->n < 2)
		return 0;
	s = calloc(d->n, sizeof(*s));
	drop = calloc(d->n, 1);
	if (s == NULL || drop == NULL) {
		free(s);
		free(drop);
		if (err)
			snprintf(err->msg, sizeof(err->msg),
			    "out of memory reading an attestation document");
		return PA_ENOMEM;
	}
	for (i = 0; i < d->n; i++) {
		s[i].t = d->t[i];
		s[i].idx = i;
	}
	qsort(s, d->n, sizeof(*s), sorted_cmp);
	for (i = 1; i < d->n; i++) {
		/* Equal blocks sort by place: the first one stays. */
		if (memcmp(&s[i].t, &s[i - 1].t, sizeof(s[i].t)) == 0) {
			drop[s[i].idx] = 1;
			continue;
		}
		if (memcmp(s[i].t.i, s[i - 1].t.i, 4) == 0 &&
		    memcmp(s[i].t.m, s[i - 1].t.m, 4) == 0 &&
		    memcmp(s[i].t.p, s[i - 1].t.p, 4) == 0) {
			msghash_attid(label, s[i].t.i, s[i].t.m, s[i].t.p);
			rc = bad(err, "label %s appears with two different "
			    "sets of hashes", label);
			break;
		}
	}
	if (rc == 0) {
		for (i = 0, n = 0; i < d->n; i++)
			if (!drop[i])
				d->t[n++] = d->t[i];
		d->n = n;
	}
	free(s);
	free(drop);
	return rc;
}

int
attdoc_parse(struct attdoc *d, const char *text, size_t len,
    struct pa_err *err)
{
	struct att_parse ps;
	struct att_event e;
	yaml_parser_t parser;
	yaml_event_t ev;
	int rc = 0;

	d->n = 0;
	if (len > ATTDOC_MAX_BYTES)
		return bad(err, "the signed text of %zu bytes is over the "
		    "limit of %u", len, ATTDOC_MAX_BYTES);
	memset(&ps, 0, sizeof(ps));
	ps.doc = d;
	ps.err = err;
	ps.st = ST_STREAM;
	if (!yaml_parser_initialize(&parser)) {
		if (err)
			snprintf(err->msg, sizeof(err->msg),
			    "out of memory starting the YAML parser");
		return PA_ENOMEM;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text,
	    len);
	/* UTF-8 only: no byte-order mark may switch it to UTF-16. */
	yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
	while (rc == 0 && ps.st != ST_DONE) {
		if (!yaml_parser_parse(&parser, &ev)) {
			rc = bad(err, "line %zu: not valid YAML: %s%s%s",
			    parser.problem_mark.line + 1, parser.problem ?
			    parser.problem : "parse error", parser.context ?
			    ", " : "", parser.context ? parser.context : "");
			break;
		}
		if ((rc = screen(&ps, &ev, &e)) == 0)
			rc = step(&ps, &e);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	if (rc == 0 && d->n == 0)
		rc = bad(err, "no attestations");
	if (rc == 0)
		rc = dedupe(d, err);
	if (rc != 0)
		d->n = 0;
	return rc;
}
