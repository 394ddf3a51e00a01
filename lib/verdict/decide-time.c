/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * decide-time.c - a signing time against the mail's arrival (see
 * decide.h), shared by the 2020 scheme's verdict (decide.c) and patatt's
 * (decide-patatt.c).  The arrival is the milter's clock: the Date a
 * sender writes is never signed by patatt, and an old signature sent
 * again under a new Date must not pass.
 */
#include "config.h"

#include <stdio.h>

#include "decide.h"
#include "base.h"

enum verdict
decide_signing_time(const struct pa_config *cfg, time_t signed_at,
    time_t arrived, char *reason, size_t size)
{
	long long age = (long long)arrived - (long long)signed_at;

	if (signed_at == 0 || arrived == 0)
		return VERDICT_PASS;
	if (cfg->staleness_days > 0 && age / 86400 > cfg->staleness_days) {
		snprintf(reason, size, "signed %lld days before the mail "
		    "arrived (StalenessDays %ld)", age / 86400,
		    cfg->staleness_days);
		return VERDICT_STALE;
	}
	if (cfg->max_clock_skew > 0 && -age > cfg->max_clock_skew) {
		snprintf(reason, size, "signed %lld seconds after the mail "
		    "arrived: the signer's clock or the signing time is wrong "
		    "(MaxClockSkew %ld)", -age, cfg->max_clock_skew);
		return VERDICT_STALE;
	}
	return VERDICT_PASS;
}
