/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * runas.c - looking up and becoming the user a program acts as (see
 * runas.h).
 */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "runas.h"

int
runas_lookup(struct runas *ra, const char *spec, struct pa_err *err)
{
	const char *colon = strchr(spec, ':');
	struct passwd *pw;
	struct group *gr;

	memset(ra, 0, sizeof(*ra));
	snprintf(ra->name, sizeof(ra->name), "%.*s", colon ?
	    (int)(colon - spec) : (int)strlen(spec), spec);
	if ((pw = getpwnam(ra->name)) == NULL) {
		pa_err_set(err, "no such user");
		return PA_ENOTFOUND;
	}
	ra->uid = pw->pw_uid;
	ra->gid = pw->pw_gid;
	if (colon != NULL) {
		if ((gr = getgrnam(colon + 1)) == NULL) {
			pa_err_set(err, "no such group");
			return PA_ENOTFOUND;
		}
		ra->gid = gr->gr_gid;
	}
	ra->set = 1;
	return 0;
}

int
runas_become(const struct runas *ra, struct pa_err *err)
{
	if (!ra->set)
		return 0;
	if (initgroups(ra->name, ra->gid) != 0 || setgid(ra->gid) != 0 ||
	    setuid(ra->uid) != 0) {
		pa_err_set(err, "cannot become %s: %s", ra->name,
		    strerror(errno));
		return PA_ERROR;
	}
	/* a user other than root must not be able to take root back */
	if (ra->uid != 0 && (setuid(0) == 0 || seteuid(0) == 0)) {
		pa_err_set(err, "cannot become %s for good: root could be "
		    "taken back", ra->name);
		return PA_ERROR;
	}
	return 0;
}
