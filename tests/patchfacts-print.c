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
 * mail reads FILE as one raw message.  Exit status 0, 1 when a file
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

static int
print_mail(struct patchfacts *pf, struct mailmsg *m, const struct sbuf *sb,
    const char *path)
{
	char hex[DIGEST_HEXLEN + 1];
	const char *line, *nl;
	int rc;

	if ((rc = mailmsg_parse(m, sb->buf, sb->len)) == 0)
		rc = patchfacts_compute(pf, m);
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
write_patch(struct patchfacts *pf, struct mailmsg *m, const struct sbuf *sb,
    const char *dir, const char *file)
{
	const char *name = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	char path[4096];
	FILE *fp;
	int rc;

	if ((rc = mailmsg_parse(m, sb->buf, sb->len)) == 0)
		rc = patchfacts_compute(pf, m);
	if (rc == PA_ENOPATCH || rc == PA_EMAILINFO)
		return 0;
	snprintf(path, sizeof(path), "%s/%s.patch", dir, name);
	if (rc != 0 || (fp = fopen(path, "w")) == NULL)
		return 1;
	fwrite(pf->mi.patch.buf, 1, pf->mi.patch.len, fp);
	if (fclose(fp) != 0)
		return 1;
	snprintf(path, sizeof(path), "%s/%s.msg", dir, name);
	if ((fp = fopen(path, "w")) == NULL)
		return 1;
	fwrite(pf->mi.msg.buf, 1, pf->mi.msg.len, fp);
	return fclose(fp) != 0;
}

int
main(int argc, char **argv)
{
	struct patchfacts pf;
	struct mailmsg *m;
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
	if (mailmsg_new(&m, MAX_FILE) != 0)
		return 1;
	patchfacts_init(&pf);
	sbuf_init(&sb, MAX_FILE);
	dir = strcmp(argv[1], "patches") == 0;
	for (i = dir ? 3 : 2; i < argc; i++) {
		if (slurp(&sb, argv[i]) != 0)
			status = 1;
		else if (dir)
			status |= write_patch(&pf, m, &sb, argv[2], argv[i]);
		else if (strcmp(argv[1], "patchid") == 0)
			status |= print_patchid(&sb, argv[i]);
		else if (strcmp(argv[1], "mail") == 0)
			status |= print_mail(&pf, m, &sb, argv[i]);
		else
			status |= print_split(&sb, argv[1][0] == 'c');
	}
	sbuf_release(&sb);
	patchfacts_release(&pf);
	mailmsg_free(m);
	return status;
}
