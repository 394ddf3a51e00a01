/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * patchfacts-print - our patch-id, trailers and m_core of files, for
 * tests/t-patchid.sh and tests/t-trailers.sh to set beside git's own
 * (built for make check, not a test itself).
 *
 *	patchfacts-print patchid FILE...	FILE<TAB>ID ("-": none)
 *	patchfacts-print trailers FILE		the trailer lines of a
 *						commit message file
 *	patchfacts-print core FILE		its core, as m_core hashes it
 *	patchfacts-print mail FILE...		FILE<TAB>ID<TAB>M_CORE, then
 *						the trailer lines, each
 *						after a tab
 *	patchfacts-print patches DIR FILE...	each mail's patch text
 *						(as git mailinfo writes
 *						it) into DIR/NAME.patch,
 *						NAME the FILE's, and its
 *						commit message into
 *						DIR/NAME.msg
 *
 * patchid reads FILE as the patch text itself (mailinfo's patch file);
 * mail and patches read FILE as one raw message the way the milter does
 * (hashed first, the facts from the hashes' reading of it), and fail on
 * a file whose facts from a reading of their own differ.  Exit status 0, 1 when a file
 * cannot be read or hashed (said on standard error), 2 on usage.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "patchattest.h"
#include "mail.h"
#include "base.h"

#define MAX_FILE	((size_t)64 << 20)

static int
slurp(struct sbuf *sb, const char *path)
{
	int fd, rc;

	sbuf_reset(sb);
	if ((fd = open(path, O_RDONLY)) < 0) {
		perror(path);
		return -1;
	}
	rc = sbuf_read_fd(sb, fd);
	close(fd);
	if (rc != 0)
		fprintf(stderr, "%s: %s\n", path, pa_strerror(rc));
	return rc;
}

static int
print_patchid(const struct sbuf *sb, const char *path)
{
	char id[PATCHID_HEXLEN + 1];
	int rc;

	rc = patchid_compute(id, sb->buf, sb->len);
	if (rc != 0 && rc != PA_ENOPATCH) {
		fprintf(stderr, "%s: %s\n", path, pa_strerror(rc));
		return 1;
	}
	printf("%s\t%s\n", path, rc == 0 ? id : "-");
	return 0;
}

static int
print_split(const struct sbuf *sb, int core)
{
	struct trailers t;
	struct sbuf out;
	int rc;

	sbuf_init(&out, MAX_FILE * 2);
	trailers_find(&t, sb->buf, sb->len);
	rc = core ? trailers_core(&out, sb->buf, sb->len, &t) :
	    trailers_lines(&out, sb->buf, &t);
	fwrite(out.buf, 1, out.len, stdout);
	sbuf_release(&out);
	return rc != 0;
}

/* what a mail is read with */
struct reader {
	struct mailmsg		*m;
	struct msghash		 h;
	struct patchfacts	 pf;	/* from h's reading */
	struct patchfacts	 own;	/* from a reading of its own */
};

/* same_facts - a and b say the same of the mail */
static int
same_facts(const struct patchfacts *a, const struct patchfacts *b)
{
	return strcmp(a->patch_id, b->patch_id) == 0 &&
	    a->has_m_core == b->has_m_core &&
	    (!a->has_m_core || memcmp(a->m_core, b->m_core, DIGEST_LEN) == 0) &&
	    a->trailers.len == b->trailers.len &&
	    memcmp(a->trailers.buf, b->trailers.buf, a->trailers.len) == 0;
}

/* read_mail - r->pf of the mail in sb: 0, PA_E*; PA_ERROR said why */
static int
read_mail(struct reader *r, const struct sbuf *sb, const char *path)
{
	int rc, own_rc;

	if ((rc = mailmsg_parse(r->m, sb->buf, sb->len)) != 0)
		return rc;
	(void)msghash_compute(&r->h, r->m, MSGHASH_VARIANTS, NULL);
	rc = patchfacts_compute(&r->pf, r->m, &r->h);
	own_rc = patchfacts_compute(&r->own, r->m, NULL);
	if (rc != own_rc || (rc == 0 && !same_facts(&r->pf, &r->own))) {
		fprintf(stderr, "%s: the hashes' reading and a reading of "
		    "its own differ\n", path);
		return PA_ERROR;
	}
	return rc;
}

static int
print_mail(struct reader *r, const struct sbuf *sb, const char *path)
{
	const struct patchfacts *pf = &r->pf;
	char hex[DIGEST_HEXLEN + 1];
	const char *line, *nl;
	int rc;

	rc = read_mail(r, sb, path);
	if (rc == PA_ENOPATCH) {
		printf("%s\t-\t-\n", path);
		return 0;
	}
	if (rc != 0) {
		fprintf(stderr, "%s: %s\n", path, pa_strerror(rc));
		return 1;
	}
	digest_hex(hex, pf->m_core);
	printf("%s\t%s\t%s\n", path, pf->patch_id[0] ? pf->patch_id : "-",
	    pf->has_m_core ? hex : "-");
	for (line = pf->trailers.buf; (nl = strchr(line, '\n')); line = nl + 1)
		printf("\t%.*s\n", (int)(nl - line), line);
	return 0;
}

/* write_patch - the patch of the mail at file into dir/NAME.patch */
static int
write_patch(struct reader *r, const struct sbuf *sb, const char *dir,
    const char *file)
{
	const struct patchfacts *pf = &r->pf;
	const char *name = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	char path[4096];
	FILE *fp;
	int rc;

	rc = read_mail(r, sb, file);
	if (rc == PA_ENOPATCH || rc == PA_EMAILINFO)
		return 0;
	snprintf(path, sizeof(path), "%s/%s.patch", dir, name);
	if (rc != 0 || (fp = fopen(path, "w")) == NULL)
		return 1;
	fwrite(pf->mi->patch.buf, 1, pf->mi->patch.len, fp);
	if (fclose(fp) != 0)
		return 1;
	snprintf(path, sizeof(path), "%s/%s.msg", dir, name);
	if ((fp = fopen(path, "w")) == NULL)
		return 1;
	fwrite(pf->mi->msg.buf, 1, pf->mi->msg.len, fp);
	return fclose(fp) != 0;
}

int
main(int argc, char **argv)
{
	struct reader r;
	struct sbuf sb;
	int i, dir, status = 0;

	if (argc < 3 || (strcmp(argv[1], "patchid") && strcmp(argv[1], "mail") &&
	    strcmp(argv[1], "trailers") && strcmp(argv[1], "core") &&
	    strcmp(argv[1], "patches"))) {
		fprintf(stderr, "usage: patchfacts-print patchid|trailers|core|"
		    "mail FILE...\n"
		    "       patchfacts-print patches DIR FILE...\n");
		return 2;
	}
	if (mailmsg_new(&r.m, MAX_FILE) != 0)
		return 1;
	msghash_init(&r.h);
	patchfacts_init(&r.pf);
	patchfacts_init(&r.own);
	sbuf_init(&sb, MAX_FILE);
	dir = strcmp(argv[1], "patches") == 0;
	for (i = dir ? 3 : 2; i < argc; i++) {
		if (slurp(&sb, argv[i]) != 0)
			status = 1;
		else if (dir)
			status |= write_patch(&r, &sb, argv[2], argv[i]);
		else if (strcmp(argv[1], "patchid") == 0)
			status |= print_patchid(&sb, argv[i]);
		else if (strcmp(argv[1], "mail") == 0)
			status |= print_mail(&r, &sb, argv[i]);
		else
			status |= print_split(&sb, argv[1][0] == 'c');
	}
	sbuf_release(&sb);
	patchfacts_release(&r.own);
	patchfacts_release(&r.pf);
	msghash_release(&r.h);
	mailmsg_free(r.m);
	return status;
}
