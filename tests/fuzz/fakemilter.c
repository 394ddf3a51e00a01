/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fakemilter.c - libmilter's side of the milter's callbacks, for the
 * fuzzers and the torture run (see fakemilter.h).
 */
#include "config.h"

#include <sys/stat.h>

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "fakemilter.h"
#include "milter.h"

int
smfi_setpriv(SMFICTX *ctx, void *p)
{
	ctx->priv = p;
	return MI_SUCCESS;
}

void *
smfi_getpriv(SMFICTX *ctx)
{
	return ctx->priv;
}

char *
smfi_getsymval(SMFICTX *ctx, char *name)
{
	(void)ctx;
	return strcmp(name, "i") == 0 ? "FUZZQID" : NULL;
}

int
smfi_chgheader(SMFICTX *ctx, char *name, int idx, char *value)
{
	(void)name;
	(void)idx;
	if (ctx->refuse)
		return MI_FAILURE;
	ctx->stripped += value == NULL;
	return MI_SUCCESS;
}

int
smfi_insheader(SMFICTX *ctx, int idx, char *name, char *value)
{
	(void)idx;
	(void)value;
	if (ctx->refuse)
		return MI_FAILURE;
	ctx->inserted += strcasecmp(name, "X-Patch-Attested") == 0;
	return MI_SUCCESS;
}

int
smfi_addheader(SMFICTX *ctx, char *name, char *value)
{
	return smfi_insheader(ctx, 0, name, value);
}

int
smfi_setreply(SMFICTX *ctx, char *rcode, char *xcode, char *text)
{
	(void)rcode;
	(void)xcode;
	(void)text;
	ctx->replied = 1;
	return MI_SUCCESS;
}

int
smfi_quarantine(SMFICTX *ctx, char *reason)
{
	(void)reason;
	return ctx->refuse ? MI_FAILURE : MI_SUCCESS;
}

void
fake_reset(SMFICTX *ctx)
{
	ctx->priv = NULL;
	ctx->refuse = ctx->stripped = ctx->inserted = ctx->replied = 0;
}

int
fake_start(const char *dir, const char *keyring, const char *conf)
{
	char path[4096], gnupg[4096];
	struct pa_config cf;
	struct pa_err err = { "" };
	struct sbuf problems;
	FILE *fp;

	snprintf(gnupg, sizeof(gnupg), "%s/gnupg", dir);
	snprintf(path, sizeof(path), "%s/milter.conf", dir);
	mkdir(dir, 0700);
	mkdir(gnupg, 0700);
	if ((fp = fopen(path, "w")) == NULL)
		return -1;
	fprintf(fp, "IndexPath %s/index\nGnuPGHome %s\nSyslog no\n"
	    "AuthservID fuzz.example\n%s%s%s\n", dir, gnupg,
	    keyring ? "PatattKeyring " : "", keyring ? keyring : "",
	    keyring ? "\n" : "");
	fputs(conf ? conf : "", fp);
	if (fclose(fp) != 0)
		return -1;
	sbuf_init(&problems, 1 << 16);
	if (pa_global_init(&err) != 0 || config_init(&cf) != 0 ||
	    config_load(&cf, path, &problems) != 0 ||
	    state_init(&cf, &err) != 0) {
		fprintf(stderr, "fakemilter: %s%s\n", problems.buf, err.msg);
		sbuf_release(&problems);
		return -1;
	}
	sbuf_release(&problems);
	mlog_open(0);
	return 0;
}
